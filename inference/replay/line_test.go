package replay

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
)

func TestLineRoundTripKeepsRawBytes(t *testing.T) {
	r, err := inference.NewResponse("tool_call", []json.RawMessage{inference.TextBlock("a <b>"), inference.ToolCallBlock("t1", "calc", json.RawMessage(`{"x":1}`))}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	line, err := Line(r.Raw, "abc123")
	if err != nil {
		t.Fatal(err)
	}
	turn, err := ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if turn.RequestSHA256 != "abc123" || string(turn.Response.Raw) != string(r.Raw) || string(turn.Response.Content) != string(r.Content) {
		t.Errorf("round trip: sha %q raw %s; want abc123 and %s", turn.RequestSHA256, turn.Response.Raw, r.Raw)
	}
	if _, err := Line([]byte("{\"a\":\n1}"), "x"); err == nil {
		t.Error("Line accepted a multi-line response")
	}
}

// TestUsageLineKeepsTheProviderUsage: a driver's turn whose usage the
// host read from the provider's answer is recorded with it
// (murmur_eval_provider_usage) and replays with that usage and the
// driver's very bytes; the usage in the canonical bytes, a line without
// the field and a negative count keep the canonical reading.
func TestUsageLineKeepsTheProviderUsage(t *testing.T) {
	raw := []byte(`{"content":[{"text":"hi","type":"text"}],"stop_reason":"end_turn"}`)
	own := []byte(`{"content":[],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}`)
	u := &inference.Usage{InputTokens: 17, OutputTokens: 4}
	tests := []struct {
		name  string
		line  func() ([]byte, error)
		raw   []byte
		usage *inference.Usage
	}{
		{"usage outside the bytes", func() ([]byte, error) { return UsageLine(raw, u, "ab") }, raw, u},
		{"no usage", func() ([]byte, error) { return UsageLine(raw, nil, "ab") }, raw, nil},
		{"canonical usage", func() ([]byte, error) { return Line(own, "ab") }, own, &inference.Usage{InputTokens: 1, OutputTokens: 2}},
		{"negative count ignored", func() ([]byte, error) {
			return []byte(`{"stop_reason":"end_turn","murmur_eval_provider_usage":{"input_tokens":-1,"output_tokens":4},"request_sha256":"ab"}`), nil
		}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, err := tt.line()
			if err != nil {
				t.Fatal(err)
			}
			turn, err := ParseLine(line)
			if err != nil {
				t.Fatalf("ParseLine(%s) = %v", line, err)
			}
			got := turn.Response.Usage
			if (got == nil) != (tt.usage == nil) || got != nil && *got != *tt.usage {
				t.Errorf("%s: usage %+v, want %+v", line, got, tt.usage)
			}
			if tt.raw != nil && string(turn.Response.Raw) != string(tt.raw) {
				t.Errorf("%s: Raw %s, want the recorded bytes %s", line, turn.Response.Raw, tt.raw)
			}
		})
	}
}

func TestOldAndForeignLinesStillReplay(t *testing.T) {
	for _, line := range []string{
		`{"stop_reason":"end_turn","content":[]}`,
		`{"stop_reason":"end_turn","content":[],"recorded_by":"someone else","request_sha256":null}`,
		`{"request_sha256":"ff","stop_reason":"end_turn"}`, // digest first: Raw stays the line
	} {
		turn, err := ParseLine([]byte(line))
		if err != nil || turn.Response.StopReason != "end_turn" {
			t.Errorf("ParseLine(%s) = %+v, %v", line, turn, err)
		}
	}
	if _, err := ParseLine([]byte(`{"stop_reason":"end_turn","request_sha256":7}`)); err == nil {
		t.Error("a non-string request_sha256 was accepted")
	}
}

// recorder keeps what the replay reported.
type recorder struct{ divergences []inference.Divergence }

func (r *recorder) Cached(bool)                     {}
func (r *recorder) Retried(inference.Retry)         {}
func (r *recorder) Diverged(d inference.Divergence) { r.divergences = append(r.divergences, d) }

func TestReplayReportsDivergingRequests(t *testing.T) {
	dir := t.TempDir()
	recordedIn, replayedIn := "/runs/a/sessions/ses_1", "/runs/b/sessions/ses_2"
	req := func(workdir, task string) *inference.Request {
		return &inference.Request{Model: "m", System: "Workdir: " + workdir, Params: json.RawMessage("{}"), Messages: []inference.Message{inference.UserMessage(task)}}
	}
	same := inference.RequestDigest(req(recordedIn, "add 1 and 2"), recordedIn)
	other := inference.RequestDigest(req(recordedIn, "add 1 and 3"), recordedIn)
	end, _ := inference.NewResponse("end_turn", nil, "", nil)
	l1, _ := Line(end.Raw, same)
	l2, _ := Line(end.Raw, other)
	if err := os.WriteFile(filepath.Join(dir, "c.jsonl"), append(append(l1, '\n'), append(l2, '\n')...), 0o644); err != nil {
		t.Fatal(err)
	}
	src, _ := Open(dir)
	p, err := src.ForCase(context.Background(), inference.Case{ID: "c", Workdir: replayedIn})
	if err != nil {
		t.Fatal(err)
	}
	obs := &recorder{}
	for range 2 {
		if _, err := p.Complete(context.Background(), req(replayedIn, "add 1 and 2"), obs); err != nil {
			t.Fatal(err)
		}
	}
	want := inference.RequestDigest(req(replayedIn, "add 1 and 2"), replayedIn)
	if len(obs.divergences) != 1 || obs.divergences[0] != (inference.Divergence{Turn: 1, Recorded: other, Got: want}) {
		t.Errorf("divergences = %+v; want only turn 1 (the workdir differs but is masked)", obs.divergences)
	}
	if want != same {
		t.Errorf("digest depends on the workdir: %s vs %s", want, same)
	}
}
