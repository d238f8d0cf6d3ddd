package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// The refusals of issue 39 (findings 1, 4, 7), through the real binary:
// what murmur refuses, and a scorer or check that would not be applied,
// refuse the run before any case unless --run-anyway; a capsule refused
// while it is prepared prints its error last, with no summary of rows.

// assertNoRun checks that a refused run left no case behind: no session
// folder and no results.parquet in out.
func assertNoRun(t *testing.T, out string, r result) {
	t.Helper()
	for _, name := range []string{"sessions", "results.parquet", "summary.json"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("the refused run left %s in %s\nstderr:\n%s", name, out, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "capsule prepared") || strings.Contains(r.stdout, "slowest") {
		t.Errorf("the refused run went on:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// copyTree copies the capsule folder src, its store and tools included,
// into a new temporary folder.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "capsule")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ranDespite reads summary.json's ran_despite of the run in out.
func ranDespite(t *testing.T, out string) []string {
	t.Helper()
	var s struct {
		RanDespite []string `json:"ran_despite"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "summary.json"))), &s); err != nil {
		t.Fatal(err)
	}
	return s.RanDespite
}

// TestRefusalEndpointOutsideNetworkAllow: a capsule whose installed
// driver's endpoint network.allow does not cover (murmur's driver is
// denied every request) is refused before any case, exit 2, with murmur's
// text as an error and its hint, and no request sent; --run-anyway runs
// it with the refusal as a warning, recorded in summary.json, and no
// message doubles murmur's "driver: " prefix.
func TestRefusalEndpointOutsideNetworkAllow(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	var requests atomic.Int32
	srv := driverServer(t, &requests)
	defer srv.Close()
	dir := driverCapsule(t, srv.URL)
	editFile(t, filepath.Join(dir, "murmur.yaml"), "    allow: [\""+srv.URL+"\"]\n  limits:", "    allow: [\"https://other.example\"]\n  limits:")
	f := newFixture(t, dir).withData(filepath.Join(dir, "driver-cases.jsonl"), "").withFlags("--filter", "direct")

	out, r := f.run()
	if r.code != exitUsage || !hasCode(r.stderr, errcode.MurmurEndpointDenied) {
		t.Fatalf("exit %d, want %d with %s\nstderr:\n%s", r.code, exitUsage, errcode.MurmurEndpointDenied, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if n := len(lines); n < 2 || !strings.HasPrefix(lines[n-2], "error[E-EVL-081]: murmur.yaml: driver: failed to dispatch HTTP request: ErrorCode::HttpRequestDenied (") ||
		!strings.HasPrefix(lines[n-1], "  hint: add "+srv.URL+" to capabilities.network.allow") {
		t.Errorf("the refusal and its hint are not the last lines:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "murmur-eval: no case was started: the run is refused for the error below (--run-anyway") {
		t.Errorf("stderr does not say no case was started:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "warning: error[") {
		t.Errorf("a refusal printed as a warning and an error:\n%s", r.stderr)
	}
	assertNoRun(t, out, r)
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the endpoint of a refused run", n)
	}

	out, r = f.run("--run-anyway")
	if r.code == exitUsage {
		t.Fatalf("--run-anyway: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if want := "murmur-eval: warning[E-EVL-081]: murmur.yaml: driver: failed to dispatch HTTP request"; strings.Count(r.stderr, want) != 1 || strings.Contains(r.stderr, "\nerror[E-EVL-081]: murmur.yaml: ") {
		t.Errorf("--run-anyway: stderr does not hold once %q (and no error):\n%s", want, r.stderr)
	}
	if got := ranDespite(t, out); len(got) != 1 || got[0] != errcode.MurmurEndpointDenied {
		t.Errorf("summary.json ran_despite = %q, want [%s]", got, errcode.MurmurEndpointDenied)
	}
	rows := resultsByCase(t, out)
	if len(rows) != 1 {
		t.Fatalf("--run-anyway: %d rows, want 1", len(rows))
	}
	for _, text := range []string{r.stderr, r.stdout, readFile(t, filepath.Join(out, "summary.md")), rows["direct"]["error_message"].(string)} {
		if strings.Contains(text, "driver: driver:") {
			t.Errorf("a doubled \"driver: \" prefix:\n%s", text)
		}
	}
}

// TestRefusalScoringTypos: a misspelt observability key drops the
// manifest's scorers and a misspelt expected key turns a case's check off;
// each refuses the run before any case (E-EVL-007) with the did-you-mean,
// and --run-anyway runs it with a warning. A note that changes nothing
// scored (an unknown key elsewhere) still lets the run go on.
func TestRefusalScoringTypos(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	qs := quickstart(t)
	t.Parallel()
	tests := []struct {
		name string
		edit func(t *testing.T, dir string)
		want string // in the E-EVL-007 error
		code int    // exit code without --run-anyway
	}{
		{"observability misspelt", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "murmur.yaml"), "\nobservability:\n", "\nobservabilty:\n")
		}, `murmur.yaml:38:1: unknown key "observabilty" (did you mean "observability"?); murmur ignores it, so the observability.eval scorers it configures are not applied as written`, exitUsage},
		{"result_contain", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "cases.jsonl"), `"expected": {"result_contains": "17.5"}`, `"expected": {"result_contain": "17.5"}`)
		}, `cases.jsonl:2: case "calc-precedence": unknown key "result_contain" in expected (did you mean "result_contains"?)`, exitUsage},
		{"unknown scorer type", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "murmur.yaml"), "      - type: exit_ok\n", "      - type: exit_okay\n")
		}, "unknown scorer type 'exit_okay' — skipping: the scorer is not applied", exitUsage},
		{"a note", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "murmur.yaml"), "\nobservability:\n", "\ncolour: red\nobservability:\n")
		}, "", exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyTree(t, qs)
			tt.edit(t, dir)
			f := newFixture(t, dir).withFlags("--filter", "calc-precedence")
			out, r := f.run()
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", r.code, tt.code, r.stderr)
			}
			if tt.code == exitOK {
				if !strings.Contains(r.stderr, `murmur-eval: warning: `) || hasCode(r.stderr, errcode.UnappliedScoring) {
					t.Errorf("the note is not a plain warning:\n%s", r.stderr)
				}
				return
			}
			if !strings.Contains(r.stderr, "error[E-EVL-007]: ") || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr does not refuse with %q:\n%s", tt.want, r.stderr)
			}
			assertNoRun(t, out, r)
			out, r = f.run("--run-anyway")
			if r.code != exitOK || !strings.Contains(r.stderr, "murmur-eval: warning[E-EVL-007]: ") || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("--run-anyway: exit %d, want 0 with the warning\nstderr:\n%s", r.code, r.stderr)
			}
			if got := ranDespite(t, out); len(got) != 1 || got[0] != errcode.UnappliedScoring {
				t.Errorf("summary.json ran_despite = %q, want [%s]", got, errcode.UnappliedScoring)
			}
			if want := "ran despite E-EVL-007 (--run-anyway)"; !strings.Contains(r.stdout, want) || !strings.Contains(readFile(t, filepath.Join(out, "summary.md")), "Ran despite E-EVL-007") {
				t.Errorf("the summary and summary.md do not say %q:\n%s", want, r.stdout)
			}
		})
	}
}

// TestRefusedCapsuleErrorIsLast: a capsule refused while it
// is prepared (a folder that is not a capsule, a manifest that does not
// parse, an artifact not installed) starts no case: the error, with its
// code, place and hint, is the last thing printed, after one line saying
// no case was started; no summary, no rows, no run folder left; exit 2.
func TestRefusedCapsuleErrorIsLast(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	qs := quickstart(t)
	t.Parallel()
	tests := []struct {
		name string
		edit func(t *testing.T, dir string)
		code string
	}{
		{"not a capsule", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "murmur.yaml")); err != nil {
				t.Fatal(err)
			}
		}, errcode.IONotFound},
		{"bad manifest", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "murmur.yaml"), "max_turns: 4\n", "max_turns: [4\n")
		}, errcode.ManifestSyntax},
		{"artifact not installed", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, ".murmur")); err != nil {
				t.Fatal(err)
			}
		}, errcode.RegistryNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyTree(t, qs)
			tt.edit(t, dir)
			out, r := newFixture(t, dir).run()
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", r.code, exitUsage, r.stderr)
			}
			blocks := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			last := len(blocks) - 1
			if strings.HasPrefix(blocks[last], "  hint: ") {
				last--
			}
			if last < 1 || !strings.HasPrefix(blocks[last], "error["+tt.code+"]: ") ||
				blocks[last-1] != "murmur-eval: the capsule was refused while it was prepared; no case was started" {
				t.Errorf("the %s error is not the last thing printed, after the one line:\n%s", tt.code, r.stderr)
			}
			if strings.Count(r.stderr, "error["+tt.code+"]") != 1 {
				t.Errorf("the error is printed %d times, want once:\n%s", strings.Count(r.stderr, "error["+tt.code+"]"), r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("a refused run printed a summary:\n%s", r.stdout)
			}
			assertNoRun(t, out, r)
			if _, err := os.Stat(out); err == nil {
				if entries, _ := os.ReadDir(out); len(entries) > 0 {
					t.Errorf("the refused run left %d entries in %s", len(entries), out)
				}
			}
		})
	}
}
