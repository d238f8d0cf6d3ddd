package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedLogsAreCaughtWhereverUntrustedCodeRan: the end-of-case
// checks for what was planted at a log's name are skipped only in a
// session no untrusted code reached (issue 38). Through the real
// binary, in one run of a capsule with no hooks (the cases where the
// skip applies), a link to a host file planted at an appended log's
// name is still removed and noted with session_file_replaced when it
// was planted by a tool the model called, by the case's expected.check
// (run by Report, not through the tools) or by its setup command (run
// before Launch); a case where nothing ran has no such event and a
// regular trace.
func TestPlantedLogsAreCaughtWhereverUntrustedCodeRan(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	e2eBinary(t)
	const hostText = "host file 7d21\n"
	host := hostFile(t, hostText)
	dir := escapekeyWithEnv(t)
	plant := func(name string) string { return "ln -s " + host + " " + name + " && echo planted" }
	const components, summaries = "logs/components.jsonl", "out/compaction-summaries.jsonl"
	writeScripted(t, dir, []scripted{
		{id: "plain"},
		{id: "tool", calls: bash(plant(components))},
		{id: "check", expected: map[string]any{"check": plant(components)}},
		{id: "setup"},
	})
	addSetup(t, filepath.Join(dir, "cases.jsonl"), "setup", plant(summaries))

	out, r := newFixture(t, dir).run("--workers", "2", "--timeout", "60s", "--progress", "none", "--keep-sessions", "all")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	byCase := resultsByCase(t, out)
	want := map[string]string{"plain": "", "tool": components, "check": components, "setup": summaries}
	for id, planted := range want {
		row := byCase[id]
		if row["status"] != "passed" {
			t.Errorf("case %s: status %v (%v)", id, row["status"], row["error_message"])
			continue
		}
		sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
		replaced := replacedIn(t, filepath.Join(sdir, "trace.jsonl"))
		if planted == "" {
			if len(replaced) != 0 {
				t.Errorf("case %s: session_file_replaced %v, want none", id, replaced)
			}
			continue
		}
		if replaced[planted] != "a symlink" || len(replaced) != 1 {
			t.Errorf("case %s: session_file_replaced %v, want %s: a symlink", id, replaced, planted)
		}
		if _, err := os.Lstat(filepath.Join(sdir, filepath.FromSlash(planted))); !os.IsNotExist(err) {
			t.Errorf("case %s: %s is still there (%v)", id, planted, err)
		}
	}
	if b, err := os.ReadFile(host); err != nil || string(b) != hostText {
		t.Errorf("host file = %q, %v; want it unchanged", b, err)
	}
}

// addSetup gives the case id of the dataset at path the setup command.
func addSetup(t *testing.T, path, id, command string) {
	t.Helper()
	var lines []string
	for _, l := range readLines(t, path) {
		var line map[string]any
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		if line["case_id"] == id {
			line["setup"] = command
		}
		b, _ := json.Marshal(line)
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replacedIn is the session_file_replaced events of the trace at path,
// found by path; the trace must be a regular file.
func replacedIn(t *testing.T, path string) map[string]string {
	t.Helper()
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%s: %v, %v; want a regular file", path, fi, err)
	}
	replaced := map[string]string{}
	for _, l := range readLines(t, path) {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		if e["event_type"] == "session_file_replaced" {
			replaced[fmt.Sprint(e["path"])] = fmt.Sprint(e["found"])
		}
	}
	return replaced
}
