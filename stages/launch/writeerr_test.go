package launch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// TestWriteErrKeepsTheSessionFileCode: MURMUR.md and the manifests an
// on-stage hook rewrites are written through sessionfs; its refusal
// (E-EVL-040 for a name refused) and a folder gone (E-IO-001) keep their
// codes under writeErr, where they were re-coded E-IO-003 before (issue
// 34); an uncoded failure is E-IO-003.
func TestWriteErrKeepsTheSessionFileCode(t *testing.T) {
	dir := t.TempDir()
	_, refused := sessionfs.CheckName("../MURMUR.md")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"refused", refused, errcode.SessionFile},
		{"folder gone", sessionfs.WriteFile(filepath.Join(dir, "gone"), "MURMUR.md", []byte("x"), 0o644), errcode.IONotFound},
		{"uncoded", os.ErrClosed, errcode.IO},
	} {
		if tc.err == nil {
			t.Fatalf("%s: the write succeeded", tc.name)
		}
		err := writeErr(tc.err, "MURMUR.md")
		if got := errcode.Code(err); got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("%s: writeErr = %v (code %q), want %s wrapping the cause", tc.name, err, got, tc.want)
		}
	}
}
