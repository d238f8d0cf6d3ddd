package driver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/driver"
	"github.com/murmur-nexus/murmur-eval/inference/drivertest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/sandbox/component"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// relay is testdata/relay.wat as a driver bound the way Launch binds one:
// its environment, its allow list and the run's guest client.
type relay struct {
	c       *component.Component
	env     []string
	network []capsule.AllowRule
	http    *http.Client
	denied  []string
}

func (r *relay) Run(ctx context.Context, payload []byte) (inference.DriverResult, error) {
	data := string(payload)
	res, err := r.c.RunTool(ctx, component.Env{Name: "relay", Env: r.env, Network: r.network, HTTP: r.http, Deadline: 10 * time.Second,
		OnHTTPDenied: func(t capsule.Target) { r.denied = append(r.denied, t.Entry()) }}, component.ToolInput{Data: &data})
	return inference.DriverResult{Status: res.Status, Summary: res.Summary, Data: res.Data, Metadata: res.Metadata}, err
}

func compileRelay(t *testing.T) *component.Component {
	t.Helper()
	return drivertest.Compile(t, componenttest.Fixture(t, "relay"))
}

type retries struct{ got []inference.Retry }

func (r *retries) Cached(bool)                   {}
func (r *retries) Retried(x inference.Retry)     { r.got = append(r.got, x) }
func (r *retries) Diverged(inference.Divergence) {}

// TestDriverComponentTurns: a driver component's turns through the run's
// guest client: a 429 is retried (reported once, with its Retry-After)
// and the canonical answer drives the turn; the API key reaches the
// endpoint; a 500 the driver turns into status error is a failed
// session's turn, not retried past the budget here; a driver whose allow
// list misses the endpoint is denied and fails its turn.
func TestDriverComponentTurns(t *testing.T) {
	c := compileRelay(t)
	var calls atomic.Int32
	var mode atomic.Value
	mode.Store("429")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("x-api-key") != "sk-test" || !strings.Contains(string(body), `"messages"`) {
			http.Error(w, "bad request: "+r.Header.Get("x-api-key"), http.StatusBadRequest)
			return
		}
		switch mode.Load() {
		case "429":
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
		case "400":
			http.Error(w, `{"error":"bad model","stop_reason":"error"}`, http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, `{"content":[{"text":"done","type":"text"}],"stop_reason":"end_turn"}`)
	}))
	defer srv.Close()
	client := httpapi.NewClient(httpapi.Options{MaxConnections: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	rule, err := capsule.ParseAllowEntry(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{c: c, env: []string{"MURMUR_INFERENCE_ENDPOINT=" + srv.URL, "MURMUR_INFERENCE_API_KEY=sk-test"},
		network: []capsule.AllowRule{rule}, http: client.GuestClient()}
	src := driver.New(nil)
	p, err := src.ForCase(context.Background(), inference.Case{ID: "a", Driver: r})
	if err != nil {
		t.Fatal(err)
	}
	req := &inference.Request{MaxTokens: 10, Model: "m", Messages: []inference.Message{inference.UserMessage("hi")}}
	obs := &retries{}
	resp, err := p.Complete(context.Background(), req, obs)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != inference.StopEndTurn || resp.Text() != "done" {
		t.Errorf("response %q %q, want end_turn done", resp.StopReason, resp.Text())
	}
	if len(obs.got) != 1 || obs.got[0].Status != 429 || obs.got[0].Reason != inference.RetryRateLimited || obs.got[0].RetryAfter == nil {
		t.Errorf("retries %+v, want the one 429 with its Retry-After", obs.got)
	}
	mode.Store("400")
	resp, err = p.Complete(context.Background(), req, inference.NopObserver{})
	if err != nil || !resp.DriverFailed || resp.Error != `{"error":"bad model","stop_reason":"error"}`+"\n" {
		t.Errorf("a 400 relayed as status error = %+v, %v; want DriverFailed with the body", resp, err)
	}
	r.network = nil
	before := calls.Load()
	resp, err = p.Complete(context.Background(), req, inference.NopObserver{})
	if err != nil || !resp.DriverFailed || resp.Error != "http error P" || calls.Load() != before {
		t.Errorf("denied driver = %+v, %v (%d requests); want DriverFailed \"http error P\" and no request", resp, err, calls.Load()-before)
	}
	if len(r.denied) != 1 || !strings.HasPrefix(srv.URL, r.denied[0]) {
		t.Errorf("denied %v, want %s", r.denied, srv.URL)
	}
}
