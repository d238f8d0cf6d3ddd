package view

import (
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/reports"
)

//go:embed index.js
var indexScript string

// indexPage is what index.html's template sees. Its case list is data
// (Data, a JSON block the inline script renders): one compact row per case
// epoch, so a 10,000-case run's index stays a few MiB and the browser
// builds only the rows it shows.
type indexPage struct {
	CSP            string
	RunID          string
	Cases          int
	Capsule, Model string
	PassRate       string
	Cost           string // the run's cost and, with a baseline, the baseline's
	Counts         []fact
	Statuses       []string
	Baseline       string
	Flips          int
	Data           indexData
	Script         template.JS
}

// indexData is the JSON the index's script reads.
type indexData struct {
	Epochs   bool       `json:"epochs"`
	Baseline bool       `json:"baseline"`
	Scorers  []string   `json:"scorers"`
	Rows     []indexRow `json:"rows"`
}

// indexRow is one case epoch's last attempt, in short keys: id, epoch,
// status, flip ("passed→failed"), duration in ms, tokens, cost in USD
// (c, or ce when estimated from murmur's token counts; neither when the
// row has none), href, scores (scorer index × 2, +1 when passed), error,
// failing reasons.
type indexRow struct {
	ID  string   `json:"id"`
	V   string   `json:"v,omitempty"` // the variant, in a run with variants
	E   int32    `json:"e"`
	S   string   `json:"s"`
	F   string   `json:"f,omitempty"`
	D   float64  `json:"d"`
	T   int64    `json:"t"`
	C   *float64 `json:"c,omitempty"`
	Ce  *float64 `json:"ce,omitempty"`
	H   string   `json:"h"`
	Sc  []int    `json:"sc,omitempty"`
	Err string   `json:"err,omitempty"`
	Rs  string   `json:"rs,omitempty"`
}

// maxIndexText bounds an index row's error and reasons: the whole text is
// on the case's page.
const maxIndexText = 160

// statusOrder is the order the summary counts statuses in.
var statusOrder = []string{reports.StatusPassed, reports.StatusFailed, reports.StatusError, reports.StatusTimeout, reports.StatusOverBudget, reports.StatusCancelled, reports.StatusSkipped} //nolint:gochecknoglobals // a constant list

// buildIndex is the index of run r against base (nil for none).
func buildIndex(r, base *run) (indexPage, int) {
	p := indexPage{RunID: clean(r.runID), Cases: len(r.cases), Script: template.JS(indexScript), CSP: indexCSP(), Cost: costLine(r, base)}
	p.Data.Baseline = base != nil
	if base != nil {
		p.Baseline = clean(base.runID)
	}
	scorerIdx := map[string]int{}
	counts := map[string]int{}
	for _, id := range r.cases {
		for _, i := range r.byCase[id] {
			row := &r.rows[i]
			k := caseKey{row.CaseID, row.Epoch, reports.VariantName(row.Variant)}
			if r.final[k] != i {
				continue
			}
			if row.Epoch > 1 {
				p.Data.Epochs = true
			}
			counts[row.Status]++
			ir := indexRow{ID: clean(row.CaseID), V: clean(reports.VariantName(row.Variant)), E: row.Epoch, S: clean(row.Status), D: math.Round(row.DurationMS),
				T: row.InputTokens + row.OutputTokens, H: pageHref(row.CaseID) + "#" + attemptAnchor(row)}
			ir.C, ir.Ce = indexCost(row)
			if b := base.finalRow(k); flipped(row, b) {
				ir.F = b.Status + "→" + row.Status
				p.Flips++
			}
			if row.ErrorCode != nil || row.ErrorMessage != nil {
				ir.Err = clean(firstLine(deref(row.ErrorCode)+" "+deref(row.ErrorMessage), maxIndexText))
			}
			var reasons []string
			for _, s := range r.scoresOf(row) {
				n, ok := scorerIdx[s.Scorer]
				if !ok {
					n = len(p.Data.Scorers)
					scorerIdx[s.Scorer] = n
					p.Data.Scorers = append(p.Data.Scorers, clean(s.Scorer))
				}
				v := n * 2
				if s.Passed() {
					v++
				} else {
					reasons = append(reasons, s.Scorer+": "+s.Reason)
				}
				ir.Sc = append(ir.Sc, v)
			}
			ir.Rs = clean(firstLine(strings.Join(reasons, "; "), maxIndexText))
			p.Data.Rows = append(p.Data.Rows, ir)
			if p.Capsule == "" && row.CapsuleName != "" {
				p.Capsule = clean(row.CapsuleName + " " + row.CapsuleVersion)
			}
			if p.Model == "" && row.Model != nil {
				p.Model = clean(*row.Model)
			}
		}
	}
	for _, s := range statusOrder {
		if counts[s] > 0 {
			p.Counts = append(p.Counts, fact{s, fmt.Sprint(counts[s])})
			p.Statuses = append(p.Statuses, s)
		}
	}
	for s, n := range counts { // a status this build does not know
		if !slices.Contains(statusOrder, s) {
			p.Counts = append(p.Counts, fact{clean(s), fmt.Sprint(n)})
			p.Statuses = append(p.Statuses, clean(s))
		}
	}
	if scored := counts[reports.StatusPassed] + counts[reports.StatusFailed]; scored > 0 {
		p.PassRate = fmt.Sprintf("%.1f%% (%d of %d scored)", 100*float64(counts[reports.StatusPassed])/float64(scored), counts[reports.StatusPassed], scored)
	}
	return p, len(p.Data.Rows)
}
