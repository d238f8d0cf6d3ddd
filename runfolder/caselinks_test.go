package runfolder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// TestCaseLinkName: a case id of any content names one path element of at
// most 255 bytes, readable for a plain id, and two ids (or two epochs or
// attempts of one) never share a name.
func TestCaseLinkName(t *testing.T) {
	long := strings.Repeat("x", 400)
	for _, tc := range []struct {
		id             string
		epoch, attempt int
		want           string
	}{
		{"calc-multiply", 1, 1, "calc-multiply.e1.a1"},
		{"calc.unary_minus", 3, 2, "calc.unary_minus.e3.a2"},
		{"notes/round trip", 1, 1, "notes%2Fround%20trip.e1.a1"},
		{"..", 1, 1, "%2E..e1.a1"},
		{".", 1, 1, "%2E.e1.a1"},
		{"../../etc/passwd", 1, 1, "%2E.%2F..%2Fetc%2Fpasswd.e1.a1"},
		{"50%", 1, 1, "50%25.e1.a1"},
		{"ünï", 1, 1, "%C3%BCn%C3%AF.e1.a1"},
		{"line\nbreak\x00\u202e", 1, 1, "line%0Abreak%00%E2%80%AE.e1.a1"},
		{`back\slash`, 1, 1, "back%5Cslash.e1.a1"},
		{"x.e1.a1", 1, 1, "x.e1.a1.e1.a1"},
	} {
		if got := CaseLinkName(tc.id, tc.epoch, tc.attempt); got != tc.want {
			t.Errorf("CaseLinkName(%q, %d, %d) = %q, want %q", tc.id, tc.epoch, tc.attempt, got, tc.want)
		}
	}
	ids := []string{"a", "A", "a/b", "a%2Fb", "a b", "a_b", "a-b", "a.b", ".a", "%2Ea", "..", "...", "ü", "u\u0308",
		long, long + "y", long[:179] + "/", long[:179] + "%2F", strings.Repeat("/", 100), strings.Repeat("/", 101)}
	seen := map[string]string{}
	for _, id := range ids {
		for _, ea := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {12, 1}, {1, 12}} {
			name := CaseLinkName(id, ea[0], ea[1])
			if !filepath.IsLocal(name) || strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." || len(name) > 255 {
				t.Errorf("CaseLinkName(%q...) = %q: not one short path element", id, name)
			}
			key := id + "|" + string(rune('0'+ea[0])) + "|" + string(rune('0'+ea[1]))
			if other, dup := seen[name]; dup {
				t.Errorf("CaseLinkName: %q and %q both give %q", other, key, name)
			}
			seen[name] = key
		}
	}
	if got := CaseLinkName(long, 1, 1); !strings.HasPrefix(got, long[:180]+"~") {
		t.Errorf("a long id's name %q: want its first 180 bytes, then ~ and a hash", got)
	}
	if got := CaseLinkName(strings.Repeat("/", 100), 1, 1); !strings.HasPrefix(got, strings.Repeat("%2F", 60)+"~") {
		t.Errorf("a long escaped id's name %q: want it cut between escapes", got)
	}
}

// TestLinkCase: the link resolves to the session folder, relative to the
// run folder; a second link of the name replaces the first; UnlinkCase
// and PruneUnjournaled remove links whose folder is gone.
func TestLinkCase(t *testing.T) {
	out := t.TempDir()
	kept, lost := trace.NewID("ses_"), trace.NewID("ses_")
	for _, s := range []string{kept, lost} {
		if err := os.MkdirAll(filepath.Join(out, "sessions", s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []struct {
		id, sid string
	}{{"../kept", lost}, {"../kept", kept}, {"lost one", lost}, {"pruned", kept}} {
		if err := LinkCase(out, l.id, "", 1, 1, filepath.Join(out, "sessions", l.sid)); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(out, CasesDir, CaseLinkName("../kept", 1, 1))
	if target, err := os.Readlink(link); err != nil || target != filepath.Join("..", "sessions", kept) {
		t.Errorf("link %s -> %q (%v), want the relative path of session %s", link, target, err, kept)
	}
	if err := os.WriteFile(filepath.Join(out, "sessions", kept, "trace.jsonl"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(link, "trace.jsonl")); err != nil || string(b) != "x" {
		t.Errorf("reading through the link: %q, %v", b, err)
	}
	UnlinkCase(out, "pruned", "", 1, 1)
	PruneUnjournaled(out, []journal.Record{{Attempts: []journal.Attempt{{Result: reports.ResultRow{SessionDir: "sessions/" + kept}}}}})
	entries, _ := os.ReadDir(filepath.Join(out, CasesDir))
	if len(entries) != 1 || entries[0].Name() != CaseLinkName("../kept", 1, 1) {
		t.Errorf("links left: %v, want only the one to the journaled session", entries)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("something was made beside the run folder: %v", entries)
	}
}

// FuzzCaseLinkName: a dataset's case ids are anyone's. Each names one path
// element of at most 255 bytes (no '/', no NUL, not "." or ".."), and two
// different ids name two links.
func FuzzCaseLinkName(f *testing.F) {
	f.Add("calc-multiply", "calc_multiply")
	f.Add("../escape", "..%2Fescape")
	f.Add(".hidden", "%2Ehidden")
	f.Add(strings.Repeat("é", 200), strings.Repeat("é", 201))
	f.Add("a\x00b", "a\u202eb")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, id := range []string{a, b} {
			name := CaseLinkName(id, 1, 1)
			if len(name) > 255 || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || filepath.Base(name) != name {
				t.Fatalf("CaseLinkName(%q) = %q: not one path element of at most 255 bytes", id, name)
			}
		}
		if a != b && CaseLinkName(a, 1, 1) == CaseLinkName(b, 1, 1) {
			t.Fatalf("ids %q and %q share the link name %q", a, b, CaseLinkName(a, 1, 1))
		}
	})
}
