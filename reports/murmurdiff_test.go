package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/scoring"
)

// TestSummaryMurmurDifferences: rows get murmur's verdict from their
// scores, and the summary counts the differences by reason, most frequent
// first, naming the first case of each.
func TestSummaryMurmurDifferences(t *testing.T) {
	exitOK := func(pass bool, status string) scoring.Score {
		v := 0.0
		if pass {
			v = 1
		}
		return scoring.Score{Name: "exit_ok", Type: scoring.TypeExitOK, Pass: pass, Value: v, Reason: "exit_status=" + status}
	}
	implicit := exitOK(true, "ok")
	implicit.Implicit = true
	contains := scoring.Score{Name: "result_contains", Type: "result_contains", Pass: true, Value: 1}
	row := func(id, status, exit, code string, scores ...scoring.Score) ResultRow {
		r := ResultRow{CaseID: id, Status: status}
		if exit != "" {
			r.ExitStatus = &exit
		}
		if code != "" {
			r.ErrorCode = &code
		}
		setMurmurView(&r, "", scores)
		return r
	}
	rows := []ResultRow{
		row("a-same", StatusPassed, "ok", "", exitOK(true, "ok"), contains),
		row("c-noscores", StatusPassed, "ok", "", implicit),
		row("b-noscores", StatusPassed, "ok", "", implicit),
		row("d-turns", StatusFailed, "max_turns_reached", "", exitOK(false, "max_turns_reached"), contains),
		row("e-outage", StatusError, "", errcode.ProviderUnavailable),
		row("f-staging", StatusError, "", errcode.RegistryIntegrity),
	}
	wantOverall := []string{"pass", "no_scores", "no_scores", "pass", "", ""}
	for i, r := range rows {
		if got := deref(r.MurmurOverall); got != wantOverall[i] {
			t.Errorf("%s: murmur_overall %q, want %q", r.CaseID, got, wantOverall[i])
		}
	}
	var s Summary
	for _, r := range rows {
		s.Add(r)
	}
	d := s.Digest(0)
	want := MurmurDifferences{Cases: 4, Reasons: []MurmurDifferenceCount{
		{Reason: scoring.DiffNoScores, Count: 2, First: CaseDigest{CaseID: "b-noscores", Status: StatusPassed}},
		{Reason: scoring.DiffExitOK, Count: 1, First: CaseDigest{CaseID: "d-turns", Status: StatusFailed}},
		{Reason: scoring.DiffModelTurnError, Count: 1, First: CaseDigest{CaseID: "e-outage", Status: StatusError}},
	}}
	if diff := cmp.Diff(want, d.MurmurDifferences); diff != "" {
		t.Errorf("murmur_differences (-want +got):\n%s", diff)
	}
	// The terminal summary says nothing of murmur's rules (issue 39,
	// finding 8): --murmur-differences asks for WriteMurmurDifferences.
	var b bytes.Buffer
	if err := d.WriteText(&b, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "murmur") {
		t.Errorf("the summary text mentions murmur:\n%s", b.String())
	}
	want3 := []string{
		"compared with mur eval run: murmur's own mur eval run would give 4 of these cases another verdict; results.parquet's murmur_difference column names each",
		"  mur eval run would give 2 of these cases no verdict (no_scores): murmur.yaml configures no scorer and murmur ignores the dataset line's expected; murmur-eval scored them by expected, or by whether the session ended ok (first: b-noscores)",
		"  mur eval run would mark 1 of these cases passed: its exit_ok scorer passes a case even when the session ended failed or ran out of turns, and murmur-eval's fails it (first: d-turns)",
		"  mur eval run would score 1 of these cases, errors here: a model turn failed (no usable answer from the provider), which murmur ends as a failed session and scores, while murmur-eval keeps them out of the pass rate as harness errors (first: e-outage)",
	}
	b.Reset()
	if err := d.WriteMurmurDifferences(&b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("\n"+strings.Join(want3, "\n")+"\n", b.String()); diff != "" {
		t.Errorf("WriteMurmurDifferences (-want +got):\n%s", diff)
	}
	b.Reset()
	if err := d.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	section := "\n### Compared with `mur eval run`\n\n" + md("Murmur's own mur eval run would give 4 of these cases another verdict; results.parquet's murmur_difference column names each") + ".\n\n- " + md(strings.TrimPrefix(want3[1], "  ")) + ".\n"
	if !strings.Contains(b.String(), section) || !strings.HasSuffix(b.String(), md(strings.TrimPrefix(want3[3], "  "))+".\n") || strings.Contains(b.String(), "murmur-compatibility.md") {
		t.Errorf("summary.md lacks the section at its end, or links the docs:\n%s", b.String())
	}

	var none Summary
	none.Add(rows[0])
	if got := none.Digest(0).MurmurDifferences; got.Cases != 0 || got.Reasons == nil || len(got.Reasons) != 0 {
		t.Errorf("no differences: %+v, want zero cases and an empty (not null) list", got)
	}
}
