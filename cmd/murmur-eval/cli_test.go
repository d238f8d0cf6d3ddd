package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// twiceDefault matches a default printed twice, as pflag appends one to a
// usage string that already ends with it.
var twiceDefault = regexp.MustCompile(`\(default [^)]*\) \(default [^)]*\)`)

// TestCLIPaperCuts: the top-level usage lists every subcommand; help,
// help SUBCOMMAND, version and --version work; an unknown subcommand is
// refused with a suggestion; defaults are printed once; and every --help
// exits 0.
func TestCLIPaperCuts(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	help, _ := runE2E(t, []string{"help"}, plainArgs())
	if help.code != 0 {
		t.Fatalf("help: exit %d\n%s", help.code, help.stderr)
	}
	for _, c := range subcommands() {
		if !strings.Contains(help.stderr, "murmur-eval "+c) && c != "run" {
			t.Errorf("the top-level usage does not list %q:\n%s", c, help.stderr)
		}
	}
	if twiceDefault.MatchString(help.stderr) {
		t.Errorf("a default is printed twice:\n%s", help.stderr)
	}
	for _, c := range []string{"show", "diff", "merge", "report", "pack", "run"} {
		for _, args := range [][]string{{"help", c}, {c, "--help"}} {
			r, _ := runE2E(t, args, plainArgs())
			if r.code != 0 || !strings.Contains(r.stderr, "Usage: murmur-eval") || twiceDefault.MatchString(r.stderr) {
				t.Errorf("%s: exit %d, want 0 with a usage printing each default once:\n%s", strings.Join(args, " "), r.code, r.stderr)
			}
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if r, _ := runE2E(t, args, plainArgs()); r.code != 0 || !strings.HasPrefix(r.stdout, "murmur-eval ") {
			t.Errorf("%s: exit %d, stdout %q", args[0], r.code, r.stdout)
		}
	}
	r, _ := runE2E(t, []string{"raport", "runs/a"}, plainArgs())
	if r.code != exitUsage || !hasCode(r.stderr, errcode.Usage) || !strings.Contains(r.stderr, `did you mean "report"?`) {
		t.Errorf("raport: exit %d, want %d suggesting report:\n%s", r.code, exitUsage, r.stderr)
	}
	if r, _ := runE2E(t, []string{"help", "raport"}, plainArgs()); r.code != exitUsage || !strings.Contains(r.stderr, `did you mean "report"?`) {
		t.Errorf("help raport: exit %d, want %d suggesting report:\n%s", r.code, exitUsage, r.stderr)
	}
}

// TestCLIVersionRecorded: run.json and summary.json record the version of
// the murmur-eval that wrote them; the headline's plurals are right.
func TestCLIVersionRecorded(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	out, r := newFixture(t, qs).run("--filter", "direct-answer", "--workers", "1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	v, _ := runE2E(t, []string{"version"}, plainArgs())
	ver := strings.TrimPrefix(strings.TrimSpace(v.stdout), "murmur-eval ")
	if d := readDigest(t, out); d.Version != ver || ver == "" {
		t.Errorf("summary.json version %q, want %q", d.Version, ver)
	}
	runJSON, _ := os.ReadFile(filepath.Join(out, "run.json"))
	if !strings.Contains(string(runJSON), `"version": "`+ver+`"`) && !strings.Contains(string(runJSON), `"version":"`+ver+`"`) {
		t.Errorf("run.json does not record version %q:\n%s", ver, runJSON)
	}
	if !strings.Contains(r.stderr, ": 1 case from ") || !strings.Contains(r.stderr, " on 1 worker -> ") || !strings.HasPrefix(r.stdout, "1 case in ") {
		t.Errorf("plurals: stderr %q, stdout %q", r.stderr, r.stdout)
	}
}
