package drivertest_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/driver"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/openai"
)

// Latency-bound scaling: latencyCases cases at once, each latencyTurns
// model turns answered after latency by a local server.
const (
	latencyCases = 128
	latencyTurns = 3
	latency      = 50 * time.Millisecond
)

// BenchmarkLatencyBound runs latencyCases cases at once, each
// latencyTurns turns against a server that answers after 50 ms, through
// the built-in provider and through the driver fixture (one provider per
// case, a fresh instance per turn). ideal-x is the wall time over
// latencyTurns × 50 ms: 1 when the turns overlap perfectly.
func BenchmarkLatencyBound(b *testing.B) {
	body := apitest.OpenAICompletion("stop", "Done.", 40, 2)
	sse := stream(&testing.T{}, body)
	srv := apitest.New(b, func(r apitest.Request) apitest.Reply {
		if strings.Contains(string(r.Body), `"stream":true`) {
			return apitest.Reply{Delay: latency, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: sse}
		}
		return apitest.Reply{Delay: latency, Header: map[string]string{"Content-Type": "application/json"}, Body: body}
	})
	req := &inference.Request{MaxTokens: 1024, Model: "gpt-4o", Params: json.RawMessage(`{}`), System: "be brief",
		Messages: []inference.Message{inference.UserMessage("hi")}}
	inf := inference.Config{Transport: "http", Endpoint: srv.URL, Model: "gpt-4o", APIKey: "sk-test", DriverArtifact: "murmur-driver-openai"}
	client := httpapi.NewClient(httpapi.Options{MaxRetries: -1, IdleConnsPerHost: latencyCases})
	ctx := context.Background()
	run := func(b *testing.B, provider func() inference.Provider) {
		b.Helper()
		cpu := cpuTime(b)
		start := time.Now()
		for b.Loop() {
			var wg sync.WaitGroup
			for range latencyCases {
				wg.Go(func() {
					p := provider()
					for range latencyTurns {
						if _, err := p.Complete(ctx, req, inference.NopObserver{}); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
		}
		turns := float64(b.N * latencyCases * latencyTurns)
		b.ReportMetric(float64(cpuTime(b)-cpu)/float64(time.Millisecond)/turns, "cpu-ms/turn")
		b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(latencyTurns*latency), "ideal-x")
	}
	b.Run("builtin", func(b *testing.B) {
		api, err := openai.New(inf)
		if err != nil {
			b.Fatal(err)
		}
		run(b, func() inference.Provider { return client.Provider(api) })
	})
	b.Run("driver", func(b *testing.B) {
		c := compileFixture(b)
		run(b, func() inference.Provider {
			f := bind(b, c, srv.URL, client.GuestClient())
			f.deadline = time.Minute // the fixture's turns queue for the CPU
			p, err := driver.New(nil).ForCase(ctx, inference.Case{ID: "c", Inference: inf, Driver: f})
			if err != nil {
				b.Fatal(err)
			}
			return p
		})
	})
}
