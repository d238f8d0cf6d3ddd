package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// session writes a session folder with the files Load reads.
func session(t *testing.T, transcriptData []byte) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		taskFile:   "what is 6*7?",
		traceFile:  `{"event_type":"session_start","turn":null}` + "\n" + `{"event_type":"network_denied","turn":0,"target":"http://evil.example"}` + "\n",
		evalFile:   `{"record_type":"event_score","scorer":"exit_ok","result":"pass","score":1,"reason":"exit_status=ok"}` + "\n" + `{"record_type":"dataset_run"}` + "\n",
		resultFile: "42",
		diffFile:   "--- a/x\n+++ b/x\n",
	}
	if transcriptData != nil {
		files[FileName] = string(transcriptData)
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoad(t *testing.T) {
	s, err := Load(session(t, record().Encode()), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if s.Task != "what is 6*7?" || s.Result != "42" || s.Transcript == nil || s.Transcript.Turns() != 2 ||
		len(s.Trace) != 2 || len(s.Scores) != 1 || s.Scores[0].Reason != "exit_status=ok" || s.Diff == "" || len(s.Problems) != 0 {
		t.Errorf("loaded %+v", s)
	}
}

// A file a tool replaced with a link out of the folder is named as a
// problem, never read; a file past its limit is cut at a line's end.
func TestLoadHostileFolder(t *testing.T) {
	dir := session(t, nil)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, filepath.FromSlash(FileName))); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir, Limits{Transcript: 1 << 20, Trace: 50, Small: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if s.Transcript != nil || len(s.Problems) != 1 || !strings.HasPrefix(s.Problems[0], FileName) {
		t.Errorf("a linked transcript: transcript %+v, problems %q", s.Transcript, s.Problems)
	}
	if len(s.Trace) != 1 || len(s.Cut) != 1 || s.Cut[0] != traceFile {
		t.Errorf("a trace past its limit: %d events, cut %q", len(s.Trace), s.Cut)
	}
}

func TestWriteText(t *testing.T) {
	r := New()
	r.Start("m", "sys", nil, "task")
	r.Turn(0, "d", "tool_call", []byte(`[{"type":"text","text":"\u001b[31mred\u202e"},{"type":"tool_call","id":"c","name":"big","input":{}}]`), "", nil, nil)
	r.ToolResult(0, "c", "big", true, strings.Repeat("y", 5000), "E-RUN-001")
	s, err := Load(session(t, r.Encode()), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, colour := range []bool{false, true} {
		var b bytes.Buffer
		if err := s.WriteText(&b, TextOptions{Colour: colour, MaxText: 1000}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		plain := strings.NewReplacer(bold, "", dim, "", red, "", green, "", cyan, "", reset, "").Replace(out)
		if strings.ContainsAny(plain, "\x1b\u202e") {
			t.Errorf("colour %v: an escape from the session reached the output:\n%q", colour, out)
		}
		if strings.Contains(out, "\x1b") != colour {
			t.Errorf("colour %v: output has escapes %v", colour, !colour)
		}
		for _, want := range []string{`\u001b[31mred\u202e`, "← big (error E-RUN-001):", "… 4000 more bytes in ", "network_denied (turn 0)", "pass exit_ok: exit_status=ok", "workspace diff"} {
			if !strings.Contains(plain, want) {
				t.Errorf("colour %v: output lacks %q:\n%s", colour, want, plain)
			}
		}
	}
}
