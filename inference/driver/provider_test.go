package driver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// fakeDriver answers each Run with the next scripted result and keeps the
// payloads it was given.
type fakeDriver struct {
	results  []inference.DriverResult
	err      error
	payloads []map[string]json.RawMessage
}

func (f *fakeDriver) Run(ctx context.Context, payload []byte) (inference.DriverResult, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(payload, &p); err != nil {
		return inference.DriverResult{}, err
	}
	f.payloads = append(f.payloads, p)
	if f.err != nil {
		return inference.DriverResult{}, f.err
	}
	r := f.results[0]
	f.results = f.results[1:]
	return r, nil
}

func str(s string) *string { return &s }

func request(texts ...string) *inference.Request {
	req := &inference.Request{MaxTokens: 100, Model: "m", Params: json.RawMessage("{}"), System: "sys"}
	for _, t := range texts {
		req.Messages = append(req.Messages, inference.UserMessage(t))
	}
	return req
}

func TestResponseFollowsMurmursAgentLoop(t *testing.T) {
	tests := []struct {
		name   string
		res    inference.DriverResult
		stop   string
		failed string // DriverFailed with this Error
		code   string
	}{
		{"passed", inference.DriverResult{Status: "passed", Data: str(`{"stop_reason":"end_turn","content":[{"type":"text","text":"hi"}]}`)}, "end_turn", "", ""},
		{"summary as data", inference.DriverResult{Status: "passed", Summary: str(`{"stop_reason":"max_tokens"}`)}, "max_tokens", "", ""},
		{"canonical error", inference.DriverResult{Status: "passed", Data: str(`{"stop_reason":"error","error":"boom"}`)}, "error", "", ""},
		{"status error with data", inference.DriverResult{Status: "error", Summary: str("s"), Data: str(`{"error":"HTTP 500","stop_reason":"error"}`)}, "error", `{"error":"HTTP 500","stop_reason":"error"}`, ""},
		{"status failed with summary", inference.DriverResult{Status: "failed", Summary: str("upstream down")}, "error", "upstream down", ""},
		{"status error, nothing", inference.DriverResult{Status: "error"}, "error", "driver returned error", ""},
		{"no data", inference.DriverResult{Status: "passed"}, "", "", errcode.RunAgentLoop},
		{"not JSON", inference.DriverResult{Status: "passed", Data: str("hello")}, "", "", errcode.RunAgentLoop},
		{"no stop_reason", inference.DriverResult{Status: "passed", Data: str(`{"content":[]}`)}, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Response(tt.res)
			if errcode.Code(err) != tt.code {
				t.Fatalf("Response = %v, want code %q", err, tt.code)
			}
			if err != nil {
				return
			}
			if resp.StopReason != tt.stop || resp.DriverFailed != (tt.failed != "") {
				t.Errorf("stop %q failed %v, want %q %v", resp.StopReason, resp.DriverFailed, tt.stop, tt.failed != "")
			}
			if tt.failed != "" && resp.Error != tt.failed {
				t.Errorf("error %q, want %q", resp.Error, tt.failed)
			}
		})
	}
}

func TestContinuationSendsOnlyWhatTheDriverHasNotSeen(t *testing.T) {
	end := `{"stop_reason":"tool_call","content":[]}`
	f := &fakeDriver{results: []inference.DriverResult{
		{Status: "passed", Data: str(end), Metadata: [][2]string{{"other", "x"}, {"continuation_id", "c1"}, {"continuation_id", "c2"}}},
		{Status: "passed", Data: str(end), Metadata: [][2]string{{"continuation_id", "c3"}}},
		{Status: "passed", Data: str(end), Metadata: [][2]string{{"continuation_id", ""}}},
		{Status: "passed", Data: str(end)},
	}}
	p := &provider{drv: f}
	req := request("a")
	complete := func() {
		t.Helper()
		if _, err := p.Complete(context.Background(), req, inference.NopObserver{}); err != nil {
			t.Fatal(err)
		}
	}
	complete()                                                           // full: a
	req.Messages = append(req.Messages, inference.UserMessage("b"))      // the driver saw a
	complete()                                                           // b, c1
	req.Messages = []inference.Message{inference.UserMessage("summary")} // compaction replaced the history
	complete()                                                           // full, no id
	req.Messages = append(req.Messages, inference.UserMessage("c"))      // the empty id dropped it
	complete()
	want := []struct {
		msgs int
		id   string
	}{{1, ""}, {1, `"c1"`}, {1, ""}, {2, ""}}
	for i, w := range want {
		var msgs []json.RawMessage
		_ = json.Unmarshal(f.payloads[i]["messages"], &msgs)
		if len(msgs) != w.msgs || string(f.payloads[i]["continuation_id"]) != w.id {
			t.Errorf("turn %d: %d messages, continuation_id %s; want %d, %q", i, len(msgs), f.payloads[i]["continuation_id"], w.msgs, w.id)
		}
	}
	if !strings.Contains(string(f.payloads[1]["messages"]), `"b"`) {
		t.Errorf("turn 1 sent %s, want only message b", f.payloads[1]["messages"])
	}
}

func TestPayloadIsMurmursCanonicalRequest(t *testing.T) {
	b, _, err := (*continuation)(nil).payload(&inference.Request{MaxTokens: 8, Model: "m", System: "s",
		Messages: []inference.Message{inference.UserMessage("t")}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_tokens":8,"messages":[{"content":[{"text":"t","type":"text"}],"role":"user"}],"model":"m","params":{},"system":"s","tools":[]}`
	if string(b) != want {
		t.Errorf("payload\n%s\nwant\n%s", b, want)
	}
}

func TestDispatchFailureIsAgentLoopError(t *testing.T) {
	p := &provider{drv: &fakeDriver{err: errors.New("trap")}}
	if _, err := p.Complete(context.Background(), request("a"), inference.NopObserver{}); !errcode.Is(err, errcode.RunAgentLoop) ||
		!strings.Contains(err.Error(), "driver invocation failed") {
		t.Errorf("Complete = %v, want E-RUN-007 driver invocation failed", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Complete(ctx, request("a"), inference.NopObserver{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Complete after the case ended = %v, want context.Canceled", err)
	}
	// A run stopped for an unreachable endpoint: its error names the
	// driver already, and comes back as it is (not "driver: driver: ...").
	unreachable := errcode.New(errcode.EndpointUnreachable, "driver: the model endpoint http://x cannot be reached")
	ctx, stop := context.WithCancelCause(context.Background())
	stop(unreachable)
	if _, err := p.Complete(ctx, request("a"), inference.NopObserver{}); err != error(unreachable) {
		t.Errorf("Complete after the run stopped = %v, want %v as it is", err, unreachable)
	}
}

// stubSource is a fallback that says which case it served.
type stubSource struct{ served int }

func (s *stubSource) ForCase(context.Context, inference.Case) (inference.Provider, error) {
	s.served++
	return nil, nil
}

func TestSourcePicksDriverFallbackOrRefusal(t *testing.T) {
	tests := []struct {
		name     string
		c        inference.Case
		driver   bool
		fallback bool
		code     string
	}{
		{"installed", inference.Case{Driver: &fakeDriver{}, Inference: inference.Config{DriverArtifact: "house-driver"}}, true, false, ""},
		{"murmur's anthropic, not installed", inference.Case{Inference: inference.Config{DriverArtifact: "murmur-driver-anthropic"}}, false, true, ""},
		{"unknown, not installed", inference.Case{Inference: inference.Config{DriverArtifact: "house-driver"}}, false, false, errcode.RunDriverAbsent},
		{"unknown with config.api", inference.Case{Inference: inference.Config{DriverArtifact: "house-driver", DriverConfig: json.RawMessage(`{"api":"openai"}`)}}, false, true, ""},
		{"bad config.api", inference.Case{Inference: inference.Config{DriverArtifact: "house-driver", DriverConfig: json.RawMessage(`{"api":"gemini"}`)}}, false, false, errcode.ProviderDriver},
		{"process", inference.Case{Inference: inference.Config{Transport: "process"}}, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := &stubSource{}
			p, err := New(fb).ForCase(context.Background(), tt.c)
			if errcode.Code(err) != tt.code {
				t.Fatalf("ForCase = %v, want code %q", err, tt.code)
			}
			if _, ok := p.(*provider); ok != tt.driver || (fb.served == 1) != tt.fallback {
				t.Errorf("driver provider %v, fallback used %v; want %v, %v", ok, fb.served == 1, tt.driver, tt.fallback)
			}
		})
	}
}

// TestSourceRemembersOnlyWhatItAccepted: one Source serves a run's cases;
// the block it last accepted is not decoded again, and a block it would
// refuse is refused whatever came before it (only acceptance is kept).
func TestSourceRemembersOnlyWhatItAccepted(t *testing.T) {
	openai := inference.Config{DriverArtifact: "house-driver", DriverConfig: json.RawMessage(`{"api":"openai"}`)}
	gemini := inference.Config{DriverArtifact: "house-driver", DriverConfig: json.RawMessage(`{"api":"gemini"}`)}
	unknown := inference.Config{DriverArtifact: "house-driver"}
	fb := &stubSource{}
	s := New(fb)
	for i, step := range []struct {
		inf  inference.Config
		code string
	}{{openai, ""}, {openai, ""}, {gemini, errcode.ProviderDriver}, {unknown, errcode.RunDriverAbsent}, {openai, ""}, {unknown, errcode.RunDriverAbsent}} {
		if _, err := s.ForCase(context.Background(), inference.Case{Inference: step.inf}); errcode.Code(err) != step.code {
			t.Fatalf("case %d (%s): ForCase = %v, want code %q", i, step.inf.DriverConfig, err, step.code)
		}
	}
	if fb.served != 3 {
		t.Errorf("fallback served %d cases, want the 3 accepted", fb.served)
	}
	if b := s.spoken.Load(); b == nil || string(b.config) != `{"api":"openai"}` {
		t.Errorf("remembered %+v, want the openai block", b)
	}
}
