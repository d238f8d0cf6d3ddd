package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/collect"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// The e2e tests of issue 18: each way a run went green by accident now
// fails with its documented exit code (or warns, for unknown keys without
// --strict).

// divergentRecording rewrites a case's recording with a request digest no
// request has, as a recording of another conversation would.
func divergentRecording(t *testing.T, dir, caseID string) {
	t.Helper()
	path := recordingPath(filepath.Join(dir, "recordings"), caseID)
	var b strings.Builder
	for _, l := range readLines(t, path) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		b.WriteString(`{"request_sha256":"` + strings.Repeat("0", 64) + `",` + strings.TrimPrefix(strings.TrimSpace(l), "{") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGreenTypoInManifest is the first case: `artifact:` for
// `artifacts:` drops the capsule's tools and `max_turn:` its turn limit;
// the replayed answers still come. The run warns about both keys at
// file:line with a suggestion, names the tool the model called that the
// capsule does not provide, counts the replay divergence in summary.json,
// summary.md, junit.xml and show, and exits 5; --max-divergence -1 lets it
// pass; --strict refuses it before any case starts.
func TestGreenTypoInManifest(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	manifest := filepath.Join(qs, "murmur.yaml")
	editFile(t, manifest, "\nartifacts:\n", "\nartifact:\n")
	editFile(t, manifest, "  max_turns: 4\n", "  max_turn: 4\n")
	divergentRecording(t, qs, "calc-multiply")

	out, r := newFixture(t, qs).run("--filter", "calc-multiply")
	if r.code != exitDiverged || !hasCode(r.stderr, errcode.ReplayDiverged) {
		t.Fatalf("exit %d, want %d (replay diverged)\nstdout:\n%s\nstderr:\n%s", r.code, exitDiverged, r.stdout, r.stderr)
	}
	for _, want := range []string{
		`murmur.yaml:10:1: unknown key "artifact" (did you mean "artifacts"?)`,
		`murmur.yaml:24:3: unknown key "inference.max_turn" (did you mean "max_turns"?)`,
	} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("stderr does not warn once with %q:\n%s", want, r.stderr)
		}
	}
	if want := `tool not provided: the model called "calc" 1 time in 1 case`; !strings.Contains(r.stdout, want) {
		t.Errorf("the summary does not say %q:\n%s", want, r.stdout)
	}
	d := readDigest(t, out)
	if d.ReplayDivergences == 0 || d.DivergedCases != 1 || len(d.Diverged) != 1 || d.Diverged[0].CaseID != "calc-multiply" {
		t.Errorf("summary.json: %d divergences in %d cases %+v, want calc-multiply's", d.ReplayDivergences, d.DivergedCases, d.Diverged)
	}
	if !strings.Contains(r.stdout, "replay diverged:") || !strings.Contains(r.stdout, "max_divergence  FAILED") {
		t.Errorf("the summary does not show the divergence and its gate:\n%s", r.stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, collect.SummaryMDFile))
	junit, _ := os.ReadFile(filepath.Join(out, collect.JUnitFile))
	if !strings.Contains(string(md), "Replay diverged") || !strings.Contains(string(junit), "replay_divergences: ") ||
		!strings.Contains(string(junit), `<property name="replay_divergences" value="`) {
		t.Errorf("summary.md or junit.xml do not show the divergence:\n%s\n%s", md, junit)
	}
	show := runBinary(t, "show", out)
	if show.code != 0 || !strings.Contains(show.stdout, "replay diverged:") || !strings.Contains(show.stdout, "tool not provided: ") {
		t.Errorf("show: exit %d, want 0 with the divergence:\n%s%s", show.code, show.stdout, show.stderr)
	}

	page := filepath.Join(t.TempDir(), "report.html")
	if rep := runBinary(t, "report", out, "-o", page); rep.code != 0 {
		t.Errorf("report: exit %d\n%s", rep.code, rep.stderr)
	} else if html, _ := os.ReadFile(page); !strings.Contains(string(html), `data-kind="diverged"`) || !strings.Contains(string(html), "replay diverged: ") {
		t.Error("the HTML report has no finding for the divergence")
	}
	if _, r := newFixture(t, qs).run("--filter", "calc-multiply", "--max-divergence", "-1"); r.code != exitOK {
		t.Errorf("--max-divergence -1: exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	strict, r := newFixture(t, qs).run("--filter", "calc-multiply", "--strict")
	if r.code != exitUsage || !hasCode(r.stderr, errcode.StrictWarning) {
		t.Errorf("--strict: exit %d, want %d with %s\nstderr:\n%s", r.code, exitUsage, errcode.StrictWarning, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(strict, reports.ResultsFile)); err == nil {
		t.Error("--strict refused the run, but results.parquet was written")
	}
}

// TestGreenEmptySelection: a --filter that matches no case is a usage
// error (E-EVL-003), not a green run of nothing.
func TestGreenEmptySelection(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	_, r := newFixture(t, qs).run("--filter", "calc-multiplyy")
	if r.code != exitUsage || !hasCode(r.stderr, errcode.EmptySelection) || !strings.Contains(r.stderr, `--filter "calc-multiplyy" matched none of the 12 cases`) {
		t.Errorf("exit %d, want %d with %s naming the filter\nstderr:\n%s", r.code, exitUsage, errcode.EmptySelection, r.stderr)
	}
}

// TestGreenUnreadExpected: a misspelled key in expected turns the case's
// check off, so it refuses the run before any case (E-EVL-007, issue 39
// finding 4: it was a warning and exit 0), naming the case, its line and
// the key it meant; --run-anyway runs it with that warning, which --strict
// still refuses.
func TestGreenUnreadExpected(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	editFile(t, filepath.Join(qs, "cases.jsonl"), `"expected": {"result_equals": "The result is -3.75."}`, `"expected": {"result_equal": "The result is -3.75."}`)
	_, r := newFixture(t, qs).run("--filter", "calc.unary_minus")
	want := `cases.jsonl:3: case "calc.unary_minus": unknown key "result_equal" in expected (did you mean "result_equals"?)`
	if r.code != exitUsage || !hasCode(r.stderr, errcode.UnappliedScoring) || strings.Count(r.stderr, want) != 1 {
		t.Errorf("exit %d, want %d with %s %q\nstderr:\n%s", r.code, exitUsage, errcode.UnappliedScoring, want, r.stderr)
	}
	if _, r := newFixture(t, qs).run("--filter", "calc.unary_minus", "--run-anyway"); r.code != exitOK || strings.Count(r.stderr, want) != 1 {
		t.Errorf("--run-anyway: exit %d, want 0 with one warning %q\nstderr:\n%s", r.code, want, r.stderr)
	}
	if _, r := newFixture(t, qs).run("--filter", "calc.unary_minus", "--run-anyway", "--strict"); r.code != exitUsage || !hasCode(r.stderr, errcode.StrictWarning) {
		t.Errorf("--run-anyway --strict: exit %d, want %d with %s\nstderr:\n%s", r.code, exitUsage, errcode.StrictWarning, r.stderr)
	}
}

// TestGreenUnknownKeyInArtifactManifest: an unknown key of an artifact's
// own manifest is warned about at its place in the archive, with a
// suggestion; --strict refuses the run once the capsule is prepared,
// leaving the --out folder empty for the next try.
func TestGreenUnknownKeyInArtifactManifest(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	editFile(t, filepath.Join(qs, "tools", "notes", "murmur.yaml"), "runtime: tool\n", "runtime: tool\ntagz: [files]\n")
	installTool(t, qs, "notes", "./examples/quickstart/tools/notes")
	_, r := newFixture(t, qs).run("--filter", "direct-answer")
	want := `notes@0.1.0:murmur.yaml:4:1: unknown key "tagz" (did you mean "tags"?)`
	if r.code != exitOK || strings.Count(r.stderr, want) != 1 {
		t.Errorf("exit %d, want 0 with one warning %q\nstderr:\n%s", r.code, want, r.stderr)
	}
	out, r := newFixture(t, qs).run("--filter", "direct-answer", "--strict")
	if r.code != exitUsage || !hasCode(r.stderr, errcode.StrictWarning) {
		t.Fatalf("--strict: exit %d, want %d with %s\nstderr:\n%s", r.code, exitUsage, errcode.StrictWarning, r.stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--strict left %d entries in --out", len(entries))
	}
}
