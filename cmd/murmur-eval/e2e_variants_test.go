package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// variantsMock is the quickstart's model behind a stand-in that answers by
// model: model "model-b" gets a wrong final answer to calc-precedence's
// task, every other request the recordings' answers.
func variantsMock(t *testing.T, dir string) *apitest.Server {
	t.Helper()
	inner := anthropicFromRecordings(t, dir, nil)
	return apitest.New(t, func(r apitest.Request) apitest.Reply {
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(r.Body, &req)
		if req.Model == "model-b" && bytes.Contains(r.Body, []byte("Compute (2 + 3) * 4 - 10 / 4.")) {
			return apitest.Reply{Body: apitest.AnthropicMessage("end_turn", 50, 5, apitest.AnthropicText("The result is 99."))}
		}
		resp, err := http.Post(inner.URL+r.Path, "application/json", bytes.NewReader(r.Body))
		if err != nil {
			return apitest.Reply{Status: 500, Body: apitest.AnthropicError("api_error", err.Error())}
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return apitest.Reply{Status: resp.StatusCode, Body: string(b)}
	})
}

// TestModelsTwoVariants: --models model-a,model-b on N cases gives 2N rows
// with a variant column, each variant's model in the requests, and
// summary.json's variants side by side with their McNemar pair; diff
// --variant reads the one run.
func TestModelsTwoVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	srv := variantsMock(t, dir)
	useEndpoint(t, dir, srv.URL)
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--filter", "calc-[pm]*", "--models", "model-a,model-b",
		"--out", out, "--workers", "4", "--driver", "builtin")
	if r.code != exitOK && r.code != exitGateFailed {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	rows := readParquet(t, filepath.Join(out, "results.parquet")).Rows
	got := map[string]string{}
	for _, row := range rows {
		v, _ := row["variant"].(string)
		got[row["case_id"].(string)+"@"+v] = row["status"].(string) + " " + row["model"].(string)
	}
	want := map[string]string{
		"calc-multiply@model-a": "passed model-a", "calc-multiply@model-b": "passed model-b",
		"calc-precedence@model-a": "passed model-a", "calc-precedence@model-b": "failed model-b",
	}
	if len(rows) != 4 {
		t.Errorf("%d rows, want 4 (2 cases x 2 models): %v", len(rows), got)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	for _, req := range srv.Requests() {
		if !bytes.Contains(req.Body, []byte(`"model":"model-a"`)) && !bytes.Contains(req.Body, []byte(`"model":"model-b"`)) {
			t.Errorf("a request for neither model: %.120s", req.Body)
		}
	}
	var sum struct {
		Variants []struct {
			Name          string
			Model         string
			Cases, Passed int
			Failed        int
		} `json:"variants"`
		Pairs []struct {
			A, B   string
			Both   int     `json:"both"`
			AOnly  int     `json:"a_only"`
			BOnly  int     `json:"b_only"`
			PValue float64 `json:"p_value"`
		} `json:"variant_pairs"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "summary.json"))), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Variants) != 2 || sum.Variants[0].Name != "model-a" || sum.Variants[0].Passed != 2 || sum.Variants[1].Failed != 1 || sum.Variants[1].Model != "model-b" {
		t.Errorf("summary.json variants: %+v", sum.Variants)
	}
	if len(sum.Pairs) != 1 || sum.Pairs[0].A != "model-a" || sum.Pairs[0].B != "model-b" || sum.Pairs[0].PValue != 1 {
		t.Errorf("summary.json variant_pairs: %+v", sum.Pairs)
	}
	if !strings.Contains(r.stdout, "variants:") || !strings.Contains(r.stdout, "model-a vs model-b") {
		t.Errorf("terminal summary without the variants side by side:\n%s", r.stdout)
	}
	if md := readFile(t, filepath.Join(out, "summary.md")); !strings.Contains(md, "## Variants") {
		t.Errorf("summary.md without a Variants section:\n%s", md)
	}
	d := runBinary(t, "diff", "--variant", "model-a", "--variant", "model-b", out, "--json")
	var rep struct {
		Scorers []struct {
			Scorer     string
			PassToFail []struct {
				CaseID string `json:"case_id"`
			} `json:"pass_to_fail"`
		} `json:"scorers"`
	}
	if err := json.Unmarshal([]byte(d.stdout), &rep); d.code != exitOK || err != nil {
		t.Fatalf("diff --variant: exit %d, %v\nstdout:\n%s\nstderr:\n%s", d.code, err, d.stdout, d.stderr)
	}
	flipped := false
	for _, s := range rep.Scorers {
		flipped = flipped || s.Scorer == "result_contains" && len(s.PassToFail) == 1 && s.PassToFail[0].CaseID == "calc-precedence"
	}
	if !flipped {
		t.Errorf("diff --variant: no result_contains pass->fail of calc-precedence in\n%s", d.stdout)
	}
	if d := runBinary(t, "diff", "--variant", "model-a", "--variant", "model-c", out); d.code != exitUsage {
		t.Errorf("diff --variant of a variant the run does not have: exit %d, want %d", d.code, exitUsage)
	}
	for _, link := range []string{"calc-multiply@model-a.e1.a1", "calc-precedence@model-b.e1.a1"} {
		if _, err := filepath.EvalSymlinks(filepath.Join(out, "cases", link)); err != nil {
			t.Errorf("cases/%s: %v", link, err)
		}
	}
}

// TestVariantsFileRefused: a bad --variants file is exit 2 before any
// case, naming file:line and the field.
func TestVariantsFileRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	file := filepath.Join(t.TempDir(), "variants.yaml")
	writeFile(t, file, "- name: small\n  model: m\n- name: big\n  max_turn: 3\n")
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--variants", file, "--out", out)
	if r.code != exitUsage || !hasCode(r.stderr, errcode.Variants) || !strings.Contains(r.stderr, file+":4:") || !strings.Contains(r.stderr, "[1].max_turn") {
		t.Errorf("exit %d, want %d with %s at %s:4 naming [1].max_turn\nstderr:\n%s", r.code, exitUsage, errcode.Variants, file, r.stderr)
	}
	r = runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--variants", file, "--models", "a", "--out", out)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--models and --variants") {
		t.Errorf("both flags: exit %d, want %d\nstderr:\n%s", r.code, exitUsage, r.stderr)
	}
}
