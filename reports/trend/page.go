package trend

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
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
	"cost": runCost,
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
	PassToFail, FailToPass        []flipView
}

type gridView struct {
	Label string
	Href  string // the case's page in the latest run's view site
	Flips int
	Cells []cellView
}

// cellView is one case's status in one run, and its page there.
type cellView struct {
	Status, Href, Title string
}

// flipView is a case that changed verdict in the latest run.
type flipView struct {
	CaseID, Href string
}

// gridView is a grid row as the page shows it, with links to the case's
// pages where the report has them (Report.Pages).
func (r *Report) gridView(g GridRow, multi bool) gridView {
	v := gridView{Label: g.Label(multi), Flips: g.Flips, Cells: make([]cellView, len(g.Cells))}
	for i, status := range g.Cells {
		v.Cells[i] = cellView{Status: status}
		if status != "" {
			v.Cells[i].Href = r.page(i, g.Key.CaseID)
			v.Cells[i].Title = "#" + strconv.Itoa(r.Runs[i].Index) + " " + status
			v.Href = v.Cells[i].Href // the label: the last run that ran the case
		}
	}
	return v
}

func (r *Report) flipViews(keys []reports.CaseKey) []flipView {
	out := make([]flipView, len(keys))
	for i, k := range keys {
		out[i] = flipView{CaseID: k.CaseID, Href: r.page(len(r.Runs)-1, k.CaseID)}
	}
	return out
}

// page is the link to a case's page in run i's view site; "" without one.
func (r *Report) page(i int, caseID string) string {
	if r.Pages == nil {
		return ""
	}
	return r.Pages(i, caseID)
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
		d.Grid = append(d.Grid, r.gridView(g, multi))
	}
	if r.Diff != nil && len(r.Diff.Scorers) > 0 {
		first := r.Diff.Scorers[0]
		d.PassToFail, d.FailToPass = r.flipViews(first.PassToFail), r.flipViews(first.FailToPass)
	}
	if err := page.Execute(w, d); err != nil {
		return errcode.Wrap(errcode.IO, err, "write the report")
	}
	return nil
}
