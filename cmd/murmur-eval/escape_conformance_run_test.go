//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
)

// The harness of TestEscapeConformance: the capsule and dataset of one run,
// the scripted model, the probe's staging, and reading each case's verdict.

// ecRunSpec is one murmur-eval run of some of the cases.
type ecRunSpec struct {
	name, base, modelURL string
	tight                bool
	cases                []ecCase
	args                 map[string]string // case id -> the probe's extra arguments
	probes               map[string]string // file name -> source
	runtimeDirs          []ecRuntimeDir
	leakFD               bool // start murmur-eval holding a host file on descriptor 7
}

// ecRunResult is a finished run: its folder and its rows by case.
type ecRunResult struct {
	out  string
	rows map[string]map[string]any
}

// ecRun writes the capsule and the dataset, runs the binary on them with a
// preflight case first, and returns the rows. A preflight that did not
// report SUCCESS stops the test: nothing else could have been measured.
func ecRun(t *testing.T, spec ecRunSpec) ecRunResult {
	t.Helper()
	capsule := filepath.Join(spec.base, "capsule-"+spec.name)
	if err := os.MkdirAll(capsule, 0o755); err != nil {
		t.Fatal(err)
	}
	var manifest strings.Builder
	fmt.Fprintf(&manifest, `name: escape-conformance-%s
version: 0.1.0
inference:
  transport: http
  endpoint: %s
  model: gpt-4o
  api_key: sk-escape-conformance
  driver:
    artifact: murmur-driver-openai
  max_turns: 3
capabilities:
  containment: scoped
  network:
    allow: [%q]
  shell:
    allow: [bash, python3]
    interpreter_runtime:
      - binary: python3
        dirs:
`, spec.name, spec.modelURL, spec.modelURL)
	for _, d := range spec.runtimeDirs {
		fmt.Fprintf(&manifest, "          - path: %q\n            list_dir: %v\n", d.path, d.listDir)
	}
	if spec.tight {
		manifest.WriteString(ecTightResources)
	}
	manifest.WriteString("trace:\n  include_tool_output: true\n")
	writeFile(t, filepath.Join(capsule, "murmur.yaml"), manifest.String())

	var dataset bytes.Buffer
	cases := append([]ecCase{{id: "preflight"}}, spec.cases...)
	for _, c := range cases {
		command := strings.TrimSpace("ecprobe.py " + c.id + " " + spec.args[c.id])
		line, err := json.Marshal(map[string]any{
			"case_id": c.id,
			"task":    "Run the escape-conformance probe: `" + command + "`",
			"setup":   ecSetup(spec.probes, c.id == "exec-renamed-disallowed-binary"),
		})
		if err != nil {
			t.Fatal(err)
		}
		dataset.Write(append(line, '\n'))
	}
	writeFile(t, filepath.Join(capsule, "cases.jsonl"), dataset.String())

	out := filepath.Join(spec.base, "run-"+spec.name)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := newFixture(t, capsule).live().start(ctx, out, "--workers", "4", "--timeout", "90s", "--max-error-rate", "1", "--driver", "builtin")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "PATH=") {
			cmd.Env[i] = "PATH=/usr/bin:/bin" // python3 is the system's, not a version manager's shim
		}
	}
	if spec.leakFD {
		leaked := "/etc/hostname"
		if _, err := os.Stat(leaked); err != nil {
			leaked = "/etc/passwd"
		}
		f, err := os.Open(leaked)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, f} // descriptor 3+4 = 7
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("%s run: %v\nstderr:\n%s", spec.name, err, stderr.String())
	}
	t.Logf("%s run: %d cases in %s, exit %d", spec.name, len(cases), time.Since(start).Round(time.Millisecond), cmd.ProcessState.ExitCode())
	res := ecRunResult{out: out, rows: resultsByCase(t, out)}
	if pre := res.grade(t, ecCase{id: "preflight"}); pre.verdict != "SUCCESS" {
		t.Fatalf("%s run: the preflight probe did not run (%s: %s), so no case measured anything\nstderr:\n%s",
			spec.name, pre.verdict, pre.detail, stderr.String())
	}
	return res
}

// grade reads case c's verdict from its evidence.
func (r ecRunResult) grade(t *testing.T, c ecCase) ecObservation {
	t.Helper()
	row := r.rows[c.id]
	if row == nil {
		return ecObservation{verdict: "INCONCLUSIVE", detail: "no row in results.parquet"}
	}
	sdir := filepath.Join(r.out, filepath.FromSlash(fmt.Sprint(row["session_dir"])))
	code, _ := row["error_code"].(string)
	rowNote := fmt.Sprintf("row: status %v, error %v %v", row["status"], row["error_code"], row["error_message"])
	if code == errcode.SetupFailed {
		return ecObservation{verdict: "INCONCLUSIVE", detail: "the setup that stages the probe failed; " + rowNote}
	}
	probe := ecReadVerdict(sdir)
	var call, shell map[string]any
	if _, err := os.Stat(filepath.Join(sdir, "trace.jsonl")); err == nil {
		call, shell = toolEvents(t, filepath.Join(sdir, "trace.jsonl"))
	}
	toolNote := "the tool never ran"
	if call != nil {
		toolNote = "the tool said: " + strings.Join(strings.Fields(fmt.Sprint(call["output"])), " ")
		if len(toolNote) > 400 {
			toolNote = toolNote[:400] + "..."
		}
	}
	switch c.grade {
	case ecShellExit:
		if shell == nil {
			return ecObservation{verdict: "INCONCLUSIVE", detail: "no shell event; " + toolNote + "; " + rowNote}
		}
		if shell["exit_code"] == float64(137) {
			return ecObservation{verdict: "CONTAINED", detail: "the shell tool exited 137 (SIGKILL)"}
		}
		return ecObservation{verdict: "UNCONTAINED", detail: fmt.Sprintf("the shell tool exited %v, not 137; the probe: %s %s", shell["exit_code"], probe.verdict, probe.detail)}
	case ecRunError:
		if code == errcode.RunWorkdirSize {
			return ecObservation{verdict: "CONTAINED", detail: fmt.Sprintf("the case ended with %s: %v", code, row["error_message"])}
		}
		if probe.verdict == "UNCONTAINED" {
			return ecObservation{verdict: "UNCONTAINED", detail: probe.detail + "; " + rowNote}
		}
		return ecObservation{verdict: "INCONCLUSIVE", detail: "no " + errcode.RunWorkdirSize + "; the probe: " + probe.verdict + " " + probe.detail + "; " + rowNote}
	}
	if probe.verdict == "" {
		return ecObservation{verdict: "INCONCLUSIVE", detail: "no verdict file (a missing result is not a clean one); " + toolNote + "; " + rowNote}
	}
	return probe
}

// ecReadVerdict parses the probe's verdict file in the session folder sdir;
// a zero value when there is none.
func ecReadVerdict(sdir string) ecObservation {
	b, err := os.ReadFile(filepath.Join(sdir, ecVerdictFile))
	if err != nil {
		return ecObservation{}
	}
	var o ecObservation
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "VERDICT":
			o.verdict = v
		case "DETAIL":
			o.detail = v
		}
	}
	return o
}

// ecSetup is a case's setup command: it writes the probe's files into the
// session folder (and, for the renamed-binary case, copies ls there as
// ./bash, as murmur's harness does on the host before its run).
func ecSetup(probes map[string]string, renamedLS bool) []string {
	script := `while [ $# -gt 1 ]; do printf '%s' "$2" > "$1" || exit 1; shift 2; done`
	if renamedLS {
		script = `{ cp /usr/bin/ls bash || cp /bin/ls bash; } && chmod 0755 bash && ` + script
	}
	argv := []string{"sh", "-c", script, "stage"}
	for _, name := range slices.Sorted(maps.Keys(probes)) {
		argv = append(argv, name, probes[name])
	}
	return argv
}

// ecProbeSources reads the probe's Python files.
func ecProbeSources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "escape-conformance", "*.py"))
	if err != nil || len(files) == 0 {
		t.Fatalf("probe sources: %v %v", files, err)
	}
	m := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = string(b)
	}
	return m
}

// ecRuntimeDir is one shell.interpreter_runtime folder.
type ecRuntimeDir struct {
	path    string
	listDir bool
}

// pythonRuntimeDirs asks the interpreter where its standard library is, as
// murmur's harness does, rather than naming one Python version's folders:
// the library (listable: imports list folders), its C extensions' folder,
// and the multiarch library folder that holds libffi for ctypes.
func pythonRuntimeDirs(t *testing.T, python string) []ecRuntimeDir {
	t.Helper()
	out, err := exec.Command(python, "-c", `import sysconfig
p = sysconfig.get_paths()
print(p["stdlib"]); print(p.get("platstdlib") or p["stdlib"]); print(sysconfig.get_config_var("MULTIARCH") or "")`).Output()
	if err != nil {
		t.Fatalf("%s: its own paths: %v", python, err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 || !filepath.IsAbs(lines[0]) {
		t.Fatalf("%s: its own paths: %q", python, out)
	}
	dirs := []ecRuntimeDir{{lines[0], true}}
	add := func(p string, list bool) {
		if st, err := os.Stat(p); err == nil && st.IsDir() && !slices.ContainsFunc(dirs, func(d ecRuntimeDir) bool { return d.path == p }) {
			dirs = append(dirs, ecRuntimeDir{p, list})
		}
	}
	add(lines[1], true)
	add(filepath.Join(lines[0], "lib-dynload"), false)
	add(filepath.Join(lines[1], "lib-dynload"), false)
	if lines[2] != "" {
		add(filepath.Join("/usr/lib", lines[2]), false)
	}
	return dirs
}

// ecBaseDir is a folder the tool user can reach, on the file system that
// holds /etc: the hard-link and rename cases must meet the sandbox, not a
// file system boundary (EXDEV, which murmur's rules read as INCONCLUSIVE).
func ecBaseDir(t *testing.T) string {
	t.Helper()
	var etc syscall.Stat_t
	if err := syscall.Stat("/etc", &etc); err != nil {
		t.Fatal(err)
	}
	parent := os.TempDir()
	for _, p := range []string{os.TempDir(), "/var/tmp"} {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && st.Dev == etc.Dev {
			parent = p
			break
		}
	}
	dir, err := os.MkdirTemp(parent, "escape-conformance-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ecToken is a random label part, so the host-side receivers recognise what
// this run's probes sent.
func ecToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// ecModel is the scripted model: its first answer in a case calls the
// python3 tool with the command the task names, its second ends the case.
func ecModel(t *testing.T) *httptest.Server {
	t.Helper()
	probe := regexp.MustCompile("`(ecprobe\\.py [^`]*)`")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		command, turn := "", 0
		for _, m := range req.Messages {
			var text string
			if json.Unmarshal(m.Content, &text) != nil {
				text = string(m.Content)
			}
			if m.Role == "user" && command == "" {
				if sub := probe.FindStringSubmatch(text); sub != nil {
					command = sub[1]
				}
			}
			if m.Role == "assistant" {
				turn++
			}
		}
		var answer string
		switch {
		case command == "":
			http.Error(w, apitest.OpenAIError("invalid_request_error", "", "no probe command in the task"), http.StatusBadRequest)
			return
		case turn == 0:
			input, _ := json.Marshal(map[string]string{"command": command})
			answer = apitest.OpenAICompletion("tool_calls", "", 10, 5, apitest.OpenAIToolCall("call_probe", "python3", string(input)))
		default:
			answer = apitest.OpenAICompletion("stop", "done", 10, 1)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}
