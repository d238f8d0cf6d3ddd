package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestViewUsage: view's command line: --help, and each mistake refused
// with exit 2, a stable code and words naming it.
func TestViewUsage(t *testing.T) {
	e2eBinary(t)
	t.Parallel()
	dir, empty := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "results.parquet")
	if err := os.WriteFile(file, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site")
	tests := []struct {
		name string
		args []string
		exit int
		code string // "" for none
		says string
	}{
		{"help", []string{"view", "--help"}, exitOK, "", "Usage: murmur-eval view RUN [BASELINE_RUN] -o DIR"},
		{"no run", []string{"view", "-o", site}, exitUsage, errcode.Usage, "view takes RUN and an optional BASELINE_RUN, got 0"},
		{"three runs", []string{"view", dir, dir, dir, "-o", site}, exitUsage, errcode.Usage, "got 3 arguments"},
		{"no output", []string{"view", dir}, exitUsage, errcode.Usage, "view needs -o DIR or --serve ADDR"},
		{"both outputs", []string{"view", dir, "-o", site, "--serve", "127.0.0.1:0"}, exitUsage, errcode.Usage, "-o and --serve are exclusive"},
		{"missing run", []string{"view", filepath.Join(dir, "nope"), "-o", site}, exitUsage, errcode.IONotFound, "no run at"},
		{"a file", []string{"view", file, "-o", site}, exitUsage, errcode.Usage, "is not a run folder"},
		{"no results", []string{"view", empty, "-o", site}, exitUsage, errcode.IONotFound, "has no results.parquet"},
		{"bad parquet", []string{"view", dir, "-o", site}, exitUsage, errcode.IO, "not a Parquet file"},
		{"unknown flag", []string{"view", dir, "--outptu", site}, exitUsage, errcode.Usage, "--outptu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := runE2E(t, tt.args, plainArgs())
			if r.code != tt.exit || tt.code != "" && !hasCode(r.stderr, tt.code) || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("%s: exit %d, want %d with %s saying %q\nstderr:\n%s", strings.Join(tt.args, " "), r.code, tt.exit, tt.code, tt.says, r.stderr)
			}
		})
	}
	if _, err := os.Stat(site); err == nil {
		t.Error("a refused view wrote its site folder")
	}
}
