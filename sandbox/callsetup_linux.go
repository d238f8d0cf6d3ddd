package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/cgroup"
	"github.com/murmur-nexus/murmur-eval/sandbox/egress"
)

// callSetup is what one subprocess call holds besides its process: the
// control socket to its launcher, the egress proxy serving its network
// namespace, and its cgroup. Each part is there only when the run has it
// (SpawnerOptions.Egress, SpawnerOptions.Cgroups).
type callSetup struct {
	policy  *egress.Policy
	proxied bool
	nfds    int // sockets the launcher hands over
	ctl     *control
	sess    *egress.Session
	group   *cgroup.Group
}

// prepareCall decides p's network and cgroup and fills the launcher's
// half of them into spec. Nothing runs yet.
func (s *Spawner) prepareCall(p Proc, spec *launchSpec) (*callSetup, error) {
	c := &callSetup{policy: s.opts.Egress}
	c.proxied = s.EgressMode(p.Isolate) == EgressProxy
	if c.proxied {
		ports := s.opts.Egress.Ports()
		spec.Net = &netSpec{Ports: ports, DNS: true}
		c.nfds = len(ports) + 1
	}
	if s.opts.Cgroups != nil {
		g, err := s.opts.Cgroups.NewGroup(fmt.Sprintf("call-%d", s.calls.Add(1)), cgroupLimits(p))
		if err != nil {
			return nil, errcode.Wrap(errcode.RunCapsule, err, "sandbox set-up for '%s' failed: create its cgroup", p.Argv[0])
		}
		c.group = g
	}
	if c.proxied || c.group != nil {
		ctl, err := newControl()
		if err != nil {
			c.close()
			return nil, errcode.Wrap(errcode.RunCapsule, err, "sandbox set-up for '%s' failed", p.Argv[0])
		}
		c.ctl, spec.Control, spec.Wait = ctl, true, c.group != nil
	}
	return c, nil
}

// cgroupLimits are p's aggregate bounds; the I/O limit applies to the
// device of the session folder.
func cgroupLimits(p Proc) cgroup.Limits {
	r := p.Resources
	return cgroup.Limits{MemoryBytes: r.CgroupMemoryBytes, PidsMax: r.CgroupPidsMax, CPUPercent: r.CgroupCPUPercent,
		IOBytesPerSec: r.CgroupIOBytesPerSec, IODevice: p.SessionDir}
}

// start runs the parent's half of the handshake once the launcher (pid)
// has started: it takes the namespace's sockets and starts the proxy on
// them, puts the launcher in the call's cgroup, and lets it exec the
// tool. A launcher that exited first is not an error here: its own
// message says why (Spawner.Run reads it).
func (c *callSetup) start(ctx context.Context, pid int) error {
	if c.ctl == nil {
		return nil
	}
	c.ctl.started()
	files, err := c.ctl.receive(c.nfds)
	if errors.Is(err, errLauncherGone) {
		return nil
	}
	if err != nil {
		return err
	}
	if c.proxied {
		tcp, dns, err := socketsOf(files)
		if err != nil {
			return err
		}
		c.sess = c.policy.Serve(ctx, tcp, dns)
	}
	if c.group == nil {
		return nil // the launcher did not wait
	}
	if err := c.group.Join(pid); err != nil {
		return fmt.Errorf("join its cgroup: %w", err)
	}
	return c.ctl.release()
}

// socketsOf turns the launcher's sockets (the TCP listeners in port order,
// then the resolver's UDP socket) into the proxy's listeners; the files
// are closed (net dups them).
func socketsOf(files []*os.File) (tcp []net.Listener, dns net.PacketConn, err error) {
	defer closeFiles(files)
	for i, f := range files {
		if i == len(files)-1 {
			dns, err = net.FilePacketConn(f)
			break
		}
		var l net.Listener
		if l, err = net.FileListener(f); err != nil {
			break
		}
		tcp = append(tcp, l)
	}
	if err != nil {
		for _, l := range tcp {
			_ = l.Close()
		}
		return nil, nil, fmt.Errorf("take the namespace's sockets: %w", err)
	}
	return tcp, dns, nil
}

// pids lists the call's processes for the workdir guard: its cgroup's
// (one read) when it has one, else the tree below root, the launcher.
// The guard runs beside start and finish; a Group's Procs only reads.
func (c *callSetup) pids(root int) func() ([]int, error) {
	if c.group != nil {
		return c.group.Procs
	}
	return callPIDs(root)
}

// finish ends the call's proxy and reads its cgroup once the process has
// exited: the connections and lookups the proxy refused, and the cgroup
// limit that killed something or refused a fork ("" for none).
func (c *callSetup) finish() (denied []egress.Denial, limit string) {
	if c.sess != nil {
		denied = c.sess.Close()
		c.sess = nil
	}
	if c.group != nil {
		limit = c.group.Killed()
	}
	return denied, limit
}

// close releases everything the call still holds.
func (c *callSetup) close() {
	if c.sess != nil {
		c.sess.Close()
	}
	if c.group != nil {
		_ = c.group.Close()
	}
	if c.ctl != nil {
		c.ctl.Close()
	}
}
