// Package fakeclaudetest builds internal/fakeclaude, the fake `claude` CLI
// the process-transport tests run, once per test binary.
package fakeclaudetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build compiles the fake CLI as "claude" in a new temporary folder and
// returns its path and a function that removes the folder.
func Build() (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "fakeclaude-")
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, "claude")
	out, err := exec.Command("go", "build", "-o", path, "github.com/murmur-nexus/murmur-eval/internal/fakeclaude").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build fakeclaude: %w\n%s", err, out)
	}
	return path, func() { os.RemoveAll(dir) }, nil
}
