package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// variantsQuickstart is an end-to-end test's copy of the quickstart
// capsule, its endpoint a variantsMock; the test runs in parallel.
func variantsQuickstart(t *testing.T) (string, *apitest.Server) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	srv := variantsMock(t, dir)
	useEndpoint(t, dir, srv.URL)
	return dir, srv
}

// TestModelsTwoVariants: --models model-a,model-b on N cases gives 2N rows
// with a variant column, each variant's model in the requests, and
// summary.json's variants side by side with their McNemar pair; diff
// --variant reads the one run.
func TestModelsTwoVariants(t *testing.T) {
	dir, srv := variantsQuickstart(t)
	out := filepath.Join(reachableTempDir(t), "run")
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	writeFile(t, prices, "currency: USD\nmodels:\n  model-a: {input: 1, output: 2}\n  model-b: {input: 3, output: 4}\n")
	r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--filter", "calc-[pm]*", "--models", "model-a,model-b",
		"--out", out, "--workers", "4", "--driver", "builtin", "--prices", prices)
	if r.code != exitOK && r.code != exitGateFailed {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	rows := readParquet(t, filepath.Join(out, "results.parquet")).Rows
	got := map[string]string{}
	costs := map[string]float64{}
	for _, row := range rows {
		v, _ := row["variant"].(string)
		c, _ := row["cost_usd"].(float64)
		costs[v] += c
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
			CostUSD       *float64 `json:"cost_usd"`
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
	for _, v := range sum.Variants {
		if v.CostUSD == nil || *v.CostUSD <= 0 || math.Abs(*v.CostUSD-costs[v.Name]) > 1e-9 {
			t.Errorf("variant %s: cost_usd %v, want its rows' sum %v", v.Name, v.CostUSD, costs[v.Name])
		}
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
	if s := runBinary(t, "show", out); s.code != exitOK || !strings.Contains(s.stdout, "model-a vs model-b: 2 paired") {
		t.Errorf("show: exit %d, no variants read back:\n%s", s.code, s.stdout)
	}
	if s := runBinary(t, "show", out, "--case", "calc-precedence"); !strings.Contains(s.stdout, "case calc-precedence · variant model-a · epoch 1") ||
		!strings.Contains(s.stdout, "case calc-precedence · variant model-b · epoch 1") {
		t.Errorf("show --case: not each variant's session:\n%s", s.stdout)
	}
	site := filepath.Join(t.TempDir(), "site")
	if v, _ := runE2E(t, []string{"view", out, "-o", site}, plainArgs()); v.code != exitOK {
		t.Errorf("view: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	} else {
		page := readFile(t, filepath.Join(site, "cases", "calc-precedence.html"))
		for _, w := range []string{"Variant model-a, epoch 1", "Variant model-b, epoch 1"} {
			if !strings.Contains(page, w) {
				t.Errorf("view: calc-precedence's page lacks %q", w)
			}
		}
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
	// A variant's endpoint outside the driver's network.allow is refused
	// as the manifest's would be (mur eval run's driver is denied it).
	writeFile(t, file, "- {name: here, model: m}\n- {name: elsewhere, endpoint: 'https://llm.example.com/v1'}\n")
	r = runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--variants", file, "--out", out)
	if r.code != exitUsage || !hasCode(r.stderr, errcode.MurmurEndpointDenied) || !strings.Contains(r.stderr, "https://llm.example.com/v1") {
		t.Errorf("a variant's endpoint outside network.allow: exit %d, want %d with %s\nstderr:\n%s", r.code, exitUsage, errcode.MurmurEndpointDenied, r.stderr)
	}
	// A variant the capsule cannot take is refused before any case.
	writeFile(t, filepath.Join(dir, "murmur.yaml"), processManifest)
	writeFile(t, filepath.Join(dir, "cases.jsonl"), processCases)
	writeFile(t, file, "- {name: local, endpoint: 'http://127.0.0.1:9/v1'}\n")
	r = runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--variants", file, "--out", out)
	if r.code != exitUsage || !hasCode(r.stderr, errcode.Variants) || !strings.Contains(r.stderr, "transport is process") {
		t.Errorf("an endpoint for a process capsule: exit %d, want %d with %s\nstderr:\n%s", r.code, exitUsage, errcode.Variants, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			t.Errorf("a refused run left %s with %d entries", out, len(entries))
		}
	}
}

// TestModelsResume: a two-model run interrupted part way and resumed with
// the command it printed (which gives --models again) ends with each
// (case, variant) run once: 2N rows, none twice.
func TestModelsResume(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	qs := quickstart(t)
	t.Parallel()
	srv := variantsMock(t, qs)
	useEndpoint(t, qs, srv.URL)
	dataset, _ := bigDataset(t, qs, 16)
	f := newFixture(t, qs).live().withData(dataset, "").withFlags("--models", "model-a,model-b", "--workers", "2", "--driver", "builtin",
		"--max-error-rate", "1", "--progress", "none")
	out := f.newOut()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := f.start(ctx, out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	await(t, cmd, &stderr, 2*time.Minute, "6 cases journaled", func() bool { return journalLines(out) >= 6 })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() != exitInterrupted {
		t.Fatalf("interrupted run: %v, want exit %d\nstderr:\n%s", err, exitInterrupted, stderr.String())
	}
	if n := journalLines(out); n >= 32 {
		t.Fatalf("the run finished (%d journaled) before the interrupt", n)
	}
	resume := printedResume(t, stderr.String(), "murmur-eval: run the rest with: ")
	if !strings.Contains(strings.Join(resume, " "), "--models model-a,model-b") {
		t.Errorf("the resume command does not give the models again: %q", resume)
	}
	if r, _ := runE2E(t, resume[1:]); r.code != exitOK && r.code != exitGateFailed {
		t.Fatalf("the printed resume command: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	// A case is journaled when it finishes: 32 lines is every (case,
	// variant) finished once, none run again by the resume.
	if n := journalLines(out); n != 32 {
		t.Errorf("%d journal lines after the resume, want 32", n)
	}
	seen := map[string]int{}
	for _, row := range readParquet(t, filepath.Join(out, "results.parquet")).Rows {
		v, _ := row["variant"].(string)
		seen[fmt.Sprint(row["case_id"], "@", v)]++
	}
	if len(seen) != 32 {
		t.Errorf("%d (case, variant) pairs, want 32 (16 cases x 2 models)", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s: %d rows, want 1", k, n)
		}
	}
}

// TestVariantsFileMaxTurns: --variants FILE runs each case once per
// variant, each with its overrides: the variant with max_turns 1 ends a
// case that needs a tool call at its turn limit, the other does not.
func TestVariantsFileMaxTurns(t *testing.T) {
	dir, _ := variantsQuickstart(t)
	file := filepath.Join(t.TempDir(), "variants.yaml")
	writeFile(t, file, "full: {model: model-a}\nshort:\n  model: model-a\n  max_turns: 1\n")
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--filter", "calc-multiply", "--variants", file,
		"--out", out, "--driver", "builtin")
	if r.code != exitOK && r.code != exitGateFailed {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	got := map[string]string{}
	for _, row := range readParquet(t, filepath.Join(out, "results.parquet")).Rows {
		exit, _ := row["exit_status"].(string)
		got[row["variant"].(string)] = fmt.Sprint(row["status"], " ", exit, " ", row["turns"])
	}
	want := map[string]string{"full": "passed ok 2", "short": "failed max_turns_reached 1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows by variant: got %v, want %v", got, want)
	}
}

// TestModelsRecordReplay: --record keeps one recording per case and
// model in one folder (case@model.jsonl), and --replay of it with the same
// --models gives the same verdicts, with no request to the model and no
// divergence.
func TestModelsRecordReplay(t *testing.T) {
	dir, srv := variantsQuickstart(t)
	rec := filepath.Join(t.TempDir(), "recordings")
	run := func(name string, extra ...string) string {
		out := filepath.Join(reachableTempDir(t), name)
		args := append([]string{dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--filter", "calc-precedence", "--models", "model-a,model-b",
			"--out", out, "--driver", "builtin"}, extra...)
		if r := runBinary(t, args...); r.code != exitOK && r.code != exitGateFailed {
			t.Fatalf("%s: exit %d\nstderr:\n%s", name, r.code, r.stderr)
		}
		return out
	}
	recorded := run("record", "--record", rec)
	for _, name := range []string{"calc-precedence@model-a.jsonl", "calc-precedence@model-b.jsonl"} {
		if countLines(t, filepath.Join(rec, name)) == 0 {
			t.Errorf("no recording %s", name)
		}
	}
	sent := len(srv.Requests())
	replayed := run("replay", "--replay", rec)
	if n := len(srv.Requests()) - sent; n != 0 {
		t.Errorf("the replay sent %d requests", n)
	}
	verdicts := func(out string) map[string]string {
		m := map[string]string{}
		for _, row := range readParquet(t, filepath.Join(out, "results.parquet")).Rows {
			m[row["variant"].(string)] = fmt.Sprint(row["status"], " divergences=", row["replay_divergences"])
		}
		return m
	}
	want := map[string]string{"model-a": "passed divergences=0", "model-b": "failed divergences=0"}
	// score RUN scores each variant's session again: the same verdicts,
	// every row keeping its variant.
	rescored := filepath.Join(reachableTempDir(t), "rescored")
	if s, _ := runE2E(t, []string{"score", recorded, "--out", rescored}, plainArgs()); s.code != exitOK && s.code != exitGateFailed {
		t.Fatalf("score: exit %d\nstderr:\n%s", s.code, s.stderr)
	}
	for name, out := range map[string]string{"recorded": recorded, "replayed": replayed, "rescored": rescored} {
		if got := verdicts(out); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	for _, s := range readParquet(t, filepath.Join(rescored, "scores.parquet")).Rows {
		if v, _ := s["variant"].(string); v != "model-a" && v != "model-b" {
			t.Errorf("rescored: score row %v/%v has variant %v", s["case_id"], s["scorer"], s["variant"])
		}
	}
}

// TestNightlyModelsExample runs examples/nightly-models/nightly.sh twice
// against the mock, as its README says: each night's run of both models,
// the second against the first as --baseline (same-named models paired,
// nothing regressed), the models' diff and the trend page.
func TestNightlyModelsExample(t *testing.T) {
	dir, _ := variantsQuickstart(t)
	script, err := filepath.Abs("../../examples/nightly-models/nightly.sh")
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(reachableTempDir(t), "nightly")
	home := t.TempDir()
	env := []string{"PATH=" + buildDir + ":" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"CAPSULE=" + dir, "DATASET=" + filepath.Join(dir, "cases.jsonl"), "MODELS=model-a,model-b", "RUNS=" + runs, "FAIL_UNDER=0.5",
		"MURMUR_EVAL_FILTER=calc-[pm]*", "MURMUR_EVAL_DRIVER=builtin", "MURMUR_EVAL_CACHE_DIR=" + filepath.Join(buildDir, "wazero-cache")}
	for night := 1; night <= 2; night++ {
		cmd := exec.Command("sh", script)
		cmd.Env, cmd.Dir = env, t.TempDir()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("night %d: %v\n%s", night, err, out)
		}
		time.Sleep(1100 * time.Millisecond) // the run folders are named to the second
	}
	nights, _ := filepath.Glob(filepath.Join(runs, "20*"))
	if len(nights) != 2 {
		t.Fatalf("run folders %v, want two nights", nights)
	}
	var sum struct {
		Gates []struct {
			Gate      string
			Passed    bool
			Detection *struct{ Paired int } `json:"detection"`
		} `json:"gates"`
		Variants []struct{ Name string } `json:"variants"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(nights[1], "summary.json"))), &sum); err != nil {
		t.Fatal(err)
	}
	gates := map[string]int{}
	for _, g := range sum.Gates {
		if !g.Passed {
			t.Errorf("second night: gate %s failed", g.Gate)
		}
		gates[g.Gate]++
		// Same-named models pair: each of the 2 cases with each of the 2 models.
		if g.Gate == "baseline" && (g.Detection == nil || g.Detection.Paired != 4) {
			t.Errorf("second night: the baseline paired %+v, want 4 (2 cases x 2 models)", g.Detection)
		}
	}
	if gates["baseline"] != 1 || gates["fail_under"] != 3 || len(sum.Variants) != 2 {
		t.Errorf("second night: gates %v (want a baseline, and fail_under for the run and each model), variants %v", gates, sum.Variants)
	}
	if diff := readFile(t, filepath.Join(nights[1], "models-diff.txt")); !strings.Contains(diff, "calc-precedence") {
		t.Errorf("models-diff.txt does not name the flipped case:\n%s", diff)
	}
	if page, err := os.ReadFile(filepath.Join(runs, "report.html")); err != nil {
		t.Errorf("no trend page: %v", err)
	} else if !bytes.Contains(page, []byte("overall: model-b")) || !bytes.Contains(page, []byte("calc-precedence@model-b")) {
		t.Error("the trend page has no trend of model-b, or no grid row of its calc-precedence")
	}
}

// TestModelsShardsMerge: --shard splits cases, so each shard runs every
// variant of its cases; merged, the shards give each (case, variant) once,
// none reported missing, with the variants side by side.
func TestModelsShardsMerge(t *testing.T) {
	dir, _ := variantsQuickstart(t)
	// A first run writes murmur.lock, which is part of the shards' fingerprint.
	if r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--filter", "calc-multiply", "--out", filepath.Join(reachableTempDir(t), "run"),
		"--driver", "builtin"); r.code != exitOK {
		t.Fatalf("first run: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var shards []string
	for _, shard := range []string{"0/2", "1/2"} {
		out := filepath.Join(reachableTempDir(t), "run")
		r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--filter", "calc-*", "--models", "model-a,model-b",
			"--shard", shard, "--out", out, "--driver", "builtin", "--max-error-rate", "1")
		if r.code != exitOK && r.code != exitGateFailed {
			t.Fatalf("shard %s: exit %d\nstderr:\n%s", shard, r.code, r.stderr)
		}
		byCase := map[string][]string{}
		for _, row := range readParquet(t, filepath.Join(out, "results.parquet")).Rows {
			byCase[row["case_id"].(string)] = append(byCase[row["case_id"].(string)], row["variant"].(string))
		}
		for id, vs := range byCase {
			if len(vs) != 2 {
				t.Errorf("shard %s: case %s ran variants %v, want both", shard, id, vs)
			}
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	m := runBinary(t, append([]string{"merge", "-o", merged}, shards...)...)
	if m.code != exitOK && m.code != exitGateFailed || strings.Contains(m.stderr, "missing") {
		t.Fatalf("merge: exit %d\nstderr:\n%s", m.code, m.stderr)
	}
	seen := map[string]int{}
	for _, row := range readParquet(t, filepath.Join(merged, "results.parquet")).Rows {
		seen[fmt.Sprint(row["case_id"], "@", row["variant"])]++
	}
	ids := 0
	for _, id := range datasetIDs(t, filepath.Join(dir, "cases.jsonl")) {
		if strings.HasPrefix(id, "calc-") {
			ids++
		}
	}
	if len(seen) != 2*ids {
		t.Errorf("merged: %d (case, variant) pairs, want %d", len(seen), 2*ids)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("merged: %s has %d rows", k, n)
		}
	}
	if !strings.Contains(m.stdout, "model-a vs model-b") {
		t.Errorf("merge's summary lacks the variants:\n%s", m.stdout)
	}
}

// TestModelsShareTheEndpointLimit: two models on one endpoint share its
// --max-connections: with one connection and four workers, the mock never
// has two requests in flight, whichever models they are for.
func TestModelsShareTheEndpointLimit(t *testing.T) {
	dir, srv := variantsQuickstart(t)
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--filter", "calc-*", "--models", "model-a,model-b",
		"--out", out, "--workers", "4", "--driver", "builtin", "--max-connections", "1", "--connections", "fixed", "--max-error-rate", "1")
	if r.code != exitOK && r.code != exitGateFailed {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	models := map[string]bool{}
	for _, req := range srv.Requests() {
		var body struct{ Model string }
		_ = json.Unmarshal(req.Body, &body)
		models[body.Model] = true
	}
	if got := srv.MaxInFlight(); got != 1 || !models["model-a"] || !models["model-b"] {
		t.Errorf("%d requests in flight at most for models %v, want 1 for both models", got, models)
	}
}

// TestModelsJudgedRecordReplay: a judged two-model run records the judge's
// answers per case and model too (judge/<case>@<model>.jsonl), so its
// replay, with both servers gone, gives the same verdicts.
func TestModelsJudgedRecordReplay(t *testing.T) {
	j := newJudged(t)
	t.Parallel()
	rec := filepath.Join(t.TempDir(), "rec")
	run := func(name string, extra ...string) map[string]string {
		out := filepath.Join(reachableTempDir(t), name)
		args := append([]string{j.qs, "--dataset", j.dataset, "--out", out, "--driver", "builtin", "--models", "m1,m2", "--max-error-rate", "1"}, j.flags...)
		if r, _ := runE2E(t, append(args, extra...), j.env); r.code != exitOK {
			t.Fatalf("%s: exit %d\nstderr:\n%s", name, r.code, r.stderr)
		}
		got := map[string]string{}
		for _, s := range readParquet(t, filepath.Join(out, "scores.parquet")).Rows {
			got[fmt.Sprint(s["case_id"], "@", s["variant"], "/", s["scorer"])] = fmt.Sprint(s["result"])
		}
		return got
	}
	live := run("live", "--record", rec)
	for _, name := range []string{"good@m1.jsonl", "good@m2.jsonl"} {
		if countLines(t, filepath.Join(rec, "judge", name)) == 0 {
			t.Errorf("no judge recording %s", name)
		}
	}
	j.model.Close()
	j.judge.Close()
	if replayed := run("replayed", "--replay", rec); fmt.Sprint(replayed) != fmt.Sprint(live) {
		t.Errorf("replayed scores %v, want the live run's %v", replayed, live)
	}
}
