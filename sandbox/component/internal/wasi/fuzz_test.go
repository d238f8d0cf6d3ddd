package wasi

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

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
