package main

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportLinksViewSites: report --views DIR writes each run's view site
// (DIR/<run id>, the run before as its baseline) and links each grid cell
// and each flip to the case's page there; every link resolves to a page on
// disk. A second report over the same runs uses the sites as they are.
func TestReportLinksViewSites(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	root := t.TempDir()
	ids := []string{"a1", "a2", "a 3"}
	first := nightRun(t, qs, root, "1", ids, nightPlan{"a1": 'P', "a2": 'P', "a 3": 'F'})
	second := nightRun(t, qs, root, "2", ids, nightPlan{"a1": 'P', "a2": 'F', "a 3": 'P'})
	page := filepath.Join(root, "out", "report.html")
	views := filepath.Join(root, "out", "views")
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, "report", "-o", page, "--views", views, first, second)
	if r.code != 0 {
		t.Fatalf("report --views: exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "view site of"); n != 2 {
		t.Errorf("%d view sites written, want 2:\n%s", n, r.stderr)
	}
	html := readFile(t, page)
	hrefs := regexp.MustCompile(`href="([^"]+)"`).FindAllStringSubmatch(html, -1)
	if len(hrefs) < 6 {
		t.Fatalf("%d links on the page, want one per grid cell and flip at least", len(hrefs))
	}
	for _, h := range hrefs {
		p, err := url.PathUnescape(h[1])
		if err != nil || !strings.HasPrefix(p, "views/") {
			t.Errorf("link %q: want a relative link into views/", h[1])
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(page), filepath.FromSlash(p))); err != nil {
			t.Errorf("link %q leads nowhere: %v", h[1], err)
		}
	}
	flips := regexp.MustCompile(`id="pass-to-fail"><a href="([^"]+)">a2</a>`).FindStringSubmatch(html)
	if flips == nil || !strings.HasSuffix(flips[1], "/cases/a2.html") {
		t.Errorf("the pass→fail flip a2 does not link to its page:\n%s", html)
	}
	if !strings.Contains(html, "/cases/a%25203.html") {
		t.Errorf("the case \"a 3\"'s page is not linked with its name escaped (a%%203 as a file, %%25 in the link)")
	}

	again := runBinary(t, "report", "-o", page, "--views", views, first, second)
	if again.code != 0 || strings.Contains(again.stderr, "view site of") {
		t.Errorf("a second report rewrote the sites (exit %d):\n%s", again.code, again.stderr)
	}
}
