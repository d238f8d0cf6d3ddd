package driver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference/drivertest"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// BenchmarkDriverTurn is one model turn through an OpenAI driver component
// as every turn of a run takes it: an instance (reset from an earlier turn
// when the component can be reused, else instantiated with its linear
// memory from the component's pool), the guest's request over wasi:http to
// a local server answering at once, its canonical answer, the instance's
// reset (or close). Two goroutines a core, under murmur's default memory
// limit (512 MiB). The driver is the tests' own (drivertest.OpenAIDriver,
// built by Go), or the component at MURMUR_EVAL_BENCH_DRIVER, such as
// murmur's murmur-driver-openai.wasm (BENCHMARKS.md, issue 38).
func BenchmarkDriverTurn(b *testing.B) {
	c := drivertest.Compile(b, benchDriver(b))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeAnswer(w) }))
	defer srv.Close()
	env := benchEnv(b, srv.URL, srv.Client(), 10*time.Second)
	data := benchPayload
	b.ReportAllocs()
	b.SetParallelism(2)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := c.RunTool(context.Background(), env, component.ToolInput{Data: &data})
			if err != nil || res.Status != "passed" {
				b.Fatalf("turn: %v (status %q, summary %v)", err, res.Status, res.Summary)
			}
		}
	})
}

// benchPayload is the driver's input for a one-message turn.
const benchPayload = `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":"Say hello."}]}],` +
	`"tools":[],"params":{},"system":"You are a test."}`

// benchDriver is the driver the benchmarks run: the component at
// MURMUR_EVAL_BENCH_DRIVER, such as murmur's murmur-driver-openai.wasm,
// else the tests' own (drivertest.OpenAIDriver).
func benchDriver(b *testing.B) []byte {
	path := os.Getenv("MURMUR_EVAL_BENCH_DRIVER")
	if path == "" {
		return drivertest.OpenAIDriver(b)
	}
	bin, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return bin
}

// benchEnv is a driver call's environment against the server at url:
// its allow list, the endpoint, key and model, murmur's default memory
// limit.
func benchEnv(b *testing.B, url string, client *http.Client, deadline time.Duration) component.Env {
	rule, err := capsule.ParseAllowEntry(url)
	if err != nil {
		b.Fatal(err)
	}
	return component.Env{Name: "driver", Network: []capsule.AllowRule{rule}, HTTP: client,
		Env:      []string{"MURMUR_INFERENCE_ENDPOINT=" + url + "/v1", "MURMUR_INFERENCE_API_KEY=k", "MURMUR_INFERENCE_MODEL=m"},
		Deadline: deadline, MemoryLimitBytes: capsule.DefaultMemoryBytes}
}

// writeAnswer writes an OpenAI-format chat completion saying "Hello.".
func writeAnswer(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop",` +
		`"message":{"role":"assistant","content":"Hello."}}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`))
}
