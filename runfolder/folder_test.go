package runfolder

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestCreateAndResume: a new folder is created empty but for sessions/ and
// locked; a folder with content is refused; a resumed folder is locked
// again (refused while the run holds it), keeps its run's id and loses
// its temporary files.
func TestCreateAndResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	f, err := Create(dir, "run_1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions")); err != nil {
		t.Errorf("no sessions folder: %v", err)
	}
	if _, err := Create(dir, "run_2"); errcode.Code(err) != errcode.Usage {
		t.Errorf("a second run in the folder: code %q, want %s", errcode.Code(err), errcode.Usage)
	}
	if err := journal.WriteRun(dir, journal.Run{RunID: "run_1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Resume(dir); err == nil {
		t.Error("resumed a folder whose run holds its lock")
	}
	f.Unlock()
	tmp := filepath.Join(dir, ".results.parquet.tmp-123")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Resume(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Unlock()
	if r.RunID != "run_1" || r.Prev == nil || r.Prev.RunID != "run_1" {
		t.Errorf("resumed %+v, want run_1 with its run.json", r)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
	Clear(dir)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Clear left %d entries", len(entries))
	}
}

// TestPruneUnjournaled: the session folders of journaled attempts stay,
// the others go.
func TestPruneUnjournaled(t *testing.T) {
	dir := t.TempDir()
	kept, lost := trace.NewID("ses_"), trace.NewID("ses_")
	for _, s := range []string{kept, lost} {
		if err := os.MkdirAll(filepath.Join(dir, "sessions", s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	PruneUnjournaled(dir, []journal.Record{{Attempts: []journal.Attempt{{Result: reports.ResultRow{SessionDir: "sessions/" + kept}}}}})
	entries, _ := os.ReadDir(filepath.Join(dir, "sessions"))
	if len(entries) != 1 || entries[0].Name() != kept {
		t.Errorf("left %v, want only %s", entries, kept)
	}
}

// TestPartsAndResume: the fingerprint's parts change with every input
// that decides results, optional parts appear only when set, and a resume
// is refused naming what changed, except a lock written since the run
// started.
func TestPartsAndResume(t *testing.T) {
	capsuleDir := t.TempDir()
	write := func(p, body string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(capsuleDir, "murmur.yaml"), "name: calc\n")
	ds := filepath.Join(t.TempDir(), "cases.jsonl")
	write(ds, `{"case_id":"a","task":"t"}`+"\n")
	cfg := Config{CapsuleDir: capsuleDir, Dataset: ds, Epochs: 1, Timeout: time.Minute, Inputs: "abc", Optional: map[string]string{}}
	parts := func(c Config) map[string]string {
		t.Helper()
		p, err := Parts(c)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := parts(cfg)
	if _, ok := base["driver"]; ok || base["lock"] != journal.Absent || base[InputsPart] != "abc" || base[ShardPart] != "" {
		t.Errorf("parts %v", base)
	}
	changes := map[string]func(c *Config){
		"selection": func(c *Config) { c.Filter = "a*" },
		"shard":     func(c *Config) { c.Shard = datasets.Shard{Index: 1, Count: 2} },
		"epochs":    func(c *Config) { c.Epochs = 2 },
		"flags":     func(c *Config) { c.Retries = 1 },
		"driver":    func(c *Config) { c.Optional = map[string]string{"driver": "builtin"} },
		"inputs":    func(c *Config) { c.Inputs = "def" },
	}
	for want, change := range changes {
		c := cfg
		change(&c)
		if got := journal.Changed(base, parts(c)); !slices.Equal(got, []string{want}) {
			t.Errorf("changing %s changed %v", want, got)
		}
	}

	run := t.TempDir()
	prev := journal.Run{RunID: "run_1", ConfigSHA256: journal.Fingerprint(base), Config: base}
	if err := journal.WriteRun(run, prev); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(capsuleDir, "murmur.lock")
	if got, err := CheckResume(run, prev, base, lock); err != nil || got.ConfigSHA256 != prev.ConfigSHA256 {
		t.Errorf("unchanged: %v, %v", got, err)
	}
	c := cfg
	c.Epochs = 3
	if _, err := CheckResume(run, prev, parts(c), lock); errcode.Code(err) != errcode.Usage {
		t.Errorf("epochs changed: code %q, want %s", errcode.Code(err), errcode.Usage)
	}
	write(lock, "lock\n") // the run's staging wrote it
	withLock := parts(cfg)
	got, err := CheckResume(run, prev, withLock, lock)
	if err != nil || got.Config["lock"] != withLock["lock"] || got.ConfigSHA256 != journal.Fingerprint(withLock) {
		t.Errorf("lock written since: %v, %v; want it adopted", got, err)
	}
}

// TestPlanJobs: the jobs are epoch by epoch, without those done, and
// counted; CaseInput reads a job's line again.
func TestPlanJobs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cases.jsonl")
	if err := os.WriteFile(p, []byte(`{"case_id":"a","task":"t"}`+"\n"+`{"case_id":"b","task":"t"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	sel := datasets.Selection{}.Apply(ds)
	n, jobs := PlanJobs(ds, sel, 2, []string{""}, map[journal.Key]bool{{CaseID: "b", Epoch: 1}: true})
	var got []string
	for j := range jobs {
		got = append(got, j.ID+"/"+string(rune('0'+j.Epoch)))
		c, ok := CaseInput(ds, j).(datasets.Case)
		if !ok || c.ID != j.ID {
			t.Errorf("job %s: input %v", j.ID, CaseInput(ds, j))
		}
	}
	if want := []string{"a/1", "a/2", "b/2"}; n != 3 || !slices.Equal(got, want) {
		t.Errorf("%d jobs %v, want 3 %v", n, got, want)
	}
	// With variants: a case's variants one after the other, the done
	// (case, epoch, variant) left out.
	n, jobs = PlanJobs(ds, sel, 1, []string{"x", "y"}, map[journal.Key]bool{{CaseID: "a", Epoch: 1, Variant: "y"}: true})
	got = nil
	for j := range jobs {
		got = append(got, j.ID+"/"+j.Variant)
	}
	if want := []string{"a/x", "b/x", "b/y"}; n != 3 || !slices.Equal(got, want) {
		t.Errorf("with variants: %d jobs %v, want 3 %v", n, got, want)
	}
	b := Bounds(ds, sel, 2, 1)
	if !b.HasCase("a") || b.HasCase("z") || b.Epochs != 2 || b.Attempts != 2 {
		t.Errorf("bounds %+v", b)
	}
}
