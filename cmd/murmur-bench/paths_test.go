package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// post sends body to the server's path with userAgent and returns the
// answer's status and body.
func post(t *testing.T, url, path, userAgent, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, got
}

// TestModelServerAnswersBothForms: a request to the endpoint's root (the
// relay fixture's, murmur's canonical driver request) gets a canonical
// response that inference.ParseResponse accepts; a request to
// /chat/completions an OpenAI chat completion; both call the ok tool until
// turns-1 tool results are in the conversation, then say "done".
func TestModelServerAnswersBothForms(t *testing.T) {
	srv, err := startModelServer(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	// Canonical messages carry content arrays, OpenAI's strings; both
	// answer a tool call with a message of role "tool".
	canonical := func(tools int) string {
		msgs := []string{`{"content":[{"text":"go","type":"text"}],"role":"user"}`}
		for i := range tools {
			msgs = append(msgs, fmt.Sprintf(`{"content":[{"id":"call_%d","input":{"q":"x"},"name":"ok","type":"tool_call"}],"role":"assistant"}`, i),
				fmt.Sprintf(`{"content":[{"text":"ok","type":"text"}],"is_error":false,"role":"tool","tool_call_id":"call_%d"}`, i))
		}
		return `{"max_tokens":1024,"messages":[` + strings.Join(msgs, ",") + `],"model":"bench-model","params":{},"system":"","tools":[]}`
	}
	openai := func(tools int) string {
		msgs := []string{`{"role":"user","content":"go"}`}
		for i := range tools {
			msgs = append(msgs, `{"role":"assistant","content":null}`, fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":"ok"}`, i))
		}
		return `{"model":"bench-model","messages":[` + strings.Join(msgs, ",") + `]}`
	}
	for tools, want := range []string{"tool_call call_0", "tool_call call_1", "end_turn done"} {
		code, body := post(t, srv.url, "/", "", canonical(tools))
		r, err := inference.ParseResponse(body)
		if code != http.StatusOK || err != nil {
			t.Fatalf("canonical, %d tool results: HTTP %d, ParseResponse: %v\n%s", tools, code, err, body)
		}
		got := r.StopReason + " " + r.Text()
		if calls := r.ToolCalls(); len(calls) == 1 {
			got = fmt.Sprintf("%s %s", r.StopReason, calls[0].ID)
			if calls[0].Name != "ok" || string(calls[0].Input) != `{"q":"x"}` {
				t.Errorf("canonical, %d tool results: call %+v, want ok with {\"q\":\"x\"}", tools, calls[0])
			}
		}
		if got != want {
			t.Errorf("canonical, %d tool results: %q, want %q\n%s", tools, got, want, body)
		}
		if r.Usage == nil || r.Usage.InputTokens == 0 {
			t.Errorf("canonical, %d tool results: no usage\n%s", tools, body)
		}
	}
	for tools, want := range []string{"tool_calls", "tool_calls", "stop"} {
		code, body := post(t, srv.url, "/chat/completions", "murmur-eval", openai(tools))
		var c struct {
			Choices []struct {
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(body, &c); code != http.StatusOK || err != nil || len(c.Choices) != 1 {
			t.Fatalf("OpenAI, %d tool results: HTTP %d, %v\n%s", tools, code, err, body)
		}
		if got := c.Choices[0].FinishReason; got != want {
			t.Errorf("OpenAI, %d tool results: finish_reason %q, want %q", tools, got, want)
		}
	}
	if got, want := [3]int64{srv.requests.Load(), srv.canonical.Load(), srv.builtin.Load()}, [3]int64{6, 3, 3}; got != want {
		t.Errorf("requests, canonical, built-in = %v, want %v", got, want)
	}
}

// TestModelServerCheckPath: a run's path is refused when a request came
// the other path's way.
func TestModelServerCheckPath(t *testing.T) {
	srv, err := startModelServer(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	const req = `{"messages":[]}`
	for _, tt := range []struct {
		name, path, userAgent string
		builtinOK, driverOK   bool
	}{
		{"relay fixture", "/", "", false, true},
		{"murmur's driver (a guest's request)", "/chat/completions", "", true, true},
		{"built-in provider", "/chat/completions", "murmur-eval", true, false},
	} {
		srv.resetStats()
		if code, body := post(t, srv.url, tt.path, tt.userAgent, req); code != http.StatusOK {
			t.Fatalf("%s: HTTP %d: %s", tt.name, code, body)
		}
		if err := srv.checkPath(pathBuiltin); (err == nil) != tt.builtinOK {
			t.Errorf("%s: checkPath(builtin) = %v, want ok %v", tt.name, err, tt.builtinOK)
		}
		if err := srv.checkPath(pathDriver); (err == nil) != tt.driverOK {
			t.Errorf("%s: checkPath(driver) = %v, want ok %v", tt.name, err, tt.driverOK)
		}
	}
}

func TestParsePaths(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  []string
	}{
		{"builtin,driver", []string{"builtin", "driver"}},
		{"driver, builtin", []string{"driver", "builtin"}},
		{"driver", []string{"driver"}},
		{"", nil},
		{"builtin,builtin", nil},
		{"installed", nil},
	} {
		got, err := parsePaths(tt.value)
		if (err == nil) != (tt.want != nil) {
			t.Errorf("parsePaths(%q) error %v, want ok %v", tt.value, err, tt.want != nil)
		}
		if diff := cmp.Diff(tt.want, got); err == nil && diff != "" {
			t.Errorf("parsePaths(%q) (-want +got):\n%s", tt.value, diff)
		}
	}
}

// TestSideBySide: the medians of each path's runs at a point, and the
// driver path's over the built-in's, paired by suite and point, and the
// table printing them.
func TestSideBySide(t *testing.T) {
	run := func(wall, cpu, rss float64) childRun { return childRun{RunWallS: wall, CPUS: cpu, MaxRSSMiB: rss} }
	b := []childRun{run(2, 1, 100), run(1, 0.8, 90), run(4, 1.2, 110)}  // 1,000 cases: 1 ms CPU a case (median)
	d := []childRun{run(2.5, 3, 400), run(2, 2, 300), run(3, 2.5, 350)} // 2.5 ms, 350 MiB
	rep := &report{Size: sizes{Delay: 50 * time.Millisecond, Turns: 3},
		Waiting:       []waitResult{{waitPoint: waitPoint{Cases: 1000, Workers: 250, Delay: time.Second, Turns: 1}, IdealS: 4, Runs: b}},
		WaitingDriver: []waitResult{{waitPoint: waitPoint{Cases: 1000, Workers: 250, Delay: time.Second, Turns: 1}, IdealS: 4, Runs: d}},
		// No driver-path scaling results: the scaling point is not paired.
		Scaling: []scalingResult{{Workers: 8, Cases: 16, IdealS: 0.3, Runs: b}},
	}
	got := sideBySideRows(rep)
	want := []sideBySide{{Suite: "waiting", Workers: 250, Cases: 1000, Delay: time.Second, Turns: 1, IdealS: 4,
		Builtin: pathFigures{RunWallS: 2, OfBound: 2, CPUPerCaseMS: 1, MaxRSSMiB: 100, Runs: 3},
		Driver:  pathFigures{RunWallS: 2.5, OfBound: 4 / 2.5, CPUPerCaseMS: 2.5, MaxRSSMiB: 350, Runs: 3},
		WallX:   1.25, CPUX: 2.5, RSSX: 3.5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sideBySideRows (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	sideBySideTable(&out, got)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("table: %d lines, want a header and a row:\n%s", len(lines), out.String())
	}
	for _, s := range []string{"built-in wall s", "driver wall s", "CPU x", "RSS x"} {
		if !strings.Contains(lines[0], s) {
			t.Errorf("header %q lacks %q", lines[0], s)
		}
	}
	if got, want := strings.Fields(strings.ReplaceAll(lines[1], "\t", " ")),
		strings.Fields("waiting 250 1000 1s 1 4.00 2.00 2.00 1.000 100.0 2.50 1.60 2.500 350.0 1.25 2.50 3.50"); !cmp.Equal(got, want) {
		t.Errorf("row %q, want %q", got, want)
	}
}

// TestLoadDriver: without a file the relay fixture is found from a folder
// below the module root; a given file is installed as murmur-driver-openai;
// a file that is no WebAssembly, or none, is refused.
func TestLoadDriver(t *testing.T) {
	relay, err := loadDriver("", ".")
	if err != nil {
		t.Fatalf("relay fixture: %v", err)
	}
	if relay.Name != "relay-driver" || relay.Given || !strings.HasSuffix(filepath.ToSlash(relay.File), relayFixture) || relay.Bytes != len(relay.wasm) || len(relay.SHA256) != 64 {
		t.Errorf("relay fixture: %+v", relay)
	}
	dir := t.TempDir()
	given := filepath.Join(dir, "d.wasm")
	if err := os.WriteFile(given, relay.wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := loadDriver(given, dir)
	if err != nil || d.Name != "murmur-driver-openai" || !d.Given || d.SHA256 != relay.SHA256 {
		t.Errorf("given driver: %+v, %v", d, err)
	}
	notWasm := filepath.Join(dir, "x.wasm")
	if err := os.WriteFile(notWasm, []byte("not a module"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{notWasm, filepath.Join(dir, "missing.wasm")} {
		if _, err := loadDriver(f, dir); err == nil {
			t.Errorf("loadDriver(%s) succeeded", f)
		}
	}
	if _, err := findUp(dir, "no/such/file"); err == nil {
		t.Error("findUp found a file that does not exist")
	}
}

// TestCapsuleManifests: the bench capsule's murmur.yaml parses as murmur's
// format with and without an installed driver (declared under artifacts
// as a driver, named by inference.driver), and the driver's own manifest
// parses as a packed artifact's.
func TestCapsuleManifests(t *testing.T) {
	drv := &benchDriver{Name: "relay-driver"}
	for _, tt := range []struct {
		drv       *benchDriver
		driver    string
		artifacts []string
	}{
		{nil, "murmur-driver-openai", []string{"ok tool"}},
		{drv, "relay-driver", []string{"ok tool", "relay-driver driver"}},
	} {
		path := filepath.Join(t.TempDir(), "murmur.yaml")
		if err := os.WriteFile(path, []byte(capsuleText("http://127.0.0.1:9", tt.drv)), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := capsule.LoadManifest(path, func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("driver %s: %v", tt.driver, err)
		}
		var got []string
		for _, a := range m.Artifacts {
			got = append(got, a.Name+" "+string(a.Runtime))
		}
		if diff := cmp.Diff(tt.artifacts, got); diff != "" || m.Inference.DriverArtifact != tt.driver || len(m.UnknownKeys) > 0 {
			t.Errorf("driver %s: artifacts (-want +got):\n%s; inference.driver %q, unknown keys %v", tt.driver, diff, m.Inference.DriverArtifact, m.UnknownKeys)
		}
	}
	am, err := capsule.ParseArtifactManifest("murmur.yaml", []byte(drv.manifest()))
	if err != nil || am.Name != "relay-driver" || am.Runtime != "driver" || !cmp.Equal(am.RequiresFiles, []string{"relay-driver.wasm"}) {
		t.Errorf("driver manifest: %+v, %v", am, err)
	}
}
