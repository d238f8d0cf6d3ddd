package sessionfs

import (
	"os"
	"testing"
)

// TestWriteFast proves which writes the openat2 shortcut takes: only a
// fresh name under real folders; everything else is left untouched for
// WriteFile's slow path (TestWriteFileHostile proves the whole).
func TestWriteFast(t *testing.T) {
	tests := []struct {
		name     string
		plant    func(t *testing.T, h hostile)
		write    string
		wantDone bool
		viaLink  bool // write through <top>/sess-link, a link to the session folder
	}{
		{name: "fresh at the top", write: "eval.jsonl", wantDone: true},
		{name: "fresh in a folder", write: "out/result.txt", wantDone: true},
		{name: "existing file", write: "eval.jsonl",
			plant: func(t *testing.T, h hostile) { must(t, os.WriteFile(h.p("eval.jsonl"), []byte("old"), 0o644)) }},
		{name: "symlink at the name", write: "eval.jsonl",
			plant: func(t *testing.T, h hostile) { must(t, os.Symlink(h.secret, h.p("eval.jsonl"))) }},
		{name: "dangling symlink at the name", write: "eval.jsonl",
			plant: func(t *testing.T, h hostile) { must(t, os.Symlink(h.host+"/new", h.p("eval.jsonl"))) }},
		{name: "parent linked inside the session", write: "out/result.txt",
			plant: func(t *testing.T, h hostile) {
				must(t, os.RemoveAll(h.p("out")))
				must(t, os.Symlink("logs", h.p("out")))
			}},
		{name: "parent linked to the host", write: "out/result.txt",
			plant: func(t *testing.T, h hostile) {
				must(t, os.RemoveAll(h.p("out")))
				must(t, os.Symlink(h.host, h.p("out")))
			}},
		{name: "missing parent", write: "new/result.txt"},
		{name: "session folder reached through a link", write: "out/result.txt", wantDone: true,
			plant: func(t *testing.T, h hostile) {
				must(t, os.Symlink(h.sess, h.top+"/sess-link"))
			}, viaLink: true},
		{name: "parent linked inside, folder through a link", write: "out/result.txt", viaLink: true,
			plant: func(t *testing.T, h hostile) {
				must(t, os.Symlink(h.sess, h.top+"/sess-link"))
				must(t, os.RemoveAll(h.p("out")))
				must(t, os.Symlink("logs", h.p("out")))
			}},
		{name: "fifo", write: "eval.jsonl", plant: func(t *testing.T, h hostile) { mkfifo(t, h.p("eval.jsonl")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostile(t)
			if tt.plant != nil {
				tt.plant(t, h)
			}
			before, _ := os.Lstat(h.p(tt.write))
			var done bool
			var err error
			dir := h.sess
			if tt.viaLink {
				dir = h.top + "/sess-link"
			}
			prompt(t, func() { done, err = writeFast(dir, tt.write, []byte("written"), 0o644) })
			defer func() {
				_ = os.Remove(h.top + "/sess-link") // a third entry beside sess and host
				h.intact(t)
			}()
			if err != nil || done != tt.wantDone {
				t.Fatalf("writeFast(%q) = %v, %v; want done %v and no error", tt.write, done, err, tt.wantDone)
			}
			if !done {
				if after, _ := os.Lstat(h.p(tt.write)); (before == nil) != (after == nil) || before != nil && !os.SameFile(before, after) {
					t.Errorf("a refused writeFast changed %s", tt.write)
				}
				return
			}
			if b, _ := os.ReadFile(h.p(tt.write)); string(b) != "written" {
				t.Errorf("%s holds %q, want %q", tt.write, b, "written")
			}
		})
	}
}
