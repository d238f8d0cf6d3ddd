package errcode

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

// TestWrapKeep: a wrapper keeps the code of the failure beneath it, takes
// the fallback only for an uncoded one, and says what failed either way.
func TestWrapKeep(t *testing.T) {
	coded := New(SessionFile, "name refused")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"coded", coded, SessionFile},
		{"coded, wrapped by fmt", fmt.Errorf("open: %w", coded), SessionFile},
		{"uncoded", errors.New("disk full"), IO},
		// Several failures of one step (errors.Join), as Report and the
		// session's close gather them: a coded one keeps its code
		// wherever it stands.
		{"joined, uncoded then coded", errors.Join(os.ErrClosed, coded), SessionFile},
		{"joined, uncoded", errors.Join(os.ErrClosed), IO},
	} {
		err := WrapKeep(IO, tc.err, "write %s", "x")
		if got := Code(err); got != tc.want {
			t.Errorf("%s: code %q, want %q", tc.name, got, tc.want)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: %v does not wrap %v", tc.name, err, tc.err)
		}
		for _, e := range []error{coded, os.ErrClosed} {
			if errors.Is(tc.err, e) && !errors.Is(err, e) {
				t.Errorf("%s: %v does not wrap %v", tc.name, err, e)
			}
		}
		if want := "write x: " + tc.err.Error(); err.Error() != want {
			t.Errorf("%s: %q, want %q", tc.name, err.Error(), want)
		}
	}
}
