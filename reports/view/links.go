package view

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// PagePath is the case's page in a site, relative to the site's folder:
// "cases/<id>.html", the id escaped by runfolder.EscapeCaseID (so it is one
// file name whatever it holds). A link to it must escape it as a URL path
// (url.PathEscape), for the name may hold '%'.
func PagePath(caseID string) string { return "cases/" + pageName(caseID) }

func pageName(caseID string) string { return runfolder.EscapeCaseID(caseID) + ".html" }

// pageHref is the link to the case's page from index.html.
func pageHref(caseID string) string { return "cases/" + url.PathEscape(pageName(caseID)) }

// linker makes the links of a case page (in the site's cases/ folder) to
// the runs' raw files: relative paths from the page to the file, so that
// a site written inside or beside its run folder keeps working when the
// two move together; an absolute file:// URL when no relative path exists.
// A served site (Serve) maps each run folder to a path of its server.
type linker struct {
	pagesDir string   // the absolute path of the site's cases/ folder
	served   []prefix // for a served site: run folder -> URL path
}

// prefix maps the files beneath a run folder to a URL path.
type prefix struct{ dir, url string }

// href is the link to the file at the absolute path target, "" when a
// served site has no path for it.
func (l linker) href(target string) string {
	if l.served != nil {
		for _, p := range l.served {
			if rel, err := filepath.Rel(p.dir, target); err == nil && filepath.IsLocal(rel) {
				return p.url + escapePath(rel)
			}
		}
		return ""
	}
	rel, err := filepath.Rel(l.pagesDir, target)
	if err != nil {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(target)}).String()
	}
	return escapePath(rel)
}

// escapePath escapes each element of a slash-separated relative path.
func escapePath(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
