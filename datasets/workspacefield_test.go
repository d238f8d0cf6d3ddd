package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestWorkspaceField: workspace names a folder or an archive inside the
// dataset's folder; every bad value is E-EVAL-001 at file:line:workspace.
func TestWorkspaceField(t *testing.T) {
	tests := []struct {
		name     string
		value    string // the JSON value of "workspace"
		setup    func(t *testing.T, dir, outside string)
		kind     string // want, "" for an error
		allowOut bool
	}{
		{"folder", `"repo"`, func(t *testing.T, dir, _ string) { writeFile(t, filepath.Join(dir, "repo", "a"), "a") }, WorkspaceDir, false},
		{"tar.gz", `"ws/r.tar.gz"`, func(t *testing.T, dir, _ string) { writeFile(t, filepath.Join(dir, "ws", "r.tar.gz"), "x") }, WorkspaceTarGz, false},
		{"tgz", `"r.tgz"`, func(t *testing.T, dir, _ string) { writeFile(t, filepath.Join(dir, "r.tgz"), "x") }, WorkspaceTarGz, false},
		{"tar", `"r.tar"`, func(t *testing.T, dir, _ string) { writeFile(t, filepath.Join(dir, "r.tar"), "x") }, WorkspaceTar, false},
		{"zip", `"r.ZIP"`, func(t *testing.T, dir, _ string) { writeFile(t, filepath.Join(dir, "r.ZIP"), "x") }, WorkspaceZip, false},
		{"other file", `"r.rar"`, func(t *testing.T, dir, _ string) { writeFile(t, filepath.Join(dir, "r.rar"), "x") }, "", false},
		{"missing", `"nope"`, func(*testing.T, string, string) {}, "", false},
		{"blank", `"  "`, func(*testing.T, string, string) {}, "", false},
		{"not a string", `["repo"]`, func(*testing.T, string, string) {}, "", false},
		{"dataset folder itself", `"."`, func(*testing.T, string, string) {}, "", false},
		{"dot-dot", `"../host"`, func(*testing.T, string, string) {}, "", false},
		{"link out", `"link"`, func(t *testing.T, dir, outside string) { symlink(t, outside, filepath.Join(dir, "link")) }, "", false},
		{"link out allowed", `"link"`, func(t *testing.T, dir, outside string) { symlink(t, outside, filepath.Join(dir, "link")) }, WorkspaceDir, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "dataset")
			outside := filepath.Join(top, "host")
			writeFile(t, filepath.Join(outside, "secret"), "s")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir, outside)
			ds := filepath.Join(dir, "cases.jsonl")
			writeFile(t, ds, "\n"+`{"case_id": "a", "task": "x", "workspace": `+tt.value+`}`+"\n")
			d, err := Options{AllowTaskOutside: tt.allowOut}.Load(ds)
			if tt.kind == "" {
				var e *errcode.Error
				if !errors.As(err, &e) || e.Code != errcode.EvalDataset || e.Where != ds+":2:workspace" {
					t.Fatalf("Load() = %v, want E-EVAL-001 at %s:2:workspace", err, ds)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c := allCases(t, d)[0]; c.WorkspaceKind != tt.kind || !filepath.IsAbs(c.Workspace) {
				t.Errorf("workspace %q kind %q, want an absolute path of kind %q", c.Workspace, c.WorkspaceKind, tt.kind)
			}
		})
	}
}

// TestSetupField: the three forms, and each bad one at file:line:setup.
func TestSetupField(t *testing.T) {
	tests := []struct {
		value string
		want  *Setup // nil: an error
	}{
		{`"git init -q"`, &Setup{Argv: []string{"sh", "-c", "git init -q"}, Timeout: DefaultSetupTimeout}},
		{`["make", "deps"]`, &Setup{Argv: []string{"make", "deps"}, Timeout: DefaultSetupTimeout}},
		{`{"command": "x", "timeout_seconds": 1.5}`, &Setup{Argv: []string{"sh", "-c", "x"}, Timeout: 1500 * time.Millisecond}},
		{`""`, nil},
		{`[]`, nil},
		{`[""]`, nil},
		{`42`, nil},
		{`{"command": "x", "timeout_seconds": 0}`, nil},
		{`{"command": "x", "timeout_seconds": 1e9}`, nil},
		{`{"command": "x", "timeout": 3}`, nil},
		{`{"timeout_seconds": 3}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			dir := t.TempDir()
			ds := filepath.Join(dir, "cases.jsonl")
			writeFile(t, ds, `{"case_id": "a", "task": "x", "setup": `+tt.value+`}`+"\n")
			d, err := Load(ds)
			if tt.want == nil {
				var e *errcode.Error
				if !errors.As(err, &e) || e.Code != errcode.EvalDataset || e.Where != ds+":1:setup" {
					t.Fatalf("Load() = %v, want E-EVAL-001 at %s:1:setup", err, ds)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, allCases(t, d)[0].Setup); diff != "" {
				t.Errorf("Setup (-want +got):\n%s", diff)
			}
		})
	}
}
