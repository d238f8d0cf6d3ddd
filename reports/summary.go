package reports

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// slowestShown is how many of the slowest cases the summary lists.
const slowestShown = 3

// messageWidth caps the first error message shown per error code, in runes.
const messageWidth = 60

// statusOrder returns the order of statuses in the headline; any other
// status follows, sorted.
func statusOrder() []string {
	return []string{StatusPassed, StatusFailed, StatusError, StatusTimeout, StatusCancelled, StatusSkipped}
}

// Summary aggregates ResultRows into the short plain-text report printed at
// the end of a run. The zero value is ready to use.
//
// Summary is not safe for concurrent use: feed it from one goroutine, such as
// the one that also sends the rows to the results Sink.
//
// Everything it prints is independent of the order rows arrive in, so the
// same run prints the same summary whatever the worker schedule.
type Summary struct {
	cases        int
	byStatus     map[string]int
	turns        int64
	toolCalls    int64
	inputTokens  int64
	outputTokens int64
	multiEpoch   bool
	slowest      []caseRef // longest first, at most slowestShown
	errors       map[string]*errorStat
}

// caseRef names one case of a run and what the summary shows of it.
type caseRef struct {
	caseID   string
	epoch    int32
	duration float64 // ms
	stage    string
	message  string
}

// errorStat counts the rows with one error code and keeps the first of them,
// by case_id then epoch.
type errorStat struct {
	count int
	first caseRef
}

// before orders case references by case_id, then epoch.
func (c caseRef) before(d caseRef) bool {
	return cmp.Or(strings.Compare(c.caseID, d.caseID), cmp.Compare(c.epoch, d.epoch)) < 0
}

// Add counts one result row.
func (s *Summary) Add(r ResultRow) {
	if s.byStatus == nil {
		s.byStatus = make(map[string]int)
		s.errors = make(map[string]*errorStat)
	}
	s.cases++
	s.byStatus[r.Status]++
	s.turns += int64(r.Turns)
	s.toolCalls += int64(r.ToolCalls)
	s.inputTokens += r.InputTokens
	s.outputTokens += r.OutputTokens
	s.multiEpoch = s.multiEpoch || r.Epoch > 1

	ref := caseRef{caseID: r.CaseID, epoch: r.Epoch, duration: r.DurationMS,
		stage: deref(r.ErrorStage), message: deref(r.ErrorMessage)}
	if r.Status != StatusSkipped {
		s.addSlow(ref)
	}

	if r.ErrorCode != nil {
		e := s.errors[*r.ErrorCode]
		if e == nil {
			e = &errorStat{first: ref}
			s.errors[*r.ErrorCode] = e
		} else if ref.before(e.first) {
			e.first = ref
		}
		e.count++
	}
}

// addSlow keeps ref if it is among the slowest cases so far.
func (s *Summary) addSlow(ref caseRef) {
	s.slowest = append(s.slowest, ref)
	slices.SortFunc(s.slowest, func(a, b caseRef) int {
		if c := cmp.Compare(b.duration, a.duration); c != 0 {
			return c
		}
		if a.before(b) {
			return -1
		}
		return 1
	})
	s.slowest = s.slowest[:min(len(s.slowest), slowestShown)]
}

// Total returns the number of rows added.
func (s *Summary) Total() int { return s.cases }

// Count returns the number of rows added with the given status.
func (s *Summary) Count(status string) int { return s.byStatus[status] }

// WriteText writes the summary to w: a headline with the counts per status,
// totals, one line per error code with its first case, the slowest cases and
// the paths of the Parquet files (an empty path is left out). wall is the
// run's wall-clock time. A write failure is returned with code errcode.IO.
func (s *Summary) WriteText(w io.Writer, resultsPath, eventsPath string, wall time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s", plural(s.cases, "case"), formatDuration(wall))
	sep := ": "
	for _, st := range s.statuses() {
		fmt.Fprintf(&b, "%s%d %s", sep, s.byStatus[st], clean(st))
		sep = ", "
	}
	fmt.Fprintf(&b, "\ntotals: %s, %s, %d input tokens, %d output tokens\n",
		plural(int(s.turns), "turn"), plural(int(s.toolCalls), "tool call"), s.inputTokens, s.outputTokens)

	if len(s.errors) > 0 {
		b.WriteString("\nerrors:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, code := range s.errorCodes() {
			e := s.errors[code]
			fmt.Fprintf(tw, "  %s\t%d\tfirst %s\t%s\t%s\n", clean(code), e.count,
				s.name(e.first), clean(e.first.stage), truncate(clean(e.first.message), messageWidth))
		}
		tw.Flush() // writes to a strings.Builder cannot fail
	}

	if len(s.slowest) > 0 {
		b.WriteString("\nslowest:\n")
		width := 0
		for _, c := range s.slowest {
			width = max(width, utf8.RuneCountInString(formatDuration(msDuration(c.duration))))
		}
		for _, c := range s.slowest {
			fmt.Fprintf(&b, "  %*s  %s\n", width, formatDuration(msDuration(c.duration)), s.name(c))
		}
	}

	if resultsPath != "" || eventsPath != "" {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
		if resultsPath != "" {
			fmt.Fprintf(tw, "results:\t%s\n", resultsPath)
		}
		if eventsPath != "" {
			fmt.Fprintf(tw, "events:\t%s\n", eventsPath)
		}
		tw.Flush()
	}

	if _, err := io.WriteString(w, trimLines(b.String())); err != nil {
		return errcode.Wrap(errcode.IO, err, "write run summary")
	}
	return nil
}

// statuses returns the statuses seen, known ones first in statusOrder.
func (s *Summary) statuses() []string {
	var out, other []string
	known := statusOrder()
	for _, st := range known {
		if s.byStatus[st] > 0 {
			out = append(out, st)
		}
	}
	for st := range s.byStatus {
		if !slices.Contains(known, st) {
			other = append(other, st)
		}
	}
	slices.Sort(other)
	return append(out, other...)
}

// errorCodes returns the error codes seen, most frequent first.
func (s *Summary) errorCodes() []string {
	codes := make([]string, 0, len(s.errors))
	for code := range s.errors {
		codes = append(codes, code)
	}
	slices.SortFunc(codes, func(a, b string) int {
		return cmp.Or(cmp.Compare(s.errors[b].count, s.errors[a].count), strings.Compare(a, b))
	})
	return codes
}

// name formats a case for the summary, with its epoch when the run has more
// than one.
func (s *Summary) name(c caseRef) string {
	if s.multiEpoch {
		return fmt.Sprintf("%s epoch %d", clean(c.caseID), c.epoch)
	}
	return clean(c.caseID)
}

// msDuration converts float milliseconds to a Duration.
func msDuration(ms float64) time.Duration {
	return time.Duration(ms * float64(time.Millisecond))
}

// formatDuration rounds d to what a person reads at a glance: 10µs steps
// below a millisecond, whole milliseconds below a second, hundredths of a
// second below a minute, whole seconds above.
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// plural formats "1 case" or "3 cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// clean makes s safe for one tabwriter cell: control characters (tabs and
// newlines among them) become spaces.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// truncate shortens s to at most n runes, marking a cut with "…".
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// trimLines removes the padding tabwriter leaves at the end of lines whose
// last cells are empty.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// deref returns *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
