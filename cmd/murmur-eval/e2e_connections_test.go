package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// TestAdaptiveConnectionsUnder429Bursts runs the quickstart against a
// local stand-in for Anthropic's Messages API that answers 429 whenever
// more than two requests are in flight: with --max-connections 8 the
// endpoint's limit is halved and grows back, every case still ends with
// its expected status (none an error), summary.json says the range it ran
// at, logs/connections.jsonl has each change, and the terminal says so.
func TestAdaptiveConnectionsUnder429Bursts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	const allowed = 2
	var inflight, throttled atomic.Int32
	srv := anthropicFromRecordings(t, dir, func(string, int) *apitest.Reply {
		defer inflight.Add(-1)
		if inflight.Add(1) > allowed {
			throttled.Add(1)
			return &apitest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "10"}, Body: apitest.AnthropicError("rate_limit_error", "too many requests in flight")}
		}
		time.Sleep(30 * time.Millisecond) // a request holds its place for a while
		return nil
	})
	useEndpoint(t, dir, srv.URL)
	out := filepath.Join(reachableTempDir(t), "run")
	r := newFixture(t, dir).live().runInto(out, "--workers", "8", "--max-connections", "8", "--progress", "none", "--driver", "builtin")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	if throttled.Load() == 0 {
		t.Fatal("the server answered no 429: the test did not test anything")
	}
	expected := readExpectedStatuses(t, filepath.Join(dir, "expected-statuses.json"))
	for id, row := range resultsByCase(t, out) {
		if row["status"] != expected[id] {
			t.Errorf("case %q: status %v (%v), want %s", id, row["status"], row["error_code"], expected[id])
		}
	}
	d := readDigest(t, out)
	if len(d.Connections) != 1 {
		t.Fatalf("summary.json connections: %+v, want the one endpoint", d.Connections)
	}
	c := d.Connections[0]
	endpoint := srv.URL // http://127.0.0.1:port, as the limiter keys it
	if c.Endpoint != endpoint || c.MaxAllowed != 8 || c.Max != 8 || c.Min < 1 || c.Min > 4 || c.Decreases == 0 ||
		c.Final < 1 || c.Final > 8 || fmt.Sprint(c.Reasons) != "[429]" {
		t.Errorf("summary.json connections: got %+v, want %s with max_allowed 8, max 8, min in [1, 4], decreases, reasons [429]", c, endpoint)
	}
	lines := readLines(t, filepath.Join(out, "logs", "connections.jsonl"))
	if got, want := len(lines), c.Decreases+c.Increases; got != want {
		t.Errorf("logs/connections.jsonl: %d lines, want the %d changes", got, want)
	}
	limit := 8
	for i, l := range lines {
		var ch httpapi.ConnectionChange
		if err := json.Unmarshal([]byte(l), &ch); err != nil {
			t.Fatalf("logs/connections.jsonl:%d: %v", i+1, err)
		}
		want := limit + 1
		if ch.Reason != httpapi.ReasonRecovered {
			want = max(limit/2, 1)
		}
		if ch.Endpoint != endpoint || ch.From != limit || ch.To != want || ch.Time.IsZero() {
			t.Errorf("logs/connections.jsonl:%d: %s, want %s from %d to %d", i+1, l, endpoint, limit, want)
		}
		limit = ch.To
	}
	if limit != c.Final {
		t.Errorf("the log ends at %d, summary.json's final is %d", limit, c.Final)
	}
	if line := fmt.Sprintf("connections to %s: 8 -> %d after 429s, ran between %d and 8", endpoint, c.Min, c.Min); !strings.Contains(r.stdout, line) {
		t.Errorf("terminal summary: no %q in\n%s", line, r.stdout)
	}
}

// TestConnectionsFlagRefused: --connections takes adaptive or fixed.
func TestConnectionsFlagRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := quickstart(t)
	t.Parallel()
	r := runBinary(t, dir, "--dataset", filepath.Join(dir, "cases.jsonl"), "--out", filepath.Join(reachableTempDir(t), "run"), "--connections", "elastic")
	if r.code != exitUsage || !strings.Contains(r.stderr, `--connections "elastic": want adaptive or fixed`) {
		t.Errorf("exit %d, want %d naming --connections\nstderr:\n%s", r.code, exitUsage, r.stderr)
	}
}
