package reports

import (
	"strings"
	"testing"
)

// TestJudgesText: the terminal summary and summary.md show each judge's
// calibration, mark the uncalibrated ones and what the gates leave out,
// and warn of the labels naming what the run does not have (golden files
// testdata/judges.txt and judges.md; -update rewrites them).
func TestJudgesText(t *testing.T) {
	d := judgedDigest(t, judgedLabels, 0.6, true)
	d.RunID = "run_judged"
	d.Gates = []GateResult{{Gate: "fail_under", Passed: false,
		Detail: "pass rate 50.0% (2 of 4 scored) is under 80.0%; left out uncalibrated judge scorer(s) helpful (kappa 0.40 < 0.6)"}}
	var text strings.Builder
	if err := d.WriteText(&text, nil); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "judges.txt", text.String())
	var md strings.Builder
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "judges.md", md.String())
	for _, want := range []string{"uncalibrated: kappa 0.40 < 0.6", "n=3 agreement 66.7% kappa 0.40 TPR 50.0% TNR 100.0%",
		"--fail-under and --baseline leave out the uncalibrated judge scorers: helpful, llm_judge", `labels.jsonl:4: case "zz" is not in the run`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("terminal summary does not say %q", want)
		}
	}
}
