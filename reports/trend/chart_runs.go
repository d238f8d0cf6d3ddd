package trend

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// The charts across the runs: pass rates and statuses.

// xPositions spreads n runs over [left, left+width].
func xPositions(n int, left, width float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		if n == 1 {
			xs[i] = left + width/2
		} else {
			xs[i] = left + float64(i)*width/float64(n-1)
		}
	}
	return xs
}

// runAxis labels the runs under a chart, thinning labels when crowded.
func runAxis(c *canvas, runs []*Run, xs []float64, y float64) {
	step := max(1, (len(runs)+14)/15)
	for i, run := range runs {
		if i%step != 0 && i != len(runs)-1 {
			continue
		}
		c.text(xs[i], y, `text-anchor="middle" class="ax"`, fmt.Sprintf("#%d", run.Index))
		if !run.Start.IsZero() {
			c.text(xs[i], y+13, `text-anchor="middle" class="ax2"`, run.Start.UTC().Format("01-02 15:04"))
		}
	}
}

// TrendChart draws each scorer's pass rate across the runs as a line, its
// 95% Wilson interval as a band around it.
func TrendChart(r *Report) template.HTML {
	const w, h, left, right, top, bottom = 960, 340, 48.0, 200.0, 14.0, 44.0
	pw, ph := w-left-right, h-top-bottom
	c := newCanvas(w, h, "pass rate per scorer across runs, with 95% Wilson intervals")
	y := func(rate float64) float64 { return top + (1-rate)*ph }
	for _, g := range []float64{0, 0.25, 0.5, 0.75, 1} {
		c.printf(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, left, left+pw, y(g), y(g))
		c.text(left-6, y(g)+4, `text-anchor="end" class="ax"`, fmt.Sprintf("%.0f%%", 100*g))
	}
	xs := xPositions(len(r.Runs), left+12, pw-24)
	runAxis(c, r.Runs, xs, top+ph+16)
	// Drawn last to first, so the overall line lies on top.
	for j := len(r.Trends) - 1; j >= 0; j-- {
		t, color := r.Trends[j], trendColor(j)
		for _, seg := range segments(t) {
			var band, line []string
			for _, i := range seg {
				band = append(band, fmt.Sprintf("%.1f,%.1f", xs[i], y(t.Rates[i].High)))
				line = append(line, fmt.Sprintf("%.1f,%.1f", xs[i], y(t.Rates[i].Rate)))
			}
			for k := len(seg) - 1; k >= 0; k-- {
				band = append(band, fmt.Sprintf("%.1f,%.1f", xs[seg[k]], y(t.Rates[seg[k]].Low)))
			}
			c.printf(`<polygon points="%s" fill="%s" fill-opacity="0.12" stroke="none"/>`, strings.Join(band, " "), color)
			width := 2.0
			if j == 0 {
				width = 3
			}
			c.printf(`<polyline points="%s" fill="none" stroke="%s" stroke-width="%.0f"/>`, strings.Join(line, " "), color, width)
		}
		for i, rate := range t.Rates {
			if rate.Total == 0 {
				continue
			}
			c.printf(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s">`, xs[i], y(rate.Rate), color)
			c.title(fmt.Sprintf("%s, run %s: %d/%d passed, %s [%s–%s]", t.Scorer, r.Runs[i].Label(),
				rate.Passed, rate.Total, pct(rate.Rate), pct(rate.Low), pct(rate.High)))
			c.printf(`</circle>`)
		}
		ly := top + 8 + float64(j)*18
		if ly < h-10 {
			c.printf(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`, left+pw+14, left+pw+34, ly, ly, color)
			c.text(left+pw+40, ly+4, `class="lg"`, shorten(t.Scorer, 24))
		}
	}
	return c.html()
}

// segments splits a trend into runs of consecutive points with a rate.
func segments(t Trend) [][]int {
	var out [][]int
	var cur []int
	for i, rate := range t.Rates {
		if rate.Total == 0 {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, i)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// StatusChart draws each run's cases by status as a stacked bar.
func StatusChart(r *Report) template.HTML {
	const w, h, left, right, top, bottom = 960, 300, 48.0, 200.0, 22.0, 44.0
	pw, ph := w-left-right, h-top-bottom
	c := newCanvas(w, h, "cases of each run by status")
	most := 1
	for _, run := range r.Runs {
		most = max(most, run.Digest.Cases)
	}
	scale := niceCeil(float64(most))
	y := func(n float64) float64 { return top + ph - n/scale*ph }
	for _, g := range []float64{0, scale / 2, scale} {
		c.printf(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, left, left+pw, y(g), y(g))
		c.text(left-6, y(g)+4, `text-anchor="end" class="ax"`, fmt.Sprintf("%g", g))
	}
	n := len(r.Runs)
	slot := pw / float64(n)
	bw := math.Min(48, slot*0.7)
	xs := make([]float64, n)
	for i, run := range r.Runs {
		xs[i] = left + slot*(float64(i)+0.5)
		base := 0.0
		for _, st := range statusStack {
			k := run.Digest.Statuses[st]
			if k == 0 {
				continue
			}
			c.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s">`,
				xs[i]-bw/2, y(base+float64(k)), bw, y(base)-y(base+float64(k)), statusColors[st])
			c.title(fmt.Sprintf("run %s: %d %s of %d", run.Label(), k, st, run.Digest.Cases))
			c.printf(`</rect>`)
			base += float64(k)
		}
		if d := run.Digest; d.Unscored > 0 {
			c.text(xs[i], y(base)-5, `text-anchor="middle" class="warn"`, pct(d.ErrorRate)+" err")
		}
	}
	runAxis(c, r.Runs, xs, top+ph+16)
	for j, st := range statusStack {
		ly := top + 8 + float64(j)*18
		c.printf(`<rect x="%.1f" y="%.1f" width="14" height="12" fill="%s"/>`, left+pw+14, ly-8, statusColors[st])
		c.text(left+pw+36, ly+3, `class="lg"`, st)
	}
	return c.html()
}
