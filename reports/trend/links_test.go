package trend

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// With Pages set, the grid's cells, its case labels and the latest run's
// flips link to the case pages; a cell of a case that did not run has
// none, and a hostile link (javascript:) is made inert by html/template.
func TestPageLinksCasePages(t *testing.T) {
	r := build(DefaultOptions(), "PF", "P-", "FP")
	r.Pages = func(i int, caseID string) string {
		if caseID == "case-2" && i == 0 {
			return "javascript:alert(1)"
		}
		return fmt.Sprintf("views/run_%02d/cases/%s.html", i+1, caseID)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, "links"); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var hrefs []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "a" {
			for _, a := range n.Attr {
				if a.Key == "href" {
					hrefs = append(hrefs, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	got := strings.Join(hrefs, " ")
	for _, want := range []string{
		"views/run_02/cases/case-0.html", // pass→fail in the latest run, and its grid label
		"views/run_01/cases/case-0.html", // its first run's cell
		"views/run_02/cases/case-2.html", // fail→pass
		"#ZgotmplZ",                      // the javascript: link, made inert
	} {
		if !strings.Contains(got, want) {
			t.Errorf("links %q lack %q", hrefs, want)
		}
	}
	if strings.Contains(got, "run_02/cases/case-1.html") || strings.Contains(got, "javascript:") || strings.Contains(got, "run_01/cases/case-2.html") {
		t.Errorf("links %q: a case that did not run has no page, and no javascript: link is kept", hrefs)
	}
}
