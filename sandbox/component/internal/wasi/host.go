// Package wasi is the component host's WASI 0.2 layer: wasi:cli, io,
// clocks, random, filesystem and http, implemented directly at the core
// level on the canonical ABI layer (sandbox/component/internal/abi) for
// one call's Host. sandbox/component links these functions into a
// component's main module beside murmur's own interfaces.
package wasi

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/abi"
)

const (
	i32 = abi.I32
	i64 = abi.I64
)

// hostFunc and iface are this layer's host functions, on a *Host
// (defined here, so that their literals may be positional).
type (
	hostFunc abi.Func[*Host]
	iface    map[string]hostFunc
)

// Config is what one call gives the guest through WASI.
type Config struct {
	// Root is preopened as "."; nil gives the guest no preopen unless
	// OpenRoot is set. Every path is resolved inside it by os.Root.
	Root *os.Root
	// OpenRoot, when Root is nil, opens the preopen the first time the
	// guest asks for its preopens; the Host closes it (Close). A guest
	// that never touches the file system costs no open. Its error traps
	// the call and is kept (RootErr): it is the host's failure, not the
	// guest's.
	OpenRoot func() (*os.Root, error)
	// Env is the guest's whole environment, "K=V" entries.
	Env []string
	// Args is the guest's argv (wasi:cli/environment.get-arguments).
	Args []string
	// Stdin is what the guest reads on standard input.
	Stdin []byte
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// Network is the guest's effective network allow list: wasi:http
	// requests are matched against it as murmur matches them. Nil or
	// empty denies every request with HTTP-request-denied.
	Network []capsule.AllowRule
	// HTTP performs the allowed requests; nil means NewHTTPClient() for
	// this call alone.
	HTTP *http.Client
	// MaxHTTPBodyBytes caps each outgoing request body and each incoming
	// response body; 0 means 16 MiB.
	MaxHTTPBodyBytes int64
	// OnHTTPDenied, when set, is told of each request the allow list
	// denied, on the guest's goroutine.
	OnHTTPDenied func(capsule.Target)
}

// Host is one call's WASI state: the canonical ABI frame, the call's
// configuration, what the guest wrote to stdout and stderr, and its
// outgoing HTTP. It is used on the guest's goroutine only.
type Host struct {
	abi.Frame
	env            Config
	Stdout, Stderr *Capped
	start          time.Time
	net            netState
	// opened is the preopen OpenRoot gave, closed with the Host; rootErr
	// its error.
	opened  *os.Root
	rootErr error
	// onWait, when set, is called before the guest blocks in
	// wasi:io/poll (OnWait).
	onWait func()
}

// OnWait sets fn to be called, on the guest's goroutine, each time the
// guest is about to block in wasi:io/poll (pollable.block, poll): the
// guest is suspended there and its memory holds what it did before its
// first wait (a driver: its request built and sent).
func (s *Host) OnWait(fn func()) { s.onWait = fn }

// waiting runs the OnWait function, if any.
func (s *Host) waiting() {
	if s.onWait != nil {
		s.onWait()
	}
}

// preopen returns the guest's "." (nil for none), opening it through
// OpenRoot the first time; a failure to open traps.
func (s *Host) preopen() *os.Root {
	if s.env.Root != nil || s.env.OpenRoot == nil {
		return s.env.Root
	}
	if s.opened == nil && s.rootErr == nil {
		s.opened, s.rootErr = s.env.OpenRoot()
	}
	if s.rootErr != nil {
		abi.Trapf("the host could not open the guest's preopen: %v", s.rootErr)
	}
	return s.opened
}

// RootErr is the error OpenRoot returned during the call, nil if none.
func (s *Host) RootErr() error { return s.rootErr }

// Init makes s a fresh Host for cfg keeping up to maxOutput bytes of each
// of stdout and stderr (a Host is embedded in its caller's call state, so
// that a call allocates one state).
func (s *Host) Init(cfg Config, maxOutput int) {
	*s = Host{env: cfg, Stdout: &Capped{max: maxOutput}, Stderr: &Capped{max: maxOutput}, start: time.Now()}
}

// Close releases the call's outgoing HTTP (idle connections of a client
// made for this call alone) and a preopen OpenRoot opened.
func (s *Host) Close() {
	s.net.Close()
	if s.opened != nil {
		_ = s.opened.Close()
		s.opened = nil
	}
}

// ResetOutput starts stdout and stderr afresh, with the same caps (a
// hook instance's next event).
func (s *Host) ResetOutput() {
	s.Stdout, s.Stderr = &Capped{max: s.Stdout.max}, &Capped{max: s.Stderr.max}
}

// Capped keeps the first max bytes written and drops the rest.
type Capped struct {
	max       int
	buf       []byte
	truncated bool
}

func (c *Capped) Write(p []byte) (int, error) {
	room := c.max - len(c.buf)
	if room < len(p) {
		c.truncated = true
		c.buf = append(c.buf, p[:max(room, 0)]...)
		return len(p), nil
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// Bytes is what was kept.
func (c *Capped) Bytes() []byte { return c.buf }

// Truncated reports whether anything was dropped.
func (c *Capped) Truncated() bool { return c.truncated }

// Interfaces returns every WASI interface this layer implements, keyed by
// the interface name without its version, so that all 0.2.x share one
// implementation and one handle table. It is built per call, not kept in
// a global.
func Interfaces() map[string]abi.Iface[*Host] {
	all := map[string]iface{}
	for _, add := range []func(map[string]iface){addCLI, addIO, addClocks, addFS, addHTTP} {
		add(all)
	}
	out := make(map[string]abi.Iface[*Host], len(all))
	for name, fns := range all {
		out[name] = make(abi.Iface[*Host], len(fns))
		for fn, hf := range fns {
			out[name][fn] = abi.Func[*Host](hf)
		}
	}
	return out
}

// Provides reports whether base (an interface name without its version)
// is a WASI 0.2 interface this layer provides. Sockets are not among them.
func Provides(base string) bool {
	switch base {
	case "wasi:cli/environment", "wasi:cli/exit", "wasi:cli/stdin", "wasi:cli/stdout",
		"wasi:cli/stderr", "wasi:cli/terminal-input", "wasi:cli/terminal-output",
		"wasi:cli/terminal-stdin", "wasi:cli/terminal-stdout", "wasi:cli/terminal-stderr",
		"wasi:io/error", "wasi:io/poll", "wasi:io/streams",
		"wasi:clocks/wall-clock", "wasi:clocks/monotonic-clock",
		"wasi:random/random", "wasi:random/insecure", "wasi:random/insecure-seed",
		"wasi:filesystem/types", "wasi:filesystem/preopens",
		"wasi:http/types", "wasi:http/outgoing-handler":
		return true
	}
	return false
}

// exitCode is panicked by wasi:cli/exit.exit.
type exitCode struct{ code uint32 }

func (e *exitCode) Error() string {
	return fmt.Sprintf("guest called wasi:cli/exit.exit with status %d", e.code)
}
