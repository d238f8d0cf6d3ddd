package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBaselineGateSaysWhatItCanDetect (issue 39, finding 3): with 5
// paired cases, a drop from 3 of 5 passing to none gives McNemar p = 0.25
// and no regression; no drop at all could reach p < 0.05 with 5 cases.
// The run still passes by default, but says so where a CI reader looks:
// a warning on stderr (E-EVL-006), the gates block, summary.json's gate
// (detection.can_fire false, no min_detectable_drop_pp), summary.md, and
// diff. --require-detectable makes it a failed gate (exit 4).
func TestBaselineGateSaysWhatItCanDetect(t *testing.T) {
	t.Parallel()
	qs := quickstart(t)
	ids := []string{"g1", "g2", "g3", "g4", "g5"}
	base, r := engineeredRun(t, qs, "small-base", ids, []bool{true, true, true, false, false})
	if r.code != exitOK {
		t.Fatalf("base run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	head, r := engineeredRun(t, qs, "small-head", ids, make([]bool, 5), "--baseline", base, "--max-drop", "5")
	if r.code != exitOK {
		t.Fatalf("head run: exit %d, want 0 (a warning, not a failure, by default)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	const cannot = "baseline gate cannot fire: with 5 paired cases"
	if !strings.Contains(r.stderr, "warning[E-EVL-006]: the "+cannot) {
		t.Errorf("stderr lacks the E-EVL-006 warning:\n%s", r.stderr)
	}
	gatesBlock := r.stdout[strings.LastIndex(r.stdout, "\ngates:\n")+1:]
	if !strings.Contains(gatesBlock, cannot) || !strings.Contains(gatesBlock, "--max-drop 5 is not enforceable") {
		t.Errorf("the terminal's gates block does not say the gate cannot fire:\n%s", r.stdout)
	}
	gate := summaryGate(t, head, "baseline")
	det, _ := gate["detection"].(map[string]any)
	if det == nil || det["can_fire"] != false || det["paired"] != 5.0 || det["enforceable"] != false || det["min_detectable_drop_pp"] != nil {
		t.Errorf("summary.json's baseline gate: %v; want detection {paired 5, can_fire false, enforceable false, min_detectable_drop_pp null}", gate)
	}
	if md := readFile(t, filepath.Join(head, "summary.md")); !strings.Contains(md, cannot) {
		t.Errorf("summary.md does not say the gate cannot fire:\n%s", md)
	}
	d := runBinary(t, "diff", base, head, "--max-drop", "5")
	if d.code != exitOK || !strings.Contains(d.stdout, cannot) {
		t.Errorf("diff: exit %d, want 0 and the line\nstdout:\n%s", d.code, d.stdout)
	}

	strictDir := filepath.Join(filepath.Dir(qs), "runs", "small-strict")
	s := runBinary(t, qs, "--dataset", filepath.Join(filepath.Dir(qs), "engineered-small-head", "cases.jsonl"),
		"--replay", filepath.Join(filepath.Dir(qs), "engineered-small-head", "recordings"), "--out", strictDir,
		"--baseline", base, "--require-detectable")
	if s.code != exitGateFailed || !hasCode(s.stderr, "E-EVL-006") {
		t.Errorf("--require-detectable: exit %d, want %d and error[E-EVL-006]\nstderr:\n%s", s.code, exitGateFailed, s.stderr)
	}
	if d := runBinary(t, "diff", base, head, "--require-detectable"); d.code != exitGateFailed || !hasCode(d.stderr, "E-EVL-006") {
		t.Errorf("diff --require-detectable: exit %d, want %d and error[E-EVL-006]\nstderr:\n%s", d.code, exitGateFailed, d.stderr)
	}
}

// summaryGate is the gate named name in the run folder's summary.json, as
// generic JSON.
func summaryGate(t *testing.T, out, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Gates []map[string]any `json:"gates"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	for _, g := range s.Gates {
		if g["gate"] == name {
			return g
		}
	}
	t.Fatalf("summary.json has no gate %q: %s", name, data)
	return nil
}
