package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/live"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// openStage is a test Launch: it opens the case's session on a shared
// source, as launch.Stage does from the manifest.
type openStage struct {
	src inference.Source
	inf inference.Config
}

func (openStage) Name() string { return "launch" }

func (s openStage) Run(ctx context.Context, c *pipeline.Case) error {
	if err := os.MkdirAll(c.SessionDir, 0o755); err != nil {
		return err
	}
	model, err := s.src.ForCase(ctx, inference.Case{ID: c.ID, Workdir: c.SessionDir, Inference: s.inf})
	if err != nil {
		return err
	}
	tr, err := trace.Create(filepath.Join(c.SessionDir, "trace.jsonl"), c.SessionID, time.Now)
	if err != nil {
		return err
	}
	pipeline.Store(c, launch.Result, &session.Session{Trace: tr, Model: model, Tools: &fakeTools{},
		Config: session.LoopConfig{CapsuleName: "qs", CapsuleVersion: "1", Model: s.inf.Model, MaxTurns: 4, MaxTokens: 64, Workdir: c.SessionDir}})
	return nil
}

// TestManyCasesShareTheConnectionLimit: 200 cases on 50 workers with
// --max-connections 8 against a server counting requests in flight, with
// a 429 now and then: never more than 8 at once, and every case passes.
func TestManyCasesShareTheConnectionLimit(t *testing.T) {
	srv := apitest.New(t, func(r apitest.Request) apitest.Reply {
		if r.Call%25 == 7 {
			return apitest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "5"}, Body: apitest.AnthropicError("rate_limit_error", "slow down")}
		}
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		if len(req.Messages) == 1 {
			return apitest.Reply{Delay: 2 * time.Millisecond, Body: apitest.AnthropicMessage("tool_use", 10, 2, apitest.AnthropicToolUse("toolu_1", "calc", `{}`))}
		}
		return apitest.Reply{Delay: 2 * time.Millisecond, Body: apitest.AnthropicMessage("end_turn", 12, 1, apitest.AnthropicText("42"))}
	})
	client := httpapi.NewClient(httpapi.Options{MaxConnections: 8, IdleConnsPerHost: 50, BaseDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond})
	defer client.CloseIdleConnections()
	graph, err := pipeline.NewGraph(
		pipeline.Node{Stage: openStage{src: live.New(client), inf: anthropicConfig(srv)}},
		pipeline.Node{Stage: taskStage{}},
		pipeline.Node{Stage: Stage{}, Decl: pipeline.Decl{Produces: Result, Requires: Decl.Requires}},
	)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	runner := &pipeline.Runner{Graph: graph, Workers: 50, Timeout: time.Minute, NewCase: func(j pipeline.Job) *pipeline.Case {
		return &pipeline.Case{ID: j.ID, Input: j.Input, Epoch: 1, SessionID: "ses_" + j.ID, SessionDir: filepath.Join(out, j.ID)}
	}}
	jobs := make([]pipeline.Job, 200)
	for i := range jobs {
		id := fmt.Sprintf("case-%03d", i)
		jobs[i] = pipeline.Job{ID: id, Input: datasets.Case{ID: id}, Epoch: 1}
	}
	done := make(chan *pipeline.Case, len(jobs))
	if err := runner.Run(context.Background(), slices.Values(jobs), done); err != nil {
		t.Fatal(err)
	}
	close(done)
	n, retries := 0, 0
	for c := range done {
		n++
		if v := pipeline.Judge(c); v.Status != pipeline.StatusPassed {
			t.Errorf("%s: %s %v", c.ID, v.Status, v.Err)
		}
		retries += sessionOf(c).Trace.EvalCounts().Retries
		sessionOf(c).Trace.Close()
	}
	if n != len(jobs) {
		t.Errorf("%d cases finished, want %d", n, len(jobs))
	}
	if m := srv.MaxInFlight(); m > 8 {
		t.Errorf("%d requests in flight at once, want at most 8", m)
	}
	if retries == 0 {
		t.Error("no case saw a 429 retry")
	}
	t.Logf("%d requests, at most %d in flight, %d retries", len(srv.Requests()), srv.MaxInFlight(), retries)
}
