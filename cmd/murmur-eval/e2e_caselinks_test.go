package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// TestSessionFoldersFoundByCaseID: every case attempt's session folder is
// linked from cases/<case id escaped>.e<epoch>.a<attempt>, hostile case
// ids included (slashes, "..", spaces, unicode, a newline, a bidi
// override, 300 bytes): each link is one name in cases/, resolves to the
// folder its row's session_dir names, and nothing is made outside the run
// folder. --keep-sessions failed removes the passed cases' folders and
// their links; the session folders keep their session ids as names.
func TestSessionFoldersFoundByCaseID(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	recs := filepath.Join(qs, "recordings-ids")
	if err := os.MkdirAll(recs, 0o755); err != nil {
		t.Fatal(err)
	}
	failing := []string{"a/b", "../escape", "..", "spaces and ünïcödé", "%2F", "line\nbreak", "bidi\u202eevil", strings.Repeat("long id ", 40)}
	passing := []string{"../../passed", "plain"}
	var lines []string
	for _, id := range failing {
		lines = append(lines, answeringCase(t, qs, recs, id, "Hello", map[string]any{"result_contains": "Echoed"}))
	}
	for _, id := range passing {
		lines = append(lines, answeringCase(t, qs, recs, id, "Hello", map[string]any{"result_contains": "Hello"}))
	}
	dataset := filepath.Join(qs, "cases-ids.jsonl")
	if err := os.WriteFile(dataset, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, r := newFixture(t, qs).withData(dataset, recs).run("--keep-sessions", "failed")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	byCase := resultsByCase(t, out)
	var wantLinks []string
	for _, id := range failing {
		row := byCase[id]
		if row["status"] != "failed" {
			t.Errorf("case %q: status %v, want failed", id, row["status"])
			continue
		}
		name := runfolder.CaseLinkName(id, 1, 1)
		wantLinks = append(wantLinks, name)
		link := filepath.Join(out, runfolder.CasesDir, name)
		viaLink, err := os.Stat(link)
		if err != nil {
			t.Errorf("case %q: its link: %v", id, err)
			continue
		}
		folder := filepath.Join(out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
		if direct, err := os.Stat(folder); err != nil || !os.SameFile(viaLink, direct) {
			t.Errorf("case %q: cases/%s does not lead to its session folder %s (%v)", id, name, folder, err)
		}
		if _, err := os.Stat(filepath.Join(link, "trace.jsonl")); err != nil {
			t.Errorf("case %q: trace.jsonl through its link: %v", id, err)
		}
		if want := "sessions/" + fmt.Sprint(row["session_id"]); row["session_dir"] != want {
			t.Errorf("case %q: session_dir %v, want %s (named by session id)", id, row["session_dir"], want)
		}
	}
	entries, err := os.ReadDir(filepath.Join(out, runfolder.CasesDir))
	if err != nil {
		t.Fatal(err)
	}
	var gotLinks []string
	for _, e := range entries {
		gotLinks = append(gotLinks, e.Name())
	}
	slices.Sort(gotLinks)
	slices.Sort(wantLinks)
	if !slices.Equal(gotLinks, wantLinks) {
		t.Errorf("cases/ holds %q, want the failed cases' links %q (the passed ones pruned with their folders)", gotLinks, wantLinks)
	}
	if beside, _ := os.ReadDir(filepath.Dir(out)); len(beside) != 1 {
		t.Errorf("the run made %d entries beside its folder, want none: %v", len(beside)-1, beside)
	}
}
