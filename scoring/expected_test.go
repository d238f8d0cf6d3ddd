package scoring

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestParseExpectedIgnoresForeignValues(t *testing.T) {
	for _, raw := range []string{``, `null`, `"42"`, `42`, `["a"]`, `{}`, `{"answer": "42"}`, `{"result_contain": "typo"}`} {
		e, ok, err := ParseExpected(json.RawMessage(raw))
		if e != nil || ok || err != nil {
			t.Errorf("ParseExpected(%s) = %v, %v, %v; want nil, false, nil (not murmur-eval's)", raw, e, ok, err)
		}
	}
}

func TestParseExpected(t *testing.T) {
	hash := "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	tests := []struct {
		raw   string
		names []string
		check func(t *testing.T, e *Expected)
	}{
		{`{"result_contains": "42"}`, []string{"result_contains"}, func(t *testing.T, e *Expected) {
			if diff := cmp.Diff([]string{"42"}, e.ResultContains); diff != "" {
				t.Error(diff)
			}
		}},
		{`{"result_contains": ["a", "b"], "result_equals": " x ", "result_matches": "^\\d+$", "result_json": {"n": 1}}`,
			[]string{"result_equals", "result_contains", "result_matches", "result_json"}, nil},
		{`{"files": {"b.txt": true, "notes/a.md": {"contains": "milk", "sha256": "` + hash + `"}, "gone.txt": false}}`,
			[]string{"file:b.txt", "file:gone.txt", "file:notes/a.md"}, func(t *testing.T, e *Expected) {
				want := []FileExpectation{
					{Path: "b.txt", Exists: true},
					{Path: "gone.txt"},
					{Path: "notes/a.md", Exists: true, Contains: []string{"milk"}, SHA256: hash},
				}
				if diff := cmp.Diff(want, e.Files); diff != "" {
					t.Error(diff)
				}
			}},
		{`{"files": {"./x/../y.txt": {}}}`, []string{"file:y.txt"}, nil},
		{`{"check": "go test ./..."}`, []string{"check"}, func(t *testing.T, e *Expected) {
			if diff := cmp.Diff(&CheckSpec{Argv: []string{"sh", "-c", "go test ./..."}}, e.Check); diff != "" {
				t.Error(diff)
			}
		}},
		{`{"check": ["pytest", "-q"]}`, []string{"check"}, nil},
		{`{"check": {"command": ["make", "test"], "timeout_seconds": 90}}`, []string{"check"}, func(t *testing.T, e *Expected) {
			if diff := cmp.Diff(&CheckSpec{Argv: []string{"make", "test"}, Timeout: 90 * time.Second}, e.Check); diff != "" {
				t.Error(diff)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			e, ok, err := ParseExpected(json.RawMessage(tt.raw))
			if err != nil || !ok {
				t.Fatalf("ParseExpected = %v, %v", ok, err)
			}
			if diff := cmp.Diff(tt.names, e.Names()); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, e)
			}
		})
	}
}

func TestParseExpectedErrors(t *testing.T) {
	for _, raw := range []string{
		`{"result_contains": "42", "answer": "42"}`,
		`{"result_contains": []}`,
		`{"result_contains": 42}`,
		`{"result_equals": 42}`,
		`{"result_matches": "("}`,
		`{"result_json": [1]}`,
		`{"result_json": null}`,
		`{"files": {"../escape.txt": true}}`,
		`{"files": {"/etc/passwd": true}}`,
		`{"files": {"": true}}`,
		`{"files": {"a\\b": true}}`,
		`{"files": {"a": {"exists": false, "contains": "x"}}}`,
		`{"files": {"a": {"sha256": "abc"}}}`,
		`{"files": {"a": {"size": 3}}}`,
		`{"files": {"a": 3}}`,
		`{"files": {"a": true, "./a": true}}`,
		`{"files": []}`,
		`{"check": ""}`,
		`{"check": []}`,
		`{"check": [""]}`,
		`{"check": {"command": "true", "timeout_seconds": 0}}`,
		`{"check": {"command": "true", "retries": 2}}`,
		`{"check": {"timeout_seconds": 5}}`,
		`{"check": 5}`,
	} {
		_, ok, err := ParseExpected(json.RawMessage(raw))
		if !ok || !errcode.Is(err, errcode.EvalDataset) {
			t.Errorf("ParseExpected(%s) = %v, %v; want ok and code %s", raw, ok, err, errcode.EvalDataset)
		}
	}
}

func TestPlanExpectedRefusesNameClash(t *testing.T) {
	p := &Plan{Config: Config{Scorers: []ScorerSpec{{Type: TypeExitOK, Name: "check"}}}}
	if _, _, err := p.Expected(json.RawMessage(`{"check": "true"}`)); !errcode.Is(err, errcode.EvalDataset) {
		t.Errorf("Expected with a clashing name = %v, want code %s", err, errcode.EvalDataset)
	}
}
