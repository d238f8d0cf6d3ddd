package tooltest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Fatalf and Skipf instead of
// stopping the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
}
func (r *recorder) Skipf(format string, args ...any) {
	r.skip = fmt.Sprintf(format, args...)
}

// TestRequire: a missing program fails the test with its install command,
// or skips it when the run opted out; a present one is returned.
func TestRequire(t *testing.T) {
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	absent := func(string) (string, error) { return "", errors.New("not found") }
	for _, tc := range []struct {
		name, tool         string
		look               func(string) (string, error)
		skip               bool
		wantPath           string
		wantFatal, wantSkp string
	}{
		{"present", "wat2wasm", found, false, "/usr/bin/wat2wasm", "", ""},
		{"missing fails", "wat2wasm", absent, false, "", "wat2wasm is missing: apt-get install wabt, or run scripts/test-deps.sh", ""},
		{"missing chromium", "chromium", absent, false, "", "apt-get install chromium fonts-liberation", ""},
		{"missing python", Python, absent, false, "", "/usr/bin/python3 is missing: apt-get install python3", ""},
		{"unknown tool", "frobnicate", absent, false, "", "frobnicate is missing: install frobnicate", ""},
		{"opted out", "xmllint", absent, true, "", "", "xmllint is missing (apt-get install libxml2-utils): skipped, as MURMUR_EVAL_TEST_SKIP_MISSING=1 asks"},
	} {
		r := &recorder{TB: t}
		got := require(r, tc.tool, tc.look, tc.skip)
		if got != tc.wantPath {
			t.Errorf("%s: path %q, want %q", tc.name, got, tc.wantPath)
		}
		if (tc.wantFatal == "") != (r.fatal == "") || !strings.Contains(r.fatal, tc.wantFatal) {
			t.Errorf("%s: Fatalf %q, want one holding %q", tc.name, r.fatal, tc.wantFatal)
		}
		if (tc.wantSkp == "") != (r.skip == "") || !strings.Contains(r.skip, tc.wantSkp) {
			t.Errorf("%s: Skipf %q, want one holding %q", tc.name, r.skip, tc.wantSkp)
		}
	}
}
