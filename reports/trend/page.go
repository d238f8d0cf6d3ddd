package trend

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

//go:embed page.html.tmpl
var pageSource string

// maxGridRows bounds the case grid: rows past it that never flipped are
// left out (and counted), so a 10,000-case dataset still makes a page a
// browser opens.
const maxGridRows = 1000

var page = template.Must(template.New("page").Funcs(template.FuncMap{ //nolint:gochecknoglobals // the parsed template, read-only (safe for concurrent use)
	"pct":  pct,
	"pnum": func(p float64) string { return strings.TrimPrefix(pValue(p), "p=") },
	"pp":   func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + " pp" },
	"ms":   msLabel,
	"startTime": func(r *Run) string {
		if r.Start.IsZero() {
			return "-"
		}
		return r.Start.UTC().Format("2006-01-02 15:04:05")
	},
}).Parse(pageSource))

// pageData is what the template sees.
type pageData struct {
	Title, First, Last, Capsule   string
	R                             *Report
	Trend, Status, Stages, Tokens template.HTML
	Grid                          []gridView
	GridHidden                    int
}

type gridView struct {
	Label string
	Flips int
	Cells []string
}

// WriteHTML writes the report as one self-contained HTML page: styles and
// charts inline, no script, nothing fetched.
func WriteHTML(w io.Writer, r *Report, title string) error {
	d := pageData{Title: title, R: r,
		Trend: TrendChart(r), Status: StatusChart(r), Stages: StageChart(r), Tokens: TokenChart(r)}
	if d.Title == "" {
		d.Title = "murmur-eval: " + runsText(len(r.Runs))
	}
	if first := r.Runs[0]; !first.Start.IsZero() {
		d.First = first.Start.UTC().Format("2006-01-02 15:04 UTC")
	}
	if last := r.Latest(); !last.Start.IsZero() && len(r.Runs) > 1 {
		d.Last = last.Start.UTC().Format("2006-01-02 15:04 UTC")
	}
	d.Capsule = r.Latest().Digest.Capsule.Name + " " + r.Latest().Digest.Capsule.Version
	multi := r.MultiEpoch()
	for i, g := range r.Grid {
		if i >= maxGridRows && g.Flips == 0 {
			d.GridHidden = len(r.Grid) - i
			break
		}
		d.Grid = append(d.Grid, gridView{Label: g.Label(multi), Flips: g.Flips, Cells: g.Cells})
	}
	if err := page.Execute(w, d); err != nil {
		return errcode.Wrap(errcode.IO, err, "write the report")
	}
	return nil
}
