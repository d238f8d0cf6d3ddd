package view

import (
	"bufio"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/atomicfile"
	"github.com/murmur-nexus/murmur-eval/reports"
)

//go:embed *.html.tmpl
var templateFiles embed.FS

var pages = template.Must(template.New("view").Funcs(template.FuncMap{ //nolint:gochecknoglobals // the parsed templates, read-only (safe for concurrent use)
	"size": size,
}).ParseFS(templateFiles, "*.html.tmpl"))

// The pages' Content-Security-Policy: nothing is fetched, no script runs
// but the index's own (by its hash), no form posts, no <base>; styles are
// the pages' inline ones.
const (
	cspCommon = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
	caseCSP   = cspCommon + "; script-src 'none'"
)

// indexCSP allows exactly the index's inline script.
func indexCSP() string {
	sum := sha256.Sum256([]byte(indexScript))
	return cspCommon + "; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// Options say which runs a site shows.
type Options struct {
	// Run is the run folder; Baseline the run to compare it with, "" for
	// none.
	Run, Baseline string
	// Workers bounds the case pages written at once; 0 for twice
	// GOMAXPROCS (at least 4): a page waits on its files as much as it
	// computes.
	Workers int
}

// Site is a run (and its baseline) read back, ready to be written or
// served. It is not changed after Open: Write and Handler may run at
// once.
type Site struct {
	run, base *run
	workers   int
	// bufs are the case pages' write buffers, reused: a new 64 KiB
	// buffer a page was half of a 10,000-case site's allocations.
	bufs sync.Pool
}

// Stats say what Write wrote.
type Stats struct {
	Cases, Pages, Flips int
	IndexBytes          int64
}

// Open reads the runs. A run or baseline that is not a run folder is
// E-IO-001 or E-EVL-001 (a user error, with a hint); a run folder whose
// Parquet files cannot be read is reports.ReadRun's error.
func Open(o Options) (*Site, error) {
	r, err := readRun(o.Run, "run")
	if err != nil {
		return nil, err
	}
	s := &Site{run: r, workers: o.Workers}
	if s.workers <= 0 {
		s.workers = max(4, 2*runtime.GOMAXPROCS(0))
	}
	if o.Baseline != "" {
		if s.base, err = readRun(o.Baseline, "baseline"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Write writes the site to the folder out (made when missing): index.html
// and a page per case under cases/, each written to a temporary file and
// renamed into place. A page that cannot be written is E-IO-003.
func (s *Site) Write(ctx context.Context, out string) (Stats, error) {
	r, base := s.run, s.base
	out, err := filepath.Abs(out)
	if err != nil {
		return Stats{}, errcode.Wrap(errcode.IO, err, "write the site to %s", out)
	}
	if err := os.MkdirAll(filepath.Join(out, "cases"), 0o755); err != nil {
		return Stats{}, errcode.Wrap(errcode.IO, err, "write the site to %s", out)
	}
	l := linker{pagesDir: filepath.Join(out, "cases")}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.workers)
	var written atomic.Int64
	for _, id := range r.cases {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			p := buildCase(r, base, id, l)
			if err := s.writePage(filepath.Join(out, "cases", pageName(id)), p); err != nil {
				return err
			}
			written.Add(1)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Stats{}, err
	}
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	idx, n := buildIndex(r, base)
	indexPath := filepath.Join(out, "index.html")
	if err := writeFile(indexPath, "index", idx); err != nil {
		return Stats{}, err
	}
	st := Stats{Cases: n, Pages: int(written.Load()), Flips: idx.Flips}
	if fi, err := os.Stat(indexPath); err == nil {
		st.IndexBytes = fi.Size()
	}
	return st, nil
}

// buildCase is the page of case id: a section per epoch and attempt, and
// a side-by-side comparison for each epoch whose verdict flipped.
func buildCase(r, base *run, id string, l linker) casePage {
	p := casePage{CSP: caseCSP, CaseID: clean(id), RunID: clean(r.runID)}
	b := newBudget()
	epochs := map[int32]bool{}
	for _, i := range r.byCase[id] {
		row := &r.rows[i]
		epochs[row.Epoch] = true
		final := r.final[caseKey{id, row.Epoch, reports.VariantName(row.Variant)}] == i
		sv, sess := section(r, row, final, l, b)
		p.Sections = append(p.Sections, sv)
		if bRow := base.finalRow(caseKey{id, row.Epoch, reports.VariantName(row.Variant)}); final && flipped(row, bRow) {
			p.Flips = append(p.Flips, flip(row, sess, r.runID, base, bRow, l, b))
		}
	}
	for i := range p.Flips {
		p.Flips[i].Epochs = len(epochs) > 1
	}
	return p
}

// writeFile executes the template name into path whole (atomicfile), so
// a half-written page is never seen.
func writeFile(path, name string, data any) error {
	if _, err := atomicfile.Write(path, func(w io.Writer) error { return execute(w, name, data) }); err != nil {
		return errcode.Wrap(errcode.IO, err, "write %s", path)
	}
	return nil
}

// writePage writes a case page in place: index.html, written last and
// renamed into place, is what makes the site whole, and a temporary file
// and a rename per page were a third of a 10,000-case site's time.
func (s *Site) writePage(path string, p casePage) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "write %s", path)
	}
	w, _ := s.bufs.Get().(*bufio.Writer)
	if w == nil {
		w = bufio.NewWriterSize(f, 64<<10)
	} else {
		w.Reset(f)
	}
	err = execute(w, "case", p)
	if err == nil {
		err = w.Flush()
	}
	w.Reset(nil)
	s.bufs.Put(w)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "write %s", path)
	}
	return nil
}

func execute(w io.Writer, name string, data any) error { return pages.ExecuteTemplate(w, name, data) }
