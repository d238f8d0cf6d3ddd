// Package quickstart checks that the example's files agree with each other:
// every case has a recording under the right name, every recording is a
// valid sequence of model turns, and expected-statuses.json follows from it.
// The tools themselves are tested in tools/calc and tools/notes.
package quickstart

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
)

// turn is one recorded model response (murmur's canonical format).
type turn struct {
	StopReason string `json:"stop_reason"`
	Content    []struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	Error string `json:"error"`
	Usage *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

var plainID = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// recordingName is the replay file name of a case id.
func recordingName(id string) string {
	if plainID.MatchString(id) && id != "." && id != ".." {
		return id + ".jsonl"
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256-" + hex.EncodeToString(sum[:]) + ".jsonl"
}

func TestExampleIsConsistent(t *testing.T) {
	ds, err := datasets.Load("cases.jsonl")
	if err != nil {
		t.Fatalf("datasets.Load: %v", errcode.Format(err))
	}
	maxTurns := manifestMaxTurns(t)
	var statuses map[string]string
	b, err := os.ReadFile("expected-statuses.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &statuses); err != nil {
		t.Fatalf("expected-statuses.json: %v", err)
	}

	got := map[string]string{}
	var wantFiles []string
	defer ds.Close()
	for c, err := range ds.All() {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadTask(); err != nil {
			t.Errorf("case %q: %v", c.ID, err)
		}
		name := recordingName(c.ID)
		wantFiles = append(wantFiles, name)
		turns := readRecording(t, filepath.Join("recordings", name))
		got[c.ID] = replayStatus(t, c.ID, turns, maxTurns)
	}
	if diff := cmp.Diff(statuses, got); diff != "" {
		t.Errorf("expected-statuses.json disagrees with the recordings (-file +recordings):\n%s", diff)
	}
	files, err := filepath.Glob("recordings/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	sort.Strings(files)
	sort.Strings(wantFiles)
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("recordings/ files (-one per case +present):\n%s", diff)
	}
}

// replayStatus walks a recording the way the agent loop does and returns
// the case's status: passed when a turn ends the task, failed otherwise.
func replayStatus(t *testing.T, id string, turns []turn, maxTurns int) string {
	t.Helper()
	ids := map[string]bool{}
	for i, tr := range turns {
		if i >= maxTurns {
			t.Errorf("case %q: turn %d is past max_turns %d and is never replayed", id, i+1, maxTurns)
			break
		}
		switch tr.StopReason {
		case "end_turn", "max_tokens", "error":
			if i != len(turns)-1 {
				t.Errorf("case %q: turn %d ends the task but more turns follow", id, i+1)
			}
			if tr.StopReason == "error" {
				return "failed"
			}
			return "passed"
		case "tool_call":
			calls := 0
			for _, b := range tr.Content {
				if b.Type != "tool_call" {
					continue
				}
				calls++
				if b.Name != "calc" && b.Name != "notes" {
					t.Errorf("case %q turn %d: unknown tool %q", id, i+1, b.Name)
				}
				if b.ID == "" || ids[b.ID] {
					t.Errorf("case %q turn %d: tool call id %q is empty or reused", id, i+1, b.ID)
				}
				ids[b.ID] = true
				if !strings.HasPrefix(string(b.Input), "{") {
					t.Errorf("case %q turn %d: tool input %s is not an object", id, i+1, b.Input)
				}
			}
			if calls == 0 {
				t.Errorf("case %q turn %d: stop_reason tool_call without tool_call blocks", id, i+1)
			}
		default:
			t.Errorf("case %q turn %d: unknown stop_reason %q", id, i+1, tr.StopReason)
		}
	}
	if len(turns) < maxTurns {
		t.Errorf("case %q: the recording runs out after %d turns", id, len(turns))
	}
	return "failed" // max_turns_reached
}

func readRecording(t *testing.T, path string) []turn {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("recording: %v", err)
	}
	defer f.Close()
	var turns []turn
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var tr turn
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tr); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		turns = append(turns, tr)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return turns
}

func manifestMaxTurns(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("murmur.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+max_turns:\s*(\d+)\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("murmur.yaml: no inference.max_turns")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}
