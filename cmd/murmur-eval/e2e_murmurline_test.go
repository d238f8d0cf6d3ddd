package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMurmurDifferencesWhereTheyHelp (issue 39, finding 8): the demo's
// terminal says nothing about murmur's rules, summary.json still counts
// them, summary.md explains them in plain words at its end without a
// link that is dead from the run folder, and --murmur-differences prints
// the same words in the terminal (run and show).
func TestMurmurDifferencesWhereTheyHelp(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	f := newFixture(t, qs)
	out, r := f.run()
	if r.code != exitOK {
		t.Fatalf("demo: exit %d\n%s", r.code, r.stderr)
	}
	for _, jargon := range []string{"murmur's rules", "exit_ok_session_status", "murmur-compatibility.md", "mur eval run"} {
		if strings.Contains(r.stdout, jargon) || strings.Contains(r.stderr, jargon) {
			t.Errorf("the demo's terminal mentions %q:\nstdout:\n%s\nstderr:\n%s", jargon, r.stdout, r.stderr)
		}
	}
	if d := readDigest(t, out); d.MurmurDifferences.Cases != 2 || len(d.MurmurDifferences.Reasons) != 1 ||
		d.MurmurDifferences.Reasons[0].Reason != "exit_ok_session_status" {
		t.Errorf("summary.json murmur_differences = %+v, want 2 cases of exit_ok_session_status", d.MurmurDifferences)
	}
	const words = "would mark 2 of these cases passed"
	md := readFile(t, filepath.Join(out, "summary.md"))
	if !strings.Contains(md, "### Compared with `mur eval run`") || !strings.Contains(md, words) || strings.Contains(md, "(docs/murmur-compatibility.md)") {
		t.Errorf("summary.md lacks the plain-words section, or keeps the dead link:\n%s", md)
	}
	if i, j := strings.Index(md, "Compared with `mur eval run`"), strings.Index(md, "### Slowest"); i < j {
		t.Errorf("the murmur section comes before the slowest cases, want it at the end:\n%s", md)
	}

	_, v := f.run("--murmur-differences")
	if v.code != exitOK || !strings.Contains(v.stdout, words) || !strings.Contains(v.stdout, "session ended failed or ran out of turns") {
		t.Errorf("--murmur-differences: exit %d, stdout lacks the plain words:\n%s", v.code, v.stdout)
	}
	s := runBinary(t, "show", out, "--murmur-differences")
	if s.code != exitOK || !strings.Contains(s.stdout, words) {
		t.Errorf("show --murmur-differences: exit %d\n%s\n%s", s.code, s.stdout, s.stderr)
	}
	if s := runBinary(t, "show", out); strings.Contains(s.stdout, "murmur's rules") || strings.Contains(s.stdout, words) {
		t.Errorf("show without the flag mentions murmur's rules:\n%s", s.stdout)
	}
}
