package drivertest_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/drivertest"
	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
)

// fixture is the OpenAI driver fixture bound as Launch binds a driver:
// murmur's environment, the endpoint's allow list, an HTTP client.
type fixture struct {
	c        *component.Component
	env      []string
	network  []capsule.AllowRule
	http     *http.Client
	deadline time.Duration
	denied   []capsule.Target
}

func (f *fixture) Run(ctx context.Context, payload []byte) (inference.DriverResult, error) {
	data := string(payload)
	res, err := f.c.RunTool(ctx, component.Env{Name: "openai-driver", Env: f.env, Network: f.network, HTTP: f.http,
		Deadline:     f.deadline,
		OnHTTPDenied: func(t capsule.Target) { f.denied = append(f.denied, t) }}, component.ToolInput{Data: &data})
	return inference.DriverResult{Status: res.Status, Summary: res.Summary, Data: res.Data, Metadata: res.Metadata}, err
}

// compiled is the committed fixture compiled once for the test binary:
// wazero's compiler takes ~10 s of CPU on the 3.5 MB Go driver under the
// race detector, and a component is compiled once per run and shared
// read-only by every call (as Verify does), so the tests share it too.
// Its engine is closed by TestMain.
var compiled struct {
	once   sync.Once
	c      *component.Component
	err    error
	engine *sandbox.Engine
}

func TestMain(m *testing.M) {
	code := m.Run()
	if compiled.engine != nil {
		_ = compiled.engine.Close(context.Background())
	}
	os.Exit(code)
}

// compileFixture returns the committed fixture compiled for the driver
// world, compiled on first use.
func compileFixture(t testing.TB) *component.Component {
	t.Helper()
	bin := drivertest.OpenAIDriver(t)
	compiled.once.Do(func() {
		ctx := context.Background()
		compiled.engine, compiled.err = sandbox.NewEngine(ctx, sandbox.Config{})
		if compiled.err != nil {
			return
		}
		var b *component.Binary
		if b, compiled.err = component.Decode(bin); compiled.err == nil {
			compiled.c, compiled.err = component.Compile(ctx, compiled.engine.Runtime(), b, component.WorldDriver)
		}
	})
	if compiled.err != nil {
		t.Fatalf("compile the driver fixture: %v", compiled.err)
	}
	return compiled.c
}

// bind binds c to endpoint (an http:// URL), allowing its host:port.
func bind(t testing.TB, c *component.Component, endpoint string, hc *http.Client) *fixture {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := capsule.ParseAllowEntry(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{c: c, network: []capsule.AllowRule{rule}, http: hc, deadline: 10 * time.Second,
		env: []string{"MURMUR_INFERENCE_TRANSPORT=http", "MURMUR_INFERENCE_ENDPOINT=" + endpoint,
			"MURMUR_INFERENCE_MODEL=gpt-4o", "MURMUR_INFERENCE_DRIVER=murmur-driver-openai", "MURMUR_INFERENCE_API_KEY=sk-test"}}
}
