package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseToolResult(t *testing.T) {
	tests := []struct {
		name     string
		out      *Output
		want     ToolResult
		wantText string
	}{
		{"json passed",
			&Output{Stdout: []byte(`{"status":"passed","summary":"ok","data":"42 results"}` + "\n")},
			ToolResult{Status: StatusPassed, Summary: "ok", HasSummary: true, Data: "42 results", HasData: true},
			"42 results"},
		{"json failed keeps failed",
			&Output{Stdout: []byte(`{"status":"failed","summary":"no match"}`), ExitCode: 1},
			ToolResult{Status: StatusFailed, Summary: "no match", HasSummary: true},
			"no match"},
		{"json surrounded by whitespace",
			&Output{Stdout: []byte("\n\t {\"status\":\"passed\"}  \n")},
			ToolResult{Status: StatusPassed},
			"tool returned no data"},
		{"status is case-sensitive",
			&Output{Stdout: []byte(`{"status":"PASSED","data":"x"}`)},
			ToolResult{Status: StatusError, Data: "x", HasData: true},
			"x"},
		{"status missing",
			&Output{Stdout: []byte(`{"summary":"s"}`)},
			ToolResult{Status: StatusError, Summary: "s", HasSummary: true},
			"s"},
		{"status not a string",
			&Output{Stdout: []byte(`{"status":true}`)},
			ToolResult{Status: StatusError},
			"tool returned no data"},
		{"bare number is an error",
			&Output{Stdout: []byte(`42`)},
			ToolResult{Status: StatusError},
			"tool returned no data"},
		{"bare json string is an error",
			&Output{Stdout: []byte(`"hello"`)},
			ToolResult{Status: StatusError},
			"tool returned no data"},
		{"json array is an error",
			&Output{Stdout: []byte(`[{"status":"passed"}]`)},
			ToolResult{Status: StatusError},
			"tool returned no data"},
		{"data object re-serialized compactly with sorted keys",
			&Output{Stdout: []byte(`{"status":"passed","data":{ "b" : 1, "a" : [1, 2.50, "<x>&"] }}`)},
			ToolResult{Status: StatusPassed, Data: `{"a":[1,2.50,"<x>&"],"b":1}`, HasData: true},
			`{"a":[1,2.50,"<x>&"],"b":1}`},
		{"data number",
			&Output{Stdout: []byte(`{"status":"passed","data":3}`)},
			ToolResult{Status: StatusPassed, Data: "3", HasData: true},
			"3"},
		{"data false",
			&Output{Stdout: []byte(`{"status":"passed","data":false}`)},
			ToolResult{Status: StatusPassed, Data: "false", HasData: true},
			"false"},
		{"data null is absent",
			&Output{Stdout: []byte(`{"status":"passed","summary":"sum","data":null}`)},
			ToolResult{Status: StatusPassed, Summary: "sum", HasSummary: true},
			"sum"},
		{"empty data string is present",
			&Output{Stdout: []byte(`{"status":"passed","summary":"sum","data":""}`)},
			ToolResult{Status: StatusPassed, Summary: "sum", HasSummary: true, HasData: true},
			""},
		{"summary not a string is absent",
			&Output{Stdout: []byte(`{"status":"passed","summary":7}`)},
			ToolResult{Status: StatusPassed},
			"tool returned no data"},
		{"ignored fields",
			&Output{Stdout: []byte(`{"status":"passed","data_path":"logs/x","truncated":true,"extra":1}`)},
			ToolResult{Status: StatusPassed},
			"tool returned no data"},
		{"metadata pairs kept in order, malformed ones dropped",
			&Output{Stdout: []byte(`{"status":"passed","metadata":[["state_effect","write"],["resource_id",""],["resource_id","r2"],["odd"],[1,2],"x"]}`)},
			ToolResult{Status: StatusPassed, Metadata: [][2]string{{"state_effect", "write"}, {"resource_id", ""}, {"resource_id", "r2"}}},
			"tool returned no data"},
		{"non-json stdout exit 0 passes",
			&Output{Stdout: []byte("plain text answer\n"), Stderr: []byte("ignored")},
			ToolResult{Status: StatusPassed, Summary: "tool 'probe' completed", HasSummary: true, Data: "plain text answer", HasData: true},
			"plain text answer"},
		{"non-json stdout non-zero exit is an error, never failed",
			&Output{Stdout: []byte("partial"), ExitCode: 1},
			ToolResult{Status: StatusError, Summary: "tool 'probe' completed", HasSummary: true, Data: "partial", HasData: true},
			"partial"},
		{"json with trailing text is not json",
			&Output{Stdout: []byte(`{"status":"passed"} trailing`)},
			ToolResult{Status: StatusPassed, Summary: "tool 'probe' completed", HasSummary: true, Data: `{"status":"passed"} trailing`, HasData: true},
			`{"status":"passed"} trailing`},
		{"invalid utf-8 replaced",
			&Output{Stdout: []byte("a\xffb")},
			ToolResult{Status: StatusPassed, Summary: "tool 'probe' completed", HasSummary: true, Data: "a\uFFFDb", HasData: true},
			"a\uFFFDb"},
		{"empty stdout exit 0 without stderr",
			&Output{},
			ToolResult{Status: StatusPassed, Summary: "tool 'probe' exited with 0", HasSummary: true},
			"tool 'probe' exited with 0"},
		{"whitespace stdout counts as empty",
			&Output{Stdout: []byte(" \n\t"), Stderr: []byte("warning: x\n")},
			ToolResult{Status: StatusPassed, Summary: "tool 'probe' exited with 0", HasSummary: true, Data: "warning: x\n", HasData: true},
			"warning: x\n"},
		{"empty stdout non-zero exit gives stderr",
			&Output{Stderr: []byte("panic: boom\n"), ExitCode: 2},
			ToolResult{Status: StatusError, Summary: "tool 'probe' exited with 2", HasSummary: true, Data: "panic: boom\n", HasData: true},
			"panic: boom\n"},
		{"nil output",
			nil,
			ToolResult{Status: StatusPassed, Summary: "tool 'probe' exited with 0", HasSummary: true},
			"tool 'probe' exited with 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseToolResult("probe", tt.out)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseToolResult (-want +got):\n%s", diff)
			}
			if text := got.Text(); text != tt.wantText {
				t.Errorf("Text() = %q, want %q", text, tt.wantText)
			}
			if got.IsError() != (tt.want.Status != StatusPassed) {
				t.Errorf("IsError() = %v for status %q", got.IsError(), got.Status)
			}
		})
	}
}

func TestToolResultMeta(t *testing.T) {
	r := ToolResult{Metadata: [][2]string{{"state_effect", "write"}, {"resource_id", ""}, {"resource_id", "r2"}}}
	tests := []struct {
		key    string
		want   string
		wantOK bool
	}{
		{"state_effect", "write", true},
		{"resource_id", "", false}, // the first pair decides, even when empty
		{"continuation_id", "", false},
	}
	for _, tt := range tests {
		if got, ok := r.Meta(tt.key); got != tt.want || ok != tt.wantOK {
			t.Errorf("Meta(%q) = %q, %v; want %q, %v", tt.key, got, ok, tt.want, tt.wantOK)
		}
	}
}

func FuzzParseToolResult(f *testing.F) {
	f.Add([]byte(`{"status":"passed","summary":"s","data":{"a":[1,2]}}`), []byte(""), uint32(0))
	f.Add([]byte(`{"status":"failed","metadata":[["k","v"]]}`), []byte("e"), uint32(1))
	f.Add([]byte(`42`), []byte(""), uint32(0))
	f.Add([]byte("plain\xff"), []byte("err"), uint32(3))
	f.Add([]byte(""), []byte("stderr only"), uint32(0xffffffff))
	f.Add([]byte(`{"data":1e999999}`), []byte(""), uint32(0))
	f.Fuzz(func(t *testing.T, stdout, stderr []byte, code uint32) {
		r := ParseToolResult("fuzz", &Output{Stdout: stdout, Stderr: stderr, ExitCode: code})
		if !slices.Contains([]string{StatusPassed, StatusFailed, StatusError}, r.Status) {
			t.Fatalf("status %q", r.Status)
		}
		if r.IsError() == (r.Status == StatusPassed) {
			t.Fatalf("IsError() = %v for status %q", r.IsError(), r.Status)
		}
		if r.Status == StatusFailed && !strings.Contains(string(stdout), StatusFailed) {
			t.Fatalf("status failed without the tool saying so: %q", stdout)
		}
		if !r.HasData && !r.HasSummary && r.Text() != "tool returned no data" {
			t.Fatalf("Text() = %q with neither data nor summary", r.Text())
		}
		for _, s := range []string{r.Summary, r.Data, r.Text()} {
			if !utf8Valid(s) {
				t.Fatalf("invalid UTF-8 in result: %q", s)
			}
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }
