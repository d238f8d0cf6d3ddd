package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// judgeCases are the judge tests' cases: a task, the answer the model
// gives it, and the status the judge's verdict leads to.
func judgeCases() []struct{ id, task, answer, status string } {
	return []struct{ id, task, answer, status string }{
		{"good", "Say good.", "It is 42.", "passed"},
		{"bad", "Say bad.", "It is 41.", "failed"},
		{"broken", "Say broken.", "BREAK", "error"},
	}
}

// modelByTask answers, as Anthropic's Messages API, each case's task with
// its answer.
func modelByTask(t *testing.T) *apitest.Server {
	answers := map[string]string{}
	for _, c := range judgeCases() {
		answers[c.task] = c.answer
	}
	return apitest.New(t, func(r apitest.Request) apitest.Reply {
		for task, answer := range answers {
			if strings.Contains(string(r.Body), task) {
				return apitest.Reply{Body: apitest.AnthropicMessage("end_turn", 50, 5, apitest.AnthropicText(answer))}
			}
		}
		return apitest.Reply{Status: 400, Body: apitest.AnthropicError("invalid_request_error", "unknown task")}
	})
}

// judgeByAnswer is a judge speaking OpenAI's Chat Completions: it calls
// submit_verdict with 0.9 for an answer saying 42, 0.1 for any other, and
// answers "BREAK" with prose, which is no verdict, twice.
func judgeByAnswer(t *testing.T, calls *atomic.Int32) *apitest.Server {
	return apitest.New(t, func(r apitest.Request) apitest.Reply {
		calls.Add(1)
		body := string(r.Body)
		switch {
		case r.Header.Get("Authorization") != "Bearer judge-key" || !strings.Contains(body, `"model":"judge-1"`):
			return apitest.Reply{Status: 401, Body: apitest.OpenAIError("invalid_request_error", "invalid_api_key", "bad key or model")}
		case strings.Contains(body, `final answer\nBREAK`):
			return apitest.Reply{Body: apitest.OpenAICompletion("stop", "I would rather not grade this.", 300, 8)}
		case strings.Contains(body, `final answer\nIt is 42.`):
			return apitest.Reply{Body: apitest.OpenAICompletion("tool_calls", "", 300, 20, apitest.OpenAIToolCall("call_1", "submit_verdict", `{"score":0.9,"reason":"it says 42"}`))}
		}
		return apitest.Reply{Body: apitest.OpenAICompletion("tool_calls", "", 300, 20, apitest.OpenAIToolCall("call_1", "submit_verdict", `{"score":0.1,"reason":"it does not say 42"}`))}
	})
}

// judged is what a judged run needs: a copy of the quickstart whose model
// is modelByTask, a judge (judgeByAnswer, its requests counted), the
// judge cases' dataset with their rubric, the judge's flags and its key.
type judged struct {
	qs, dataset  string
	model, judge *apitest.Server
	calls        *atomic.Int32
	flags        []string
	env          runOption
}

// newJudged sets up a judged run (before t.Parallel: it copies the
// quickstart).
func newJudged(t *testing.T) *judged {
	t.Helper()
	j := &judged{qs: quickstart(t), calls: &atomic.Int32{}}
	j.model = modelByTask(t)
	useEndpoint(t, j.qs, j.model.URL)
	j.judge = judgeByAnswer(t, j.calls)
	var lines []string
	for _, c := range judgeCases() {
		line, _ := json.Marshal(map[string]any{"case_id": c.id, "task": c.task, "expected": map[string]any{"rubric": []string{"The answer says 42."}}})
		lines = append(lines, string(line))
	}
	j.dataset = filepath.Join(j.qs, "cases-judge.jsonl")
	writeFile(t, j.dataset, strings.Join(lines, "\n")+"\n")
	j.flags = []string{"--judge-provider", "openai", "--judge-endpoint", j.judge.URL, "--judge-model", "judge-1"}
	j.env = withEnv("MURMUR_EVAL_JUDGE_API_KEY=judge-key")
	return j
}

// TestJudgeScoresAndReplays: a case's expected.rubric is judged by the
// judge model through the real binary: a pass, a fail, and an answer that
// is no verdict even after the repair (a harness error, E-EVL-091, never a
// verdict); the judge's columns, its log in the session; --record keeps
// the judge's answers, and --replay gives the same rows with both servers
// gone; without --judge-model the run is refused (E-EVL-090).
func TestJudgeScoresAndReplays(t *testing.T) {
	j := newJudged(t)
	t.Parallel()
	qs, dataset, model, judge, judgeFlags, env := j.qs, j.dataset, j.model, j.judge, j.flags, j.env
	calls := j.calls
	rec := filepath.Join(t.TempDir(), "rec")

	refused, _ := runE2E(t, []string{qs, "--dataset", dataset, "--out", filepath.Join(reachableTempDir(t), "refused"), "--driver", "builtin"}, env)
	if refused.code != 2 || !hasCode(refused.stderr, "E-EVL-090") {
		t.Fatalf("a rubric and no judge model: exit %d\n%s", refused.code, refused.stderr)
	}

	live := filepath.Join(reachableTempDir(t), "live")
	r, _ := runE2E(t, append([]string{qs, "--dataset", dataset, "--out", live, "--driver", "builtin", "--record", rec}, judgeFlags...), env)
	if r.code != exitErrorBudget {
		t.Fatalf("recording run: exit %d, want %d (one harness error)\n%s", r.code, exitErrorBudget, r.stderr)
	}
	checkJudged(t, live)
	if n := calls.Load(); n != 4 {
		t.Errorf("%d judge requests, want 4 (good, bad, broken and its repair)", n)
	}
	if _, err := os.Stat(filepath.Join(rec, "judge")); err != nil {
		t.Errorf("the judge's answers were not recorded: %v", err)
	}

	model.Close()
	judge.Close()
	replayed := filepath.Join(reachableTempDir(t), "replayed")
	r, _ = runE2E(t, append([]string{qs, "--dataset", dataset, "--out", replayed, "--replay", rec}, judgeFlags...), env)
	if r.code != exitErrorBudget {
		t.Fatalf("replaying run: exit %d\n%s", r.code, r.stderr)
	}
	checkJudged(t, replayed)
	if n := calls.Load(); n != 4 {
		t.Errorf("the replay sent %d judge requests", n-4)
	}
}

// checkJudged checks a judged run's rows, judge columns and logs.
func checkJudged(t *testing.T, run string) {
	t.Helper()
	rows := resultsByCase(t, run)
	for _, c := range judgeCases() {
		if rows[c.id]["status"] != c.status {
			t.Errorf("%s: status %v, want %s (%v)", c.id, rows[c.id]["status"], c.status, rows[c.id]["error_message"])
		}
	}
	if rows["broken"]["error_code"] != "E-EVL-091" {
		t.Errorf("broken: error %v %v, want E-EVL-091", rows["broken"]["error_code"], rows["broken"]["error_message"])
	}
	judged := map[string]map[string]any{}
	for _, s := range readParquet(t, filepath.Join(run, "scores.parquet")).Rows {
		if s["scorer_type"] == "llm_judge" {
			judged[s["case_id"].(string)] = s
		} else if s["judge_model"] != nil {
			t.Errorf("%s's %s has a judge model", s["case_id"], s["scorer"])
		}
	}
	for id, want := range map[string]float64{"good": 0.9, "bad": 0.1} {
		s := judged[id]
		if s == nil || s["scorer"] != "llm_judge" || s["score"] != want || s["judge_model"] != "judge-1" || s["judge_samples"] != int32(1) ||
			s["judge_input_tokens"] != int64(300) || !strings.Contains(s["reason"].(string), "it ") {
			t.Errorf("%s's judge row %v", id, s)
		}
	}
	if _, ok := judged["broken"]; ok {
		t.Error("the case whose judge gave no verdict has a judge score")
	}
	log := readFile(t, filepath.Join(run, "cases", "good.e1.a1", "logs", "judge.jsonl"))
	if !strings.Contains(log, `"scorer":"llm_judge"`) || !strings.Contains(log, "It is 42.") {
		t.Errorf("the good case's judge log:\n%s", log)
	}
}

// TestJudgeExample runs examples/judge as its README says: the recorded
// judge fails max-turns alone, passes the three others, and every replayed
// request, the judge's included, is the recorded one.
func TestJudgeExample(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	example := filepath.Join(moduleRoot(t), "examples", "judge")
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, qs, "--dataset", filepath.Join(example, "cases.jsonl"), "--replay", filepath.Join(example, "recordings"),
		"--judge-model", "gpt-5-mini", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rows := resultsByCase(t, out)
	for id, want := range map[string]string{"multiply": "passed", "precedence": "passed", "max-turns": "failed", "two-calls": "passed"} {
		if rows[id]["status"] != want {
			t.Errorf("%s: %v, want %s", id, rows[id]["status"], want)
		}
	}
	for _, s := range readParquet(t, filepath.Join(out, "scores.parquet")).Rows {
		if s["case_id"] == "max-turns" && s["result"] == "fail" && s["scorer"] != "llm_judge" {
			t.Errorf("max-turns fails on %v too, want the judge alone", s["scorer"])
		}
	}
	for _, e := range readParquet(t, filepath.Join(out, "events.parquet")).Rows {
		if e["event_type"] == "replay_divergence" {
			t.Errorf("a replayed request differs from its recording: %v", e)
		}
	}
}

// TestJudgeResume: a judged run's resume command names its judge (never
// its key), and a resume under no judge or another one is refused as a
// changed configuration: the run's verdicts would mix judges.
func TestJudgeResume(t *testing.T) {
	j := newJudged(t)
	t.Parallel()
	out := filepath.Join(reachableTempDir(t), "run")
	base := []string{j.qs, "--dataset", j.dataset, "--driver", "builtin"}
	if r, _ := runE2E(t, append(append(slices.Clone(base), "--out", out), j.flags...), j.env); r.code != exitErrorBudget {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	runJSON := readFile(t, filepath.Join(out, "run.json"))
	if !strings.Contains(runJSON, `"--judge-model",`) || strings.Contains(runJSON, "judge-key") {
		t.Errorf("run.json's resume command does not name the judge, or holds its key:\n%s", runJSON)
	}
	for _, tc := range []struct {
		name, want string
		flags      []string
	}{
		{"no judge", "error[" + errcode.JudgeMissing + "]", nil},
		{"another judge", "the run's configuration changed since it started: judge", []string{"--judge-endpoint", j.judge.URL, "--judge-model", "judge-2"}},
	} {
		r, _ := runE2E(t, append(append(slices.Clone(base), "--resume", out), tc.flags...), j.env)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("resume with %s: exit %d, want %d saying %q\n%s", tc.name, r.code, exitUsage, tc.want, r.stderr)
		}
	}
	r, _ := runE2E(t, append(append(slices.Clone(base), "--resume", out), j.flags...), j.env)
	if r.code != exitErrorBudget {
		t.Errorf("resume with the run's judge: exit %d\n%s", r.code, r.stderr)
	}
}
