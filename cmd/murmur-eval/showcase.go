package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/suggest"
	"github.com/murmur-nexus/murmur-eval/internal/termtext"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/transcript"
)

// showCase prints the transcript of every epoch and attempt of one case
// of the run folder run: a header from its row in results.parquet, then
// what its session folder says (transcript.Session.WriteText). Every text
// from the run is escaped; colours only on a terminal.
func showCase(run, caseID string, lim reports.ReadLimits, stdout io.Writer) error {
	if fi, err := os.Stat(run); err != nil || !fi.IsDir() {
		return errcode.New(errcode.Usage, "show --case needs a run folder, got %s", run).
			WithHint("murmur-eval show runs/<run id> --case <case id>")
	}
	data, err := reports.ReadRunLimited(run, lim)
	if err != nil {
		return err
	}
	var rows []reports.ResultRow
	ids := map[string]bool{}
	for _, r := range data.Results {
		ids[r.CaseID] = true
		if r.CaseID == caseID {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		e := errcode.New(errcode.Usage, "%s has no case %q", run, termtext.Field(caseID)).
			WithHint("murmur-eval show %s lists its cases", run)
		if s := suggest.Closest(caseID, mapKeys(ids)); s != "" {
			e.Hint = fmt.Sprintf("did you mean %q?", termtext.Field(s))
		}
		return e
	}
	slices.SortFunc(rows, func(a, b reports.ResultRow) int {
		return cmp.Or(cmp.Compare(reports.VariantName(a.Variant), reports.VariantName(b.Variant)), cmp.Compare(a.Epoch, b.Epoch), cmp.Compare(a.Attempt, b.Attempt))
	})
	raw := termtext.Raw(stdout)
	opt := transcript.TextOptions{Colour: isTerminal(stdout), MaxText: transcript.DefaultMaxText}
	for i, r := range rows {
		if i > 0 {
			fmt.Fprintln(raw)
		}
		if err := showAttempt(raw, run, r, judgeCostOf(r, data.Scores), opt); err != nil {
			return err
		}
	}
	return nil
}

// showAttempt prints one row's header and its session; judge is the
// judge's cost of the attempt's scores (nil for none).
func showAttempt(w io.Writer, run string, r reports.ResultRow, judge *float64, opt transcript.TextOptions) error {
	head := attemptHeader(r, judge)
	if opt.Colour {
		head = "\x1b[1;7m" + head + "\x1b[0m"
	}
	fmt.Fprintln(w, head)
	if r.ErrorCode != nil || r.ErrorMessage != nil {
		fmt.Fprintf(w, "error %s: %s\n", termtext.Field(deref(r.ErrorCode)), termtext.Field(deref(r.ErrorMessage)))
	}
	dir, ok := runfolder.SessionFolder(run, r.CaseID, reports.VariantName(r.Variant), int(r.Epoch), int(r.Attempt), r.SessionID)
	if !ok {
		fmt.Fprintf(w, "its session folder was not kept (session %s)\n", termtext.Field(r.SessionID))
		return nil
	}
	fmt.Fprintf(w, "session folder: %s\n", termtext.Field(dir))
	s, err := transcript.Load(dir, transcript.DefaultLimits())
	if err != nil {
		return err
	}
	return s.WriteText(w, opt)
}

// attemptHeader is an attempt's header line: the case, its status,
// turns, tokens, cost (when priced: docs/cost.md) and duration.
func attemptHeader(r reports.ResultRow, judge *float64) string {
	head := fmt.Sprintf("case %s · epoch %d · attempt %d · %s · %d turns · %d in / %d out tokens%s · %.0f ms",
		termtext.Field(r.CaseID), r.Epoch, r.Attempt, termtext.Field(r.Status), r.Turns, r.InputTokens, r.OutputTokens, costText(r, judge), r.DurationMS)
	if r.Variant != nil {
		head = fmt.Sprintf("case %s · variant %s%s", termtext.Field(r.CaseID), termtext.Field(*r.Variant), strings.TrimPrefix(head, "case "+termtext.Field(r.CaseID)))
	}
	return head
}

// costText is " · cost $0.0123" for a priced attempt ("(estimated)"
// when priced from murmur's token counts; the judge's cost apart), "" for
// one without a cost.
func costText(r reports.ResultRow, judge *float64) string {
	var parts []string
	if r.CostUSD != nil {
		c := "cost " + reports.Dollars(*r.CostUSD)
		if r.CostEstimated {
			c += " (estimated)"
		}
		parts = append(parts, c)
	}
	if judge != nil {
		parts = append(parts, "judge cost "+reports.Dollars(*judge))
	}
	if len(parts) == 0 {
		return ""
	}
	return " · " + strings.Join(parts, ", ")
}

// judgeCostOf sums the judge's cost of the attempt's scores; nil when
// none was priced.
func judgeCostOf(r reports.ResultRow, scores []reports.ScoreRow) *float64 {
	var sum *float64
	for _, s := range scores {
		if s.JudgeCostUSD == nil || s.Key() != r.Key() || max(1, s.Attempt) != max(1, r.Attempt) {
			continue
		}
		if sum == nil {
			sum = new(float64)
		}
		*sum += *s.JudgeCostUSD
	}
	return sum
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func mapKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
