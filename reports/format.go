package reports

import (
	"fmt"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/internal/termtext"
)

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

// clean makes s safe for one tabwriter cell on a terminal: tabs and
// newlines become spaces, every other control character (ESC, \r, C1, the
// bidi overrides) is escaped by termtext.Field, the one escaping function
// of the terminal writers.
func clean(s string) string {
	return termtext.Field(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' {
			return ' '
		}
		return r
	}, s))
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

// deref returns *p, or the zero value ("", 0) for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// errorsOrTimeouts formats "1 error or timeout" or "3 errors or timeouts";
// when some of them are over budget, "3 errors, timeouts or over budget".
func errorsOrTimeouts(n, overBudget int) string {
	if overBudget > 0 {
		if n == 1 {
			return "1 error, timeout or over budget"
		}
		return fmt.Sprintf("%d errors, timeouts or over budget", n)
	}
	if n == 1 {
		return "1 error or timeout"
	}
	return fmt.Sprintf("%d errors or timeouts", n)
}
