package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// TestGreenClosedPort: a run of 500 cases against a model endpoint nothing
// listens on, with default flags, stops starting cases within seconds (not
// ~90 s a case), prints one error naming the endpoint and the cause with a
// hint that fits it, marks the run incomplete and exits 3. Before, 4 cases
// took 3 min 10 s and the hint said to lower --workers.
func TestGreenClosedPort(t *testing.T) {
	qs := quickstart(t)
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String()
	l.Close()
	editFile(t, filepath.Join(qs, "murmur.yaml"), "endpoint: https://api.anthropic.com", "endpoint: "+endpoint)
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, `{"case_id": "case-%03d", "task": "What is %d times 7?"}`+"\n", i, i)
	}
	dataset := filepath.Join(qs, "cases-500.jsonl")
	if err := os.WriteFile(dataset, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(reachableTempDir(t), "run")
	r := runBinary(t, qs, "--dataset", dataset, "--out", out, "--driver", "builtin")
	t.Logf("500 cases against a closed port: exit %d in %s", r.code, r.elapsed.Round(time.Millisecond))
	if r.code != exitErrorBudget || r.elapsed > 30*time.Second {
		t.Fatalf("exit %d after %s, want %d within 30s\nstderr:\n%s", r.code, r.elapsed, exitErrorBudget, r.stderr)
	}
	if n := strings.Count(r.stderr, "error["+errcode.EndpointUnreachable+"]"); n != 1 {
		t.Errorf("%s printed %d times, want once\nstderr:\n%s", errcode.EndpointUnreachable, n, r.stderr)
	}
	for _, want := range []string{endpoint, "connection refused", "start the model server"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "--max-connections") {
		t.Errorf("a refused connection got the rate-limit hint:\n%s", r.stderr)
	}
	d := readDigest(t, out)
	if d.Complete || d.Planned != 500 || d.Ran >= 500 || d.Stopped != reports.StoppedEndpoint {
		t.Errorf("summary.json: complete %v, planned %d, ran %d, stopped %q; want an incomplete run of 500 stopped by the endpoint", d.Complete, d.Planned, d.Ran, d.Stopped)
	}
	if !strings.Contains(r.stdout, "Stopped (model endpoint unreachable): ") {
		t.Errorf("the summary does not say the run stopped:\n%s", r.stdout)
	}
}
