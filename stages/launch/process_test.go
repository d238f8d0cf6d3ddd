package launch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/live"
)

func TestLaunchProcessCapsule(t *testing.T) {
	bin, project := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := capsule.ParseManifest(filepath.Join(project, "murmur.yaml"), []byte("name: p\nversion: '1'\ninference: {transport: process, command: claude, model: opus}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, code string }{{bin, ""}, {t.TempDir(), errcode.RunDriverAbsent}} {
		session := t.TempDir()
		c := launchCase("c", session, "ses_1", m)
		err := New(live.New(nil), time.Now).WithHostEnv(map[string]string{"PATH": tt.path}).Run(context.Background(), c)
		if errcode.Code(err) != tt.code {
			t.Fatalf("PATH %s: err %v, want code %q", tt.path, err, tt.code)
		}
		if err != nil {
			continue
		}
		sessionOf(c).Trace.Close()
		if sessionOf(c).Model != nil || sessionOf(c).Process == nil || sessionOf(c).Process.Path != filepath.Join(bin, "claude") {
			t.Errorf("session model %v, process %+v", sessionOf(c).Model, sessionOf(c).Process)
		}
		if sessionOf(c).Config.Model != "opus" || sessionOf(c).Config.MaxTokens != 0 {
			t.Errorf("config %+v", sessionOf(c).Config)
		}
	}
}

// TestLaunchProcessCapsuleUnderReplay: a source that serves a process
// capsule's turns (--replay) gets them through the http loop; no CLI is
// looked up, so none needs to be installed.
func TestLaunchProcessCapsuleUnderReplay(t *testing.T) {
	project, session := t.TempDir(), t.TempDir()
	m, err := capsule.ParseManifest(filepath.Join(project, "murmur.yaml"), []byte("name: p\nversion: '1'\ninference: {transport: process, command: claude}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := launchCase("c", session, "ses_1", m)
	if err := New(&seenSource{}, time.Now).WithHostEnv(map[string]string{"PATH": t.TempDir()}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	sessionOf(c).Trace.Close()
	if sessionOf(c).Model == nil || sessionOf(c).Process != nil {
		t.Errorf("session model %v, process %+v; want the source's provider", sessionOf(c).Model, sessionOf(c).Process)
	}
}
