package launch

import (
	"os"
	"testing"

	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// TestMain lets the test binary be the subprocess launcher, as murmur-eval
// is.
func TestMain(m *testing.M) {
	if handled, code := sandbox.LauncherMain(os.Args); handled {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
