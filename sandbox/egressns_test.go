package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/sandbox/egress"
)

// pingServer answers each connection's first line with "pong <line>".
func pingServer(t *testing.T) *net.TCPAddr {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				fmt.Fprintf(c, "pong %s", line)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr)
}

// proxiedSpawner is a Spawner whose calls reach the network only through
// an egress proxy for allow.
func proxiedSpawner(t *testing.T, allow ...string) *Spawner {
	t.Helper()
	var rules []capsule.AllowRule
	for _, e := range allow {
		r, err := capsule.ParseAllowEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
	}
	p, err := egress.NewPolicy(rules, egress.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return spawnerWith(t, SpawnerOptions{Egress: p})
}

// requireEgress skips where the host cannot set up a proxied namespace
// (never as root on Linux under CI, where it must work).
func requireEgress(t *testing.T) {
	t.Helper()
	requireSandbox(t)
	if h := testHost(); !h.Egress {
		t.Skipf("no egress proxy on this host: %s", h.EgressReason)
	}
}

// TestProxiedCallsReachOnlyTheAllowList: with a non-empty network.allow a
// call still gets its own network namespace; through the proxy it reaches
// the allowed host (by address and by name), and nothing else: another
// host port is refused at once, UDP never leaves the namespace, other
// names are not resolved, the metadata address is refused even on an
// allowed port, and the launcher's capabilities are gone before the tool
// runs. Each refusal the proxy sees is a Denial on the result.
func TestProxiedCallsReachOnlyTheAllowList(t *testing.T) {
	requireEgress(t)
	allowed := pingServer(t)
	unlisted := pingServer(t)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	s := proxiedSpawner(t, fmt.Sprintf("127.0.0.1:%d", allowed.Port), fmt.Sprintf("localhost:%d", allowed.Port))
	dir, _ := sessionDir(t)
	run := func(args ...string) (string, []egress.Denial) {
		t.Helper()
		r, err := s.Run(context.Background(), Proc{Path: attack(t), Argv: append([]string{"attack"}, args...), Dir: dir, SessionDir: dir,
			Resources: defaultResources(), CapsuleGrants: true, Env: []string{"PATH=/usr/bin:/bin"},
			Deadline: 30 * time.Second, MaxOutput: 16 << 10})
		if err != nil {
			t.Fatalf("attack %v: %v", args, err)
		}
		return strings.TrimSpace(string(r.Stdout) + string(r.Stderr)), r.Denied
	}
	for _, tc := range []struct {
		name   string
		args   []string
		want   string
		denial string // the Denial's Kind, "" for none
	}{
		{"allowed address", []string{"tcp", allowed.String()}, "answer: pong ping", ""},
		{"allowed name", []string{"tcp", fmt.Sprintf("localhost:%d", allowed.Port)}, "answer: pong ping", ""},
		{"allowed name resolves", []string{"resolve", "localhost"}, "addresses: 127.0.0.1", ""},
		{"unlisted port", []string{"tcp", unlisted.String()}, "DENIED", ""},
		{"metadata address on an allowed port", []string{"tcp", fmt.Sprintf("169.254.169.254:%d", allowed.Port)}, "DENIED", "tcp"},
		{"unlisted name", []string{"resolve", "exfil-1234.attacker.example"}, "DENIED", "dns"},
		{"no capabilities", []string{"caps"}, "ALLOWED", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, denied := run(tc.args...)
			if !strings.HasPrefix(out, tc.want) {
				t.Errorf("attack %v: %q, want %q", tc.args, out, tc.want)
			}
			switch {
			case tc.denial == "" && len(denied) > 0:
				t.Errorf("attack %v: denials %+v, want none", tc.args, denied)
			case tc.denial != "" && (len(denied) != 1 || denied[0].Kind != tc.denial):
				t.Errorf("attack %v: denials %+v, want one %s", tc.args, denied, tc.denial)
			}
		})
	}
	// glibc's getaddrinfo (getent), which cannot read /etc/resolv.conf
	// or /etc/hosts under Landlock, gets its answer from the namespace's
	// resolver. The allowed name's upstream lookup is the test's, so
	// nothing leaves the machine.
	t.Run("glibc lookup", func(t *testing.T) {
		getent := "/usr/bin/getent"
		if _, err := os.Stat(getent); err != nil {
			t.Skip("no getent")
		}
		p, err := egress.NewPolicy([]capsule.AllowRule{{Host: "model.test", Port: 443}}, egress.Options{
			Resolve: func(context.Context, string) ([]netip.Addr, error) {
				return []netip.Addr{netip.MustParseAddr("198.51.100.7")}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := spawnerWith(t, SpawnerOptions{Egress: p}).Run(context.Background(), Proc{Path: getent, Argv: []string{"getent", "ahostsv4", "model.test"},
			Dir: dir, SessionDir: dir, Resources: defaultResources(), Env: []string{"PATH=/usr/bin:/bin"}, Deadline: 30 * time.Second, MaxOutput: 16 << 10})
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "198.51.100.7") {
			t.Errorf("getent ahostsv4 model.test: exit %d, %q %q", r.ExitCode, r.Stdout, r.Stderr)
		}
	})
	t.Run("udp", func(t *testing.T) {
		if out, _ := run("udp", udp.LocalAddr().String()); !strings.HasPrefix(out, "ALLOWED") && !strings.HasPrefix(out, "DENIED") {
			t.Fatalf("attack udp: %q", out)
		}
		_ = udp.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		buf := make([]byte, 64)
		if n, from, err := udp.ReadFrom(buf); err == nil {
			t.Errorf("the host received %q from %v: UDP left the call's namespace", buf[:n], from)
		}
	})
}
