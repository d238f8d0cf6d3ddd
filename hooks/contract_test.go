package hooks

import (
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
)

func TestParseContract(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       Contract
		wantErr    string
	}{
		{"defaults", "name: h\nversion: 1.0.0\nruntime: hook\n", Contract{Mode: Blocking, Policy: ArmNone}, ""},
		{"reopen on task end", "binding: on-task-end\ncommit_policy: reopen-task\n", Contract{Binding: OnTaskEnd, Mode: Blocking, Policy: ArmReopenTask}, ""},
		{"no binding takes any policy", "commit_policy: replace-context\n", Contract{Mode: Blocking, Policy: ArmReplaceContext}, ""},
		{"async observer", "execution_mode: async\n", Contract{Mode: Async, Policy: ArmNone}, ""},
		{"non-string takes the default", "binding: 3\nexecution_mode: [a]\n", Contract{Mode: Blocking, Policy: ArmNone}, ""},
		{"unknown binding", "binding: on-turn\n", Contract{}, "unknown binding 'on-turn'; expected: on-stage, on-session-start, on-task-start, on-inference, on-tool-call, on-shell, on-compaction, on-task-end, on-session-end"},
		{"unknown mode", "execution_mode: later\n", Contract{}, "unknown execution_mode 'later'; expected: blocking, async"},
		{"unknown policy", "commit_policy: all\n", Contract{}, "unknown commit_policy 'all'; expected: none, write-manifests, replace-context, reopen-task"},
		{"async with commit", "execution_mode: async\ncommit_policy: reopen-task\n", Contract{},
			"async-with-commit not supported: execution_mode 'async' requires commit_policy 'none' (got 'reopen-task')"},
		{"async on-stage", "binding: on-stage\nexecution_mode: async\n", Contract{}, "binding 'on-stage' requires execution_mode 'blocking'"},
		{"policy the binding cannot honour", "binding: on-task-end\ncommit_policy: replace-context\n", Contract{},
			"commit_policy 'replace-context' is not valid for binding 'on-task-end'; binding 'on-task-end' honors commit_policy 'reopen-task'"},
		{"committing policy on an observing binding", "binding: on-inference\ncommit_policy: reopen-task\n", Contract{},
			"commit_policy 'reopen-task' is not valid for binding 'on-inference'; binding 'on-inference' honors commit_policy 'none' only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msg := ParseContract([]byte(tt.yaml))
			if msg != tt.wantErr {
				t.Fatalf("ParseContract error = %q, want %q", msg, tt.wantErr)
			}
			if msg == "" && got != tt.want {
				t.Errorf("ParseContract = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseOutput(t *testing.T) {
	tests := []struct {
		name, out string
		want      string // the arm
		wantErr   bool
		hookErr   string
	}{
		{"empty is none", " \n", ArmNone, false, ""},
		{"none", `{"output":"none"}`, ArmNone, false, ""},
		{"reopen", `{"output":"reopen-task","reason":"again"}`, ArmReopenTask, false, ""},
		{"replace", `{"output":"replace-context","messages":[{"role":"user","content":"x"}]}`, ArmReplaceContext, false, ""},
		{"manifests", `{"output":"write-manifests","manifests":[{"binary_name":"git","content":"name: git"}]}`, ArmWriteManifests, false, ""},
		{"artifact", `{"output":"artifact","artifact":{"k":1}}`, ArmArtifact, false, ""},
		{"hook error", `{"error":"no"}`, "", true, "no"},
		{"not json", `reopen please`, "", true, ""},
		{"two values", `{"output":"none"}{"output":"none"}`, "", true, ""},
		{"no arm", `{"reason":"x"}`, "", true, ""},
		{"unknown arm", `{"output":"retry"}`, "", true, ""},
		{"reopen without reason", `{"output":"reopen-task"}`, "", true, ""},
		{"artifact not an object", `{"output":"artifact","artifact":"{}"}`, "", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOutput([]byte(tt.out))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseOutput error = %v, want error %v", err, tt.wantErr)
			}
			var he *HookError
			if tt.hookErr != "" && (!errors.As(err, &he) || he.Msg != tt.hookErr) {
				t.Errorf("ParseOutput error = %v, want the hook's error %q", err, tt.hookErr)
			}
			if err == nil && got.Arm != tt.want {
				t.Errorf("arm = %q, want %q", got.Arm, tt.want)
			}
		})
	}
}

// FuzzParseOutput: hook output is untrusted guest output; the parser must
// never panic and must answer either an arm or an error.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{"", `{"output":"none"}`, `{"output":"reopen-task","reason":"x"}`, `{"error":"e"}`,
		`{"output":"replace-context","messages":[{"role":"tool","content":"{}"}]}`, `{"output":"artifact","artifact":{}}`, `[1,2]`, `"none"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := ParseOutput(b)
		if err == nil && out.Arm == "" {
			t.Fatalf("ParseOutput(%q) = no arm and no error", b)
		}
	})
}

func TestOptionsFor(t *testing.T) {
	parse := func(y string) *capsule.Manifest {
		m, err := capsule.ParseManifest("murmur.yaml", []byte("name: c\nversion: '1'\n"+y), nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if o := OptionsFor(parse("")); o.Deadline != 30*time.Second || o.EvalConfig != "" || o.DatasetID != "" || o.OTelEndpoint != "" {
		t.Errorf("defaults = %+v", o)
	}
	o := OptionsFor(parse("capabilities: {limits: {deadline_seconds: 5}}\nobservability: {otel_endpoint: ' http://o:4318 ', eval: {dataset_id: ds, scorers: [{type: max_turns, name: t, max: 5}]}}\n"))
	want := Options{Deadline: 5 * time.Second, OTelEndpoint: "http://o:4318", DatasetID: "ds",
		EvalConfig: `{"dataset_id":"ds","scorers":[{"type":"max_turns","name":"t","max":5}]}`}
	if o != want {
		t.Errorf("OptionsFor = %+v, want %+v", o, want)
	}
}

// Output that is not a JSON object is the decoder's error, wrapped:
// errors.Is and errors.As reach it.
func TestParseOutputWrapsTheDecodeError(t *testing.T) {
	if _, err := ParseOutput([]byte(`{"text":`)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated object: %v, want io.ErrUnexpectedEOF wrapped", err)
	}
	var te *json.UnmarshalTypeError
	if _, err := ParseOutput([]byte(`[1]`)); !errors.As(err, &te) {
		t.Errorf("array: %v, want a *json.UnmarshalTypeError wrapped", err)
	}
}
