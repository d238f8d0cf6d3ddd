package trend

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/journal"
)

// TestInputChanges: a run whose dataset or capsule (run.json's parts, or
// the capsule's name and version) differs from the run before it is
// named, with what differs; a part either run lacks, or a lock absent
// from one (written by the first run's staging), is no change.
func TestInputChanges(t *testing.T) {
	base := map[string]string{"dataset": "d1", "inputs": "i1", "manifest": "m1", "lock": "l1", "artifacts": "a1",
		"selection": "s1", "epochs": "1", "recordings": "r1"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	tests := []struct {
		name             string
		prev, cur        map[string]string
		version          string // the second run's capsule version; "1" as the first's
		dataset, capsule []string
	}{
		{"same inputs", base, with(), "1", nil, nil},
		{"selection, epochs and recordings are not inputs", base, with("selection", "s2", "epochs", "3", "recordings", "r2"), "1", nil, nil},
		{"dataset lines", base, with("dataset", "d2"), "1", []string{"the dataset file's lines"}, nil},
		{"task files", base, with("inputs", "i2"), "1", []string{"the task files or workspaces its lines name"}, nil},
		{"manifest and artifacts", base, with("manifest", "m2", "artifacts", "a2"), "1", nil, []string{"murmur.yaml", "the artifacts in its stores"}},
		{"lock written by the first run", with("lock", journal.Absent), base, "1", nil, nil},
		{"lock changed", base, with("lock", "l2"), "1", nil, []string{"murmur.lock"}},
		{"no run.json", nil, with("dataset", "d2"), "1", nil, nil},
		{"capsule version", base, with(), "2", nil, []string{"its name and version (c 1, then c 2)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev, cur := fakeRun(1, []string{"P"}), fakeRun(2, []string{"P"})
			prev.config, cur.config = tt.prev, tt.cur
			cur.Digest.Capsule.Version = tt.version
			changes := inputChanges([]*Run{prev, cur})
			if tt.dataset == nil && tt.capsule == nil {
				if len(changes) != 0 {
					t.Errorf("changes %+v, want none", changes)
				}
				return
			}
			if len(changes) != 1 || changes[0].Run != cur || changes[0].Prev != prev {
				t.Fatalf("changes %+v, want one, of run 2 against run 1", changes)
			}
			c := changes[0]
			if diff := cmp.Diff(tt.dataset, c.Dataset); diff != "" {
				t.Errorf("dataset (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.capsule, c.Capsule); diff != "" {
				t.Errorf("capsule (-want +got):\n%s", diff)
			}
			kind := "dataset"
			if tt.dataset == nil {
				kind = "capsule"
			}
			if !strings.HasPrefix(c.Text(), "run #2 (run_02, 2026-11-22 02:00 UTC) is of another "+kind+" than run #1 (run_01, ") {
				t.Errorf("text %q", c.Text())
			}
		})
	}
	// Build puts them first among the findings.
	prev, cur := fakeRun(1, []string{"P"}), fakeRun(2, []string{"P"})
	prev.config, cur.config = base, with("dataset", "d2")
	r := Build([]*Run{prev, cur}, DefaultOptions())
	if len(r.Findings) == 0 || r.Findings[0].Kind != KindInputs || len(r.InputChanges) != 1 {
		t.Errorf("findings %v, want the inputs first", kinds(r.Findings))
	}
}
