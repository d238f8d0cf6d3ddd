package trend

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"

	"github.com/murmur-nexus/murmur-eval/reports"
)

// canvas writes one inline SVG chart. Numbers go in through printf; every
// piece of text from the data goes through text or title, which escape it,
// so the result is safe to hand to html/template as template.HTML.
type canvas struct {
	b strings.Builder
}

func newCanvas(w, h int, label string) *canvas {
	c := &canvas{}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		w, h, w, h, esc(label))
	return c
}

// printf writes markup; its arguments must be numbers or escaped text.
func (c *canvas) printf(format string, args ...any) { fmt.Fprintf(&c.b, format, args...) }

// text writes s at (x, y) with the given extra attributes.
func (c *canvas) text(x, y float64, attrs, s string) {
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" %s>%s</text>`, x, y, attrs, esc(s))
}

// title is a hover tooltip for the element it is written inside.
func (c *canvas) title(s string) { fmt.Fprintf(&c.b, `<title>%s</title>`, esc(s)) }

func (c *canvas) html() template.HTML {
	c.b.WriteString(`</svg>`)
	return template.HTML(c.b.String()) // #nosec: built by canvas, all data text escaped
}

func esc(s string) string { return html.EscapeString(s) }

// palette colours the scorers; overall is drawn in ink.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"} //nolint:gochecknoglobals // read-only table of colours

const ink = "#222"

// statusColors are the status breakdown's and the grid's colours.
var statusColors = map[string]string{ //nolint:gochecknoglobals // read-only table of colours
	reports.StatusPassed: "#2e7d32", reports.StatusFailed: "#e65100", reports.StatusError: "#6a1b9a",
	reports.StatusTimeout: "#546e7a", reports.StatusOverBudget: "#8d6e63", reports.StatusCancelled: "#9e9e9e",
}

// statusStack is the order of a bar's segments, bottom up.
var statusStack = []string{reports.StatusPassed, reports.StatusFailed, reports.StatusError, reports.StatusTimeout, reports.StatusOverBudget, reports.StatusCancelled} //nolint:gochecknoglobals // read-only list of the stack order

func trendColor(i int) string {
	if i == 0 {
		return ink
	}
	return palette[(i-1)%len(palette)]
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// msLabel writes milliseconds as µs, ms, s or min.
func msLabel(ms float64) string {
	switch {
	case math.IsNaN(ms):
		return "-"
	case ms < 1:
		return fmt.Sprintf("%.3gµs", ms*1000)
	case ms < 1000:
		return fmt.Sprintf("%.3gms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.3gs", ms/1000)
	}
	return fmt.Sprintf("%.3gmin", ms/60_000)
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
