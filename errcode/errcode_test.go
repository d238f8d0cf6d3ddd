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

// TestFormat: one formatter prints a finding as an error or as a warning,
// with its code and hint; without a code only the level leads.
func TestFormat(t *testing.T) {
	coded := New(MurmurEndpointDenied, "endpoint denied").At("murmur.yaml:3:5").WithHint("add it")
	tests := []struct {
		name      string
		err       error
		asError   string
		asWarning string
	}{
		{"code and hint", coded, "error[E-EVL-081]: murmur.yaml:3:5: endpoint denied\n  hint: add it", "warning[E-EVL-081]: murmur.yaml:3:5: endpoint denied\n  hint: add it"},
		{"code, no hint", New(Usage, "bad flag"), "error[E-EVL-001]: bad flag", "warning[E-EVL-001]: bad flag"},
		{"no code", New("", "a note").WithHint("h"), "error: a note\n  hint: h", "warning: a note\n  hint: h"},
		{"plain error", errors.New("plain"), "error: plain", "warning: plain"},
		{"a wrapper's hint first", Wrap(Usage, coded, "outer").WithHint("outer hint"), "error[E-EVL-001]: outer: murmur.yaml:3:5: endpoint denied\n  hint: outer hint", "warning[E-EVL-001]: outer: murmur.yaml:3:5: endpoint denied\n  hint: outer hint"},
		{"the hint beneath a wrapper without one", Wrap(Usage, fmt.Errorf("mid: %w", coded), "outer"), "error[E-EVL-001]: outer: mid: murmur.yaml:3:5: endpoint denied\n  hint: add it", "warning[E-EVL-001]: outer: mid: murmur.yaml:3:5: endpoint denied\n  hint: add it"},
		{"wrapped", fmt.Errorf("outer: %w", coded), "error[E-EVL-081]: outer: murmur.yaml:3:5: endpoint denied\n  hint: add it", "warning[E-EVL-081]: outer: murmur.yaml:3:5: endpoint denied\n  hint: add it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Format(tt.err); got != tt.asError {
				t.Errorf("Format = %q, want %q", got, tt.asError)
			}
			if got := FormatWarning(tt.err); got != tt.asWarning {
				t.Errorf("FormatWarning = %q, want %q", got, tt.asWarning)
			}
		})
	}
}
