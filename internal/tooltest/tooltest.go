// Package tooltest lets a test require a program of the host (wat2wasm,
// xmllint, chromium, node, python3): when it is missing the test fails and
// says how to install it, so that a local run is not green with less
// coverage than CI's. A run that means to go without sets
// MURMUR_EVAL_TEST_SKIP_MISSING=1 (make check does): the test is then
// skipped, with the same words. scripts/test-deps.sh installs every such
// program (make test and .ci/run run it first).
package tooltest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// SkipMissingEnv is the environment variable that turns a missing
// program's failure into a skip, when it is 1 (or true).
const SkipMissingEnv = "MURMUR_EVAL_TEST_SKIP_MISSING"

// Python is the interpreter the sandbox tests run: Debian's, not a user's
// (a pyenv shim is a shell script reading $HOME).
const Python = "/usr/bin/python3"

// installs says how to install each program the tests use, on Debian.
func installs() map[string]string {
	return map[string]string{
		"wat2wasm": "apt-get install wabt",
		"xmllint":  "apt-get install libxml2-utils",
		"jq":       "apt-get install jq",
		"git":      "apt-get install git",
		"chromium": "apt-get install chromium fonts-liberation",
		"node":     "apt-get install nodejs npm",
		"npm":      "apt-get install nodejs npm",
		Python:     "apt-get install python3",
	}
}

// Require returns the path of the program name (looked up on PATH, or
// name itself when it is a path), failing t, or skipping it under
// MURMUR_EVAL_TEST_SKIP_MISSING=1, when it is missing.
func Require(t testing.TB, name string) string {
	t.Helper()
	return require(t, name, exec.LookPath, skipMissing())
}

// Find is Require for a check in the middle of a longer test: when the
// run opted out, the missing program is logged and Find returns false, so
// that the test goes on without that check, rather than skipped whole.
func Find(t testing.TB, name string) (string, bool) {
	t.Helper()
	if skipMissing() {
		path, err := exec.LookPath(name)
		if err != nil {
			t.Logf("%s is missing (%s): its check is left out, as %s=1 asks", name, installs()[name], SkipMissingEnv)
			return "", false
		}
		return path, true
	}
	path := Require(t, name)
	return path, path != ""
}

// RequirePython returns Python, which must import each of modules,
// failing or skipping t as Require does when it is missing or cannot.
func RequirePython(t testing.TB, modules ...string) string {
	t.Helper()
	if require(t, Python, exec.LookPath, skipMissing()) == "" {
		return ""
	}
	if len(modules) == 0 {
		return Python
	}
	if out, err := exec.Command(Python, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput(); err != nil {
		Missing(t, Python+" with "+strings.Join(modules, ", ")+" ("+strings.TrimSpace(string(out))+")", installs()[Python])
		return ""
	}
	return Python
}

// Missing fails t because what is missing, saying how to install it
// (install), or skips t under MURMUR_EVAL_TEST_SKIP_MISSING=1.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	missing(t, what, install, skipMissing())
}

func require(t testing.TB, name string, lookPath func(string) (string, error), skip bool) string {
	t.Helper()
	path, err := lookPath(name)
	if err == nil {
		return path
	}
	install, ok := installs()[name]
	if !ok {
		install = "install " + name
	}
	missing(t, name, install, skip)
	return ""
}

func missing(t testing.TB, what, install string, skip bool) {
	t.Helper()
	if skip {
		t.Skipf("%s is missing (%s): skipped, as %s=1 asks", what, install, SkipMissingEnv)
		return
	}
	t.Fatalf("%s is missing: %s, or run scripts/test-deps.sh, which installs every program the tests need (or set %s=1 to skip the tests that need one)", what, install, SkipMissingEnv)
}

func skipMissing() bool {
	v := os.Getenv(SkipMissingEnv)
	return v == "1" || strings.EqualFold(v, "true")
}
