package drivertest_test

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/driver"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/openai"
)

// cpuTime is the process's user plus system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTurn is one model turn (a tool call answer to a two-message
// conversation with one tool) through the built-in OpenAI provider and
// through the driver fixture (a fresh component instance, as murmur runs
// a driver), against the same local server. cpu-ms/turn is the whole
// process's CPU (the server's included, the same for both) per turn.
func BenchmarkTurn(b *testing.B) {
	body := apitest.OpenAICompletion("tool_calls", "", 40, 18, apitest.OpenAIToolCall("call_Qn2", "bash", `{"command":"ls -la"}`))
	var sse string
	srv := apitest.New(b, func(r apitest.Request) apitest.Reply {
		if strings.Contains(string(r.Body), `"stream":true`) {
			return apitest.Reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: sse}
		}
		return apitest.Reply{Status: 200, Header: map[string]string{"Content-Type": "application/json"}, Body: body}
	})
	sse = stream(&testing.T{}, body)
	req := &inference.Request{MaxTokens: 1024, Model: "gpt-4o", Params: json.RawMessage(`{}`), System: strings.Repeat("You are a careful agent. ", 40),
		Tools:    []inference.Tool{{Name: "bash", Description: "run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}},
		Messages: []inference.Message{inference.UserMessage("list the files"), inference.AssistantMessage(json.RawMessage(`[{"type":"text","text":"Sure."}]`))}}
	inf := inference.Config{Transport: "http", Endpoint: srv.URL, Model: "gpt-4o", APIKey: "sk-test", DriverArtifact: "murmur-driver-openai"}
	client := httpapi.NewClient(httpapi.Options{MaxRetries: -1})
	ctx := context.Background()

	run := func(b *testing.B, p inference.Provider) {
		b.Helper()
		if _, err := p.Complete(ctx, req, inference.NopObserver{}); err != nil { // warm the connection
			b.Fatal(err)
		}
		b.ResetTimer()
		cpu := cpuTime(b)
		for b.Loop() {
			resp, err := p.Complete(ctx, req, inference.NopObserver{})
			if err != nil || resp.StopReason != inference.StopToolCall {
				b.Fatalf("%v %+v", err, resp)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/turn")
	}
	b.Run("builtin", func(b *testing.B) {
		api, err := openai.New(inf)
		if err != nil {
			b.Fatal(err)
		}
		run(b, client.Provider(api))
	})
	b.Run("driver", func(b *testing.B) {
		f := bind(b, compileFixture(b), srv.URL, client.GuestClient())
		p, err := driver.New(nil).ForCase(ctx, inference.Case{ID: "c", Inference: inf, Driver: f})
		if err != nil {
			b.Fatal(err)
		}
		run(b, p)
	})
}
