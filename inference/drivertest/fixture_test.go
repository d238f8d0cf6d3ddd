package drivertest_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/drivertest"
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

// compileFixture compiles the committed fixture for the driver world.
func compileFixture(t testing.TB) *component.Component {
	t.Helper()
	return drivertest.Compile(t, drivertest.OpenAIDriver(t))
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
