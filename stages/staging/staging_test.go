package staging

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// newCase is a case whose resolve and verify are done: one registry
// artifact verified, one local skill declared.
func newCase(t *testing.T, project, id string) *pipeline.Case {
	t.Helper()
	if err := os.WriteFile(filepath.Join(project, "notes.md"), []byte("# Notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &capsule.Manifest{Dir: project, Artifacts: []capsule.ArtifactDecl{
		{Name: "guide", Version: "1.0.0", Runtime: capsule.RuntimeSkill},
		{Name: "notes", Version: "local", Runtime: capsule.RuntimeSkill, Source: "notes.md", LocalSource: true},
	}}
	pin := capsule.Pinned{Name: "guide", Version: "1.0.0", Runtime: capsule.RuntimeSkill}
	c := &pipeline.Case{
		ID:         id,
		Input:      datasets.Case{ID: id, Task: "task " + id},
		SessionDir: filepath.Join(t.TempDir(), "ses_"+id),
	}
	pipeline.Store(c, resolve.Result, &resolve.Capsule{Manifest: m, Pins: []capsule.Pinned{pin}})
	pipeline.Store(c, verify.Result, &verify.Toolset{Tools: map[string]*verify.Tool{},
		Artifacts: []verify.Artifact{{Pinned: pin, SHA256: "abc123"}}})
	return c
}

// artifacts are the case's verified artifacts, as Verify left them.
func artifacts(t *testing.T, c *pipeline.Case) []verify.Artifact {
	t.Helper()
	ts, err := pipeline.ResultOf(c, verify.Result)
	if err != nil {
		t.Fatal(err)
	}
	return ts.Artifacts
}

func TestStageWritesLockAfterFirstSuccess(t *testing.T) {
	project := t.TempDir()
	s := New()
	for _, id := range []string{"a", "b"} {
		c := newCase(t, project, id)
		if err := s.Run(context.Background(), c); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got, _ := os.ReadFile(filepath.Join(c.SessionDir, "tools", "notes", "skill.md")); string(got) != "# Notes" {
			t.Errorf("local skill = %q", got)
		}
		if got, _ := os.ReadFile(filepath.Join(c.SessionDir, "task.md")); string(got) != "task "+id {
			t.Errorf("task.md = %q", got)
		}
	}
	lock, err := capsule.ReadLock(capsule.LockPath(project))
	if err != nil || lock == nil || len(lock.Artifacts) != 1 || lock.Artifacts[0].SHA256 != "abc123" {
		t.Fatalf("lock = %+v, %v", lock, err)
	}
	if written, err := s.Lock(); !written || err != nil {
		t.Errorf("Lock() = %v, %v", written, err)
	}
}

// A failed lock write never fails the case, and the next case tries again.
func TestStageLockFailureIsRetried(t *testing.T) {
	project := t.TempDir()
	s := New()
	c := newCase(t, project, "a")
	artifacts(t, c)[0].SHA256 = "" // an invalid lock: the write is refused
	if err := s.Run(context.Background(), c); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if written, err := s.Lock(); written || errcode.Code(err) != errcode.RunLock {
		t.Errorf("Lock() = %v, %v; want an E-RUN-003 failure", written, err)
	}
	if err := s.Run(context.Background(), newCase(t, project, "b")); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if written, err := s.Lock(); !written || err != nil {
		t.Errorf("Lock() after a retry = %v, %v", written, err)
	}
}

// The zero Stage keeps no run state: it stages, but writes no lock.
func TestZeroStageWritesNoLock(t *testing.T) {
	project := t.TempDir()
	var s Stage
	if err := s.Run(context.Background(), newCase(t, project, "a")); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := os.Stat(capsule.LockPath(project)); !os.IsNotExist(err) {
		t.Errorf("zero Stage wrote a lock: %v", err)
	}
	if written, err := s.Lock(); written || err != nil {
		t.Errorf("Lock() = %v, %v", written, err)
	}
}

func TestStageLocalSkillVanished(t *testing.T) {
	project := t.TempDir()
	c := newCase(t, project, "a")
	if err := os.Remove(filepath.Join(project, "notes.md")); err != nil {
		t.Fatal(err)
	}
	if err := New().Run(context.Background(), c); errcode.Code(err) != errcode.IONotFound {
		t.Errorf("code = %q, want %q (error: %v)", errcode.Code(err), errcode.IONotFound, err)
	}
	if _, err := os.Stat(c.SessionDir); !os.IsNotExist(err) {
		t.Errorf("session folder created before the refusal: %v", err)
	}
}
