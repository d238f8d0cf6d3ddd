package sandbox

import "os"

// Host is what the kernel really offers subprocesses, found by ProbeHost.
// Probe once per process and pass the value down.
type Host struct {
	// Landlock: a rule set was built and enforced (a read outside it was
	// refused); LandlockABI is the kernel's ABI number.
	Landlock    bool
	LandlockABI int
	// UserNS: a child could be started in new user, PID, IPC, UTS and
	// network namespaces with a uid map (the subprocess set-up this package
	// uses).
	UserNS bool
	// Egress: such a child can also hold CAP_NET_ADMIN and
	// CAP_NET_BIND_SERVICE in its own user namespace, which a proxied
	// call's launcher needs to set up its network (the egress proxy).
	Egress bool
	// Reason says why the weakest missing mechanism is missing.
	LandlockReason, UserNSReason, EgressReason string
}

// ToolUID is the uid shell and native tools and dataset commands run as
// (nobody when murmur-eval is root, else its own uid); handOver gives them
// the session's folders as uid:uid.
func ToolUID() int { return subprocessUID() }

// subprocessUID is the uid subprocesses run as.
func subprocessUID() int {
	if uid := os.Getuid(); uid != 0 {
		return uid
	}
	return nobody
}

// nobody is the uid and gid subprocesses of a root evaluator run as.
const nobody = 65534
