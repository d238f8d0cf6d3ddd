package trend

import (
	"fmt"
	"html/template"
	"math"
)

// The charts of the latest run: stage durations and tokens.

// StageChart draws the latest run's wall time per stage as box plots on a
// log scale: whiskers at min and max, the box from p25 to p75, the median.
func StageChart(r *Report) template.HTML {
	const w, left, right, top, row = 960, 80.0, 40.0, 10.0, 34.0
	h := int(top + row*float64(len(r.Stages)) + 34)
	pw := w - left - right
	c := newCanvas(w, h, "wall time per stage of the latest run, log scale")
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range r.Stages {
		if s.N == 0 {
			continue
		}
		lo, hi = math.Min(lo, math.Max(s.Min, 1e-3)), math.Max(hi, math.Max(s.Max, 1e-3))
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1e-3, 1
	}
	lo10, hi10 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if hi10 <= lo10 {
		hi10 = lo10 + 1
	}
	x := func(v float64) float64 {
		return left + (math.Log10(math.Max(v, math.Pow(10, lo10)))-lo10)/(hi10-lo10)*pw
	}
	bottom := top + row*float64(len(r.Stages))
	for k := lo10; k <= hi10; k++ {
		c.printf(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, x(math.Pow(10, k)), x(math.Pow(10, k)), top, bottom)
		c.text(x(math.Pow(10, k)), bottom+16, `text-anchor="middle" class="ax"`, msLabel(math.Pow(10, k)))
	}
	for i, s := range r.Stages {
		cy := top + row*(float64(i)+0.5)
		c.text(left-8, cy+4, `text-anchor="end" class="lg"`, s.Stage)
		if s.N == 0 {
			c.text(left+6, cy+4, `class="ax"`, "did not run")
			continue
		}
		c.printf(`<g><line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, x(s.Min), x(s.Max), cy, cy, ink)
		c.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="16" fill="#90caf9" stroke="%s"/>`,
			x(s.P25), cy-8, math.Max(1, x(s.P75)-x(s.P25)), ink)
		c.printf(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"/>`, x(s.P50), x(s.P50), cy-9, cy+9, ink)
		c.title(fmt.Sprintf("%s: %d cases; min %s, p25 %s, median %s, p75 %s, p90 %s, max %s", s.Stage, s.N,
			msLabel(s.Min), msLabel(s.P25), msLabel(s.P50), msLabel(s.P75), msLabel(s.P90), msLabel(s.Max)))
		c.printf(`</g>`)
	}
	return c.html()
}

// TokenChart draws the latest run's tokens per case, input and output
// stacked, most tokens first.
func TokenChart(r *Report) template.HTML {
	const w, h, left, right, top, bottom = 960, 240, 64.0, 200.0, 12.0, 30.0
	pw, ph := w-left-right, h-top-bottom
	c := newCanvas(w, h, "model tokens per case of the latest run")
	var most int64 = 1
	for _, t := range r.Tokens {
		most = max(most, t.Input+t.Output)
	}
	scale := niceCeil(float64(most))
	y := func(v float64) float64 { return top + ph - v/scale*ph }
	for _, g := range []float64{0, scale / 2, scale} {
		c.printf(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, left, left+pw, y(g), y(g))
		c.text(left-6, y(g)+4, `text-anchor="end" class="ax"`, fmt.Sprintf("%g", g))
	}
	slot := pw / float64(max(1, len(r.Tokens)))
	bw := math.Max(0.5, math.Min(24, slot*0.8))
	for i, t := range r.Tokens {
		x := left + slot*(float64(i)+0.5) - bw/2
		c.printf(`<g><rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="#1f77b4"/>`, x, y(float64(t.Input)), bw, y(0)-y(float64(t.Input)))
		c.printf(`<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="#ff7f0e"/>`, x, y(float64(t.Input+t.Output)), bw, y(float64(t.Input))-y(float64(t.Input+t.Output)))
		c.title(fmt.Sprintf("%s (%s): %d input + %d output tokens", t.Key.CaseID, t.Status, t.Input, t.Output))
		c.printf(`</g>`)
	}
	c.text(left+pw/2, h-8, `text-anchor="middle" class="ax"`, fmt.Sprintf("%d cases, most tokens first", len(r.Tokens)))
	for j, l := range []struct{ name, color string }{{"input tokens", "#1f77b4"}, {"output tokens", "#ff7f0e"}} {
		ly := top + 8 + float64(j)*18
		c.printf(`<rect x="%.1f" y="%.1f" width="14" height="12" fill="%s"/>`, left+pw+14, ly-8, l.color)
		c.text(left+pw+36, ly+3, `class="lg"`, l.name)
	}
	return c.html()
}
