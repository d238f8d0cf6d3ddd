package component

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// FuzzDecode feeds hostile bytes to the component reader and validator:
// they must return an error or a Binary, never panic or hang.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(preamble))
	f.Add(append([]byte(preamble), 7, 5, 1, 0x72, 1, 0, 0x73))
	f.Add(append([]byte(preamble), 1, 0xff, 0xff, 0xff, 0xff, 0x0f))
	f.Add(append([]byte(preamble), 2, 3, 0xff, 0xff, 0xff))
	// The committed fixtures let the fuzzer start from real components.
	for _, n := range []string{"tool", "capsule", "p1tool", "hook"} {
		f.Add(fixture(f, n))
	}
	f.Fuzz(func(t *testing.T, bin []byte) {
		b, err := Decode(bin)
		if err != nil {
			return
		}
		_, _ = validate(b, WorldTool)
		_, _ = validate(b, WorldCapsule)
		_, _ = validate(b, WorldHook)
	})
}

type fakeMem []byte

func (m fakeMem) Read(off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(m)) {
		return nil, false
	}
	return m[off : off+n], true
}
func (m fakeMem) Size() uint32 { return uint32(len(m)) }

// FuzzLiftResult lifts tool-results from arbitrary guest memory: errors,
// never panics.
func FuzzLiftResult(f *testing.F) {
	f.Add(make([]byte, 128), uint32(0))
	f.Add(append([]byte{1, 0, 0, 0, 1, 0, 0, 0, 60, 0, 0, 0, 4}, make([]byte, 100)...), uint32(0))
	f.Fuzz(func(t *testing.T, mem []byte, ptr uint32) {
		_, _ = liftResult(fakeMem(mem), ptr)
	})
}

// FuzzLiftHookResult lifts result<hook-output, string> from arbitrary
// guest memory: errors, never panics.
func FuzzLiftHookResult(f *testing.F) {
	f.Add(make([]byte, 64), uint32(0))
	f.Add(append([]byte{0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0}, make([]byte, 48)...), uint32(0))
	f.Add(append([]byte{0, 0, 0, 0, 4, 0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0, 'o', 'k'}, make([]byte, 8)...), uint32(0))
	f.Fuzz(func(t *testing.T, mem []byte, ptr uint32) {
		_, _, _ = liftHookResult(fakeMem(mem), ptr)
	})
}

// FuzzRequestURL: whatever scheme, authority and path a guest sets, a
// request the allow list judged goes to the host and port it judged (no
// userinfo, fragment or path trick leads Go's client elsewhere).
func FuzzRequestURL(f *testing.F) {
	for _, s := range [][3]string{
		{"http", "api.example.com", "/v1?x=1"}, {"", "API.example.com:8443", ""}, {"https", "a.com@b.com", "/"},
		{"http", "[::1]:80", "?q"}, {"http", "a.com", "//b.com/x"}, {"ftp", "a.com:0", "/"}, {"http", "a.com:", "/"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, scheme, authority, path string) {
		sch, target, tg, e := requestURL(scheme, authority, path)
		if e != nil || (sch != "http" && sch != "https") { // other schemes are never sent
			return
		}
		u, err := url.Parse(target)
		if err != nil {
			return // Go's client refuses it too: nothing is sent
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		if n, err := strconv.Atoi(port); strings.ToLower(u.Hostname()) != tg.Host || err != nil || n != tg.Port || u.User != nil {
			t.Fatalf("%q judged as %+v but goes to host %q port %q", target, tg, u.Hostname(), port)
		}
	})
}
