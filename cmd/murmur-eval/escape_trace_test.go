package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeptTraceIsNeverAToolsLink is the kept-trace finding of issue 33
// through the real binary: a shell tool renames the session's trace.jsonl
// (which murmur-eval holds open and goes on writing) and its
// logs/bootstrap.log, and leaves a symlink to a host file at each name.
// In the kept session trace.jsonl is a regular file again with
// murmur-eval's events, from session_start to session_end, and a
// session_file_replaced event for each name; no name is a link; the
// host file is untouched; the tool's renamed copy stays; the case passes
// (a note, not the model's failure), and events.parquet has the events.
func TestKeptTraceIsNeverAToolsLink(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	t.Parallel()
	e2eBinary(t)
	const hostText = "host file 41c9\n"
	host := hostFile(t, hostText)
	dir := escapekeyWithEnv(t)
	swap := "mv trace.jsonl t2 && ln -s " + host + " trace.jsonl && mv logs/bootstrap.log logs/b2 && ln -s " + host + " logs/bootstrap.log && echo swapped"
	cases := []scripted{
		{id: "plain"},
		// A call after the swap: murmur-eval writes its events to t2.
		{id: "swap", calls: append(bash(swap), bash("echo after")...)},
	}
	writeScripted(t, dir, cases)

	out, r := newFixture(t, dir).run("--workers", "2", "--timeout", "60s", "--progress", "none", "--keep-sessions", "all")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	byCase := resultsByCase(t, out)
	for _, c := range cases {
		if row := byCase[c.id]; row["status"] != "passed" {
			t.Errorf("case %s: status %v (%v)", c.id, row["status"], row["error_message"])
		}
	}
	if b, err := os.ReadFile(host); err != nil || string(b) != hostText {
		t.Errorf("host file = %q, %v; want it unchanged", b, err)
	}
	sdir := filepath.Join(out, filepath.FromSlash(fmt.Sprint(byCase["swap"]["session_dir"])))
	for _, name := range []string{"trace.jsonl", "logs/bootstrap.log"} {
		if fi, err := os.Lstat(filepath.Join(sdir, name)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("kept session's %s is a symlink", name)
		}
	}
	p := filepath.Join(sdir, "trace.jsonl")
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("kept session's trace.jsonl: %v, %v; want a regular file", fi, err)
	}
	var types []string
	replaced := map[string]string{}
	for _, line := range readLines(t, p) {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		types = append(types, fmt.Sprint(e["event_type"]))
		if e["event_type"] == "session_file_replaced" {
			replaced[fmt.Sprint(e["path"])] = fmt.Sprint(e["found"])
		}
	}
	if all := strings.Join(types, ","); !strings.Contains(all, "session_start,") || !strings.Contains(all, "session_end,") {
		t.Errorf("trace.jsonl event types %v; want murmur-eval's events, session_start to session_end", types)
	}
	if got := fmt.Sprint(toolCalls(t, p)); !strings.Contains(got, "swapped") || !strings.Contains(got, "after") {
		t.Errorf("trace.jsonl tool calls %s; want both calls", got)
	}
	for _, name := range []string{"trace.jsonl", "logs/bootstrap.log"} {
		if replaced[name] != "a symlink" {
			t.Errorf("session_file_replaced for %s: %q; want \"a symlink\" (all: %v)", name, replaced[name], replaced)
		}
	}
	if _, err := os.Stat(filepath.Join(sdir, "t2")); err != nil {
		t.Errorf("the tool's renamed trace: %v; want it left where the tool put it", err)
	}
	var noted int
	for _, e := range readParquet(t, filepath.Join(out, "events.parquet")).Rows {
		if e["event_type"] == "session_file_replaced" {
			noted++
		}
	}
	if noted != 2 {
		t.Errorf("events.parquet has %d session_file_replaced events, want 2", noted)
	}
}
