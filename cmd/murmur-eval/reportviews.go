package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports/trend"
	"github.com/murmur-nexus/murmur-eval/reports/view"
	"github.com/murmur-nexus/murmur-eval/runfolder"
)

// linkViews gives the report's case links (trend.Report.Pages): each run's
// view site is viewsDir/<run id>; a run whose site is not there yet gets
// it written (murmur-eval view, with the run before it as its baseline, so
// its flips show side by side). The links are relative to the report file
// out, so the report and the sites move together.
func linkViews(ctx context.Context, r *trend.Report, viewsDir, out string, stderr io.Writer) error {
	abs, err := filepath.Abs(viewsDir)
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "--views %s", viewsDir)
	}
	from, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "report %s", out)
	}
	sites := make([]string, len(r.Runs))
	for i, run := range r.Runs {
		site := filepath.Join(abs, runfolder.EscapeCaseID(run.RunID))
		sites[i] = site
		if _, err := os.Stat(filepath.Join(site, "index.html")); err == nil {
			continue // given: a site written before
		}
		opt := view.Options{Run: runFolderOf(run.Path)}
		if i > 0 {
			opt.Baseline = runFolderOf(r.Runs[i-1].Path)
		}
		s, err := view.Open(opt)
		if err != nil {
			return err
		}
		st, err := s.Write(ctx, site)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "murmur-eval report: view site of %s -> %s (%s)\n", run.RunID, site, plural(st.Pages, "case page"))
	}
	r.Pages = func(i int, caseID string) string {
		rel, err := filepath.Rel(from, filepath.Join(sites[i], filepath.FromSlash(view.PagePath(caseID))))
		if err != nil {
			return ""
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		for k, p := range parts {
			parts[k] = url.PathEscape(p)
		}
		return strings.Join(parts, "/")
	}
	return nil
}

// runFolderOf is the run folder of a run given as its folder or one of its
// Parquet files.
func runFolderOf(path string) string {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return filepath.Dir(path)
	}
	return path
}
