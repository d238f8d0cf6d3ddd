package reports

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/internal/tooltest"
)

// xmllintSchema validates the XML file at path against testdata/junit.xsd
// with xmllint (libxml2-utils, installed by scripts/test-deps.sh): without
// it the test fails, unless the run opted out (internal/tooltest).
func xmllintSchema(t *testing.T, path string) (string, error) {
	t.Helper()
	bin := tooltest.Require(t, "xmllint")
	xsd, err := filepath.Abs(filepath.Join("testdata", "junit.xsd"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--noout", "--schema", xsd, path).CombinedOutput()
	return string(out), err
}

func TestJUnitValidatesAgainstSchema(t *testing.T) {
	rows, scores := scoredRun()
	var j JUnit
	var s Summary
	for i := range rows {
		j.Add(rows[i], scores[i])
		s.AddCase(rows[i], scores[i])
	}
	// A timeout, a cancelled case, and text XML cannot carry as such.
	code, stage, msg := "E-EVL-020", "loop", "ran out of --timeout <30s> & \x01more\n\"quoted\""
	timeout := ResultRow{RunID: "run_1", CaseID: "slow & <odd>", Epoch: 2, Status: StatusTimeout, DurationMS: 30000,
		ErrorCode: &code, ErrorStage: &stage, ErrorMessage: &msg}
	j.Add(timeout, nil)
	s.Add(timeout)
	cdata := ResultRow{RunID: "run_1", CaseID: "cdata", Epoch: 1, Status: StatusFailed, DurationMS: 2}
	cdataScores := []ScoreRow{{CaseID: "cdata", Scorer: "check", Result: ResultFail, Reason: "exit status 1: ]]> \x00 \xff end"}}
	j.Add(cdata, cdataScores)
	s.AddCase(cdata, cdataScores)
	cancelled := ResultRow{RunID: "run_1", CaseID: "stuck", Epoch: 1, Status: StatusCancelled, DurationMS: 1}
	j.Add(cancelled, nil)
	s.Add(cancelled)
	d := s.Digest(7 * time.Second)

	path := filepath.Join(t.TempDir(), "junit.xml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Write(f, &d, time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if out, err := xmllintSchema(t, path); err != nil {
		data, _ := os.ReadFile(path)
		t.Fatalf("junit.xml does not validate: %v\n%s\n%s", err, out, data)
	}

	// Read it back as a CI system would.
	data, _ := os.ReadFile(path)
	var doc struct {
		Suite struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Skipped  int `xml:"skipped,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct {
					Type string `xml:"type,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	st := doc.Suite
	if st.Tests != 9 || st.Failures != 3 || st.Errors != 2 || st.Skipped != 1 {
		t.Errorf("suite counts tests=%d failures=%d errors=%d skipped=%d, want 9 3 2 1", st.Tests, st.Failures, st.Errors, st.Skipped)
	}
	byName := map[string]int{}
	for i, c := range st.Cases {
		byName[c.Name] = i
	}
	if c := st.Cases[byName["c5"]]; c.Failure == nil || c.Failure.Message != "exit_ok: exit_status=max_turns_reached" {
		t.Errorf("c5's failure: %+v", c.Failure)
	}
	if c := st.Cases[byName["slow & <odd>#2"]]; c.Error == nil || c.Error.Type != "E-EVL-020" {
		t.Errorf("timeout case: %+v", c)
	}
	if c := st.Cases[byName["cdata"]]; c.Failure == nil || c.Failure.Text != "check: exit status 1: ]]> \uFFFD \uFFFD end" {
		t.Errorf("cdata case's failure text: %+v", c.Failure)
	}
	if st.Cases[0].Name != "c1" {
		t.Errorf("first test case %q, want c1 (sorted by case id)", st.Cases[0].Name)
	}
}

// TestSchemaRejectsBrokenJUnit: the schema check is not vacuous.
func TestSchemaRejectsBrokenJUnit(t *testing.T) {
	for _, doc := range []string{
		`<testsuites><testsuite name="x" failures="0" errors="0"><testcase name="a"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="x" tests="1" failures="0" errors="0"><testcase name="a" time="1e3"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="x" tests="1" failures="0" errors="0"><testcase/></testsuite></testsuites>`,
		`<testsuites><testsuite name="x" tests="-1" failures="0" errors="0"/></testsuites>`,
	} {
		path := filepath.Join(t.TempDir(), "bad.xml")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := xmllintSchema(t, path); err == nil {
			t.Errorf("schema accepted %s\n%s", doc, out)
		} else if !strings.Contains(out, "fails to validate") {
			t.Errorf("xmllint: %s", out)
		}
	}
}
