package reports

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// JUnit collects one test case per case of a run for junit.xml, the report
// GitHub, GitLab and Jenkins render: a failed case is a <failure> carrying
// its scorers' reasons, a harness error or a timeout an <error> carrying its
// code, stage and message, a cancelled or skipped case <skipped>. The zero
// value is ready to use; like Summary, feed it from one goroutine.
type JUnit struct {
	cases []junitCase
	// texts interns the score lines: most cases of a run share their
	// scorers' wording, and every case is held until the run ends.
	texts map[string]string

	// With a spill file (NewSpillingJUnit), cases holds at most batch
	// cases; each full batch goes to the file as one sorted run.
	spill   *os.File
	batch   int
	runs    []spillRun
	spilled int // cases in the runs
	// tally counts the cases by their place in the suite's totals, as
	// they are added.
	tally suiteTally
	size  int64
	buf   []byte
	rec   []byte
	err   error
}

// intern returns the held copy of s.
func (j *JUnit) intern(s string) string {
	if t, ok := j.texts[s]; ok {
		return t
	}
	if j.texts == nil {
		j.texts = map[string]string{}
	}
	if len(j.texts) < maxInterned {
		j.texts[s] = s
	}
	return s
}

// maxInterned bounds the intern table, so a run whose every reason is
// different does not also grow a table as large as itself.
const maxInterned = 4096

// junitCase is what junit.xml says of one case.
type junitCase struct {
	key      CaseKey
	status   string
	seconds  float64
	code     string
	stage    string
	message  string
	failures []string // "scorer: reason" of each failed scorer
	scores   []string // every scorer: "scorer: pass (reason)"
	notes    []string // findings: replay divergence, tools not provided
}

// Add records one case.
func (j *JUnit) Add(row ResultRow, scores []ScoreRow) {
	c := junitCase{key: row.Key(), status: row.Status, seconds: row.DurationMS / 1000,
		code: deref(row.ErrorCode), stage: deref(row.ErrorStage), message: deref(row.ErrorMessage)}
	if len(scores) > 0 {
		c.scores = make([]string, 0, len(scores))
	}
	for _, s := range scores {
		c.scores = append(c.scores, j.intern(fmt.Sprintf("%s: %s (%s)", s.Scorer, s.Result, s.Reason)))
		if !s.Passed() {
			c.failures = append(c.failures, j.intern(s.Scorer+": "+s.Reason))
		}
	}
	if row.ReplayDivergences > 0 {
		note := fmt.Sprintf("replay_divergences: %d (the replayed requests differed from the recorded ones", row.ReplayDivergences)
		if row.ReplayFirstDivergentTurn != nil {
			note += fmt.Sprintf(", first at turn %d", *row.ReplayFirstDivergentTurn)
		}
		c.notes = append(c.notes, note+")")
	}
	j.tally.add(c.status)
	if j.spill != nil {
		j.add(c)
		return
	}
	j.cases = append(j.cases, c)
}

// suiteTally is the <testsuite>'s failures, errors and skipped.
type suiteTally struct{ failures, errors, skipped int }

func (t *suiteTally) add(status string) {
	switch status {
	case StatusPassed:
	case StatusFailed:
		t.failures++
	case StatusError, StatusTimeout, StatusOverBudget:
		t.errors++
	default:
		t.skipped++
	}
}

// The XML elements, in the shape of the Ant/Surefire JUnit format.
type (
	xmlSuite struct {
		Name       string        `xml:"name,attr"`
		Tests      int           `xml:"tests,attr"`
		Failures   int           `xml:"failures,attr"`
		Errors     int           `xml:"errors,attr"`
		Skipped    int           `xml:"skipped,attr"`
		Time       string        `xml:"time,attr"`
		Timestamp  string        `xml:"timestamp,attr,omitempty"`
		Properties []xmlProperty `xml:"properties>property"`
		Cases      []xmlCase     `xml:"testcase"`
	}
	xmlProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	xmlCase struct {
		Name      string      `xml:"name,attr"`
		Classname string      `xml:"classname,attr"`
		Time      string      `xml:"time,attr"`
		Failure   *xmlProblem `xml:"failure,omitempty"`
		Error     *xmlProblem `xml:"error,omitempty"`
		Skipped   *xmlProblem `xml:"skipped,omitempty"`
		SystemOut *xmlText    `xml:"system-out,omitempty"`
	}
	xmlProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",cdata"`
	}
	xmlText struct {
		Text string `xml:",cdata"`
	}
)

// Write writes junit.xml: one <testsuite> named after the capsule, test
// cases sorted by case id and epoch. d gives the suite's name, time and
// properties (run id, pass rates); started is the run's start.
//
// The cases are encoded one at a time, not built into one document first:
// at the end of a large run the whole document held about as much memory
// again as everything else the run keeps (BENCHMARKS.md).
func (j *JUnit) Write(w io.Writer, d *Digest, started time.Time) error {
	if j.err != nil {
		return j.err
	}
	n, cases := len(j.cases), heldCases(j.cases)
	if j.spill != nil {
		j.flushRun()
		if j.err != nil {
			return j.err
		}
		n, cases = j.spilled, j.spilledCases()
	} else {
		sortCases(j.cases)
	}
	class := strings.TrimSpace(d.Capsule.Name)
	if class == "" {
		class = "murmur-eval"
	}
	suite := xmlSuite{
		Name:  strings.TrimSpace(class + " " + d.Capsule.Version),
		Tests: n, Time: seconds(d.WallMS / 1000),
		Properties: []xmlProperty{
			{"run_id", d.RunID},
			{"pass_rate", strconv.FormatFloat(d.PassRate.Rate, 'f', 4, 64)},
			{"scored", strconv.Itoa(d.PassRate.Total)},
			{"pass_rate_all", strconv.FormatFloat(d.PassRateAll.Rate, 'f', 4, 64)},
			{"cases_run", strconv.Itoa(d.PassRateAll.Total)},
			{"complete", strconv.FormatBool(d.Complete)},
			{"planned", strconv.Itoa(d.Planned)},
			{"replay_divergences", strconv.Itoa(d.ReplayDivergences)},
		},
	}
	if !started.IsZero() {
		suite.Timestamp = started.UTC().Format("2006-01-02T15:04:05")
	}
	suite.Failures, suite.Errors, suite.Skipped = j.tally.failures, j.tally.errors, j.tally.skipped
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return errcode.Wrap(errcode.IO, err, "write junit.xml")
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := encodeSuites(enc, suite, cases, class); err != nil {
		return errcode.Wrap(errcode.IO, err, "write junit.xml")
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return errcode.Wrap(errcode.IO, err, "write junit.xml")
	}
	return nil
}

// heldCases yields cs in order.
func heldCases(cs []junitCase) iter.Seq2[junitCase, error] {
	return func(yield func(junitCase, error) bool) {
		for _, c := range cs {
			if !yield(c, nil) {
				return
			}
		}
	}
}

// encodeSuites writes <testsuites><testsuite> with suite's attributes and
// properties, then each case as it is converted: the same bytes as encoding
// the whole document at once.
func encodeSuites(enc *xml.Encoder, suite xmlSuite, cases iter.Seq2[junitCase, error], class string) error {
	attr := func(name, value string) xml.Attr { return xml.Attr{Name: xml.Name{Local: name}, Value: value} }
	count := strconv.Itoa
	suites := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{
		attr("name", "murmur-eval"), attr("tests", count(suite.Tests)), attr("failures", count(suite.Failures)),
		attr("errors", count(suite.Errors)), attr("time", suite.Time)}}
	one := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
		attr("name", suite.Name), attr("tests", count(suite.Tests)), attr("failures", count(suite.Failures)),
		attr("errors", count(suite.Errors)), attr("skipped", count(suite.Skipped)), attr("time", suite.Time)}}
	if suite.Timestamp != "" {
		one.Attr = append(one.Attr, attr("timestamp", suite.Timestamp))
	}
	props := struct {
		Property []xmlProperty `xml:"property"`
	}{suite.Properties}
	if err := errors.Join(enc.EncodeToken(suites), enc.EncodeToken(one),
		enc.EncodeElement(props, xml.StartElement{Name: xml.Name{Local: "properties"}})); err != nil {
		return err
	}
	for c, err := range cases {
		if err != nil {
			return err
		}
		if err := enc.EncodeElement(c.xml(class), xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil {
			return err
		}
	}
	if err := errors.Join(enc.EncodeToken(one.End()), enc.EncodeToken(suites.End())); err != nil {
		return err
	}
	return enc.Flush()
}

// xml is the <testcase> element of c.
func (c junitCase) xml(class string) xmlCase {
	x := xmlCase{Name: c.key.String(), Classname: class, Time: seconds(c.seconds)}
	if out := append(slices.Clip(c.scores), c.notes...); len(out) > 0 {
		x.SystemOut = &xmlText{xmlChars(strings.Join(out, "\n"))}
	}
	switch c.status {
	case StatusPassed:
	case StatusFailed:
		msg := "failed"
		if len(c.failures) > 0 {
			msg = truncate(c.failures[0], 200)
		}
		x.Failure = &xmlProblem{Message: msg, Type: "scorer", Text: xmlChars(strings.Join(c.failures, "\n"))}
	case StatusError, StatusTimeout, StatusOverBudget:
		x.Error = &xmlProblem{Message: truncate(c.status+": "+c.message, 200), Type: c.code,
			Text: xmlChars(fmt.Sprintf("status %s, error %s at stage %s: %s", c.status, c.code, c.stage, c.message))}
	default: // cancelled, skipped
		x.Skipped = &xmlProblem{Message: c.status + ": " + c.message}
	}
	return x
}

// seconds formats a duration in seconds as JUnit readers expect: plain
// digits with a decimal point, no exponent.
func seconds(s float64) string { return strconv.FormatFloat(max(0, s), 'f', 3, 64) }

// xmlChars replaces what XML 1.0 cannot hold (control characters, invalid
// UTF-8) with U+FFFD: encoding/xml escapes attributes that way but writes
// CDATA sections as given.
func xmlChars(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}
