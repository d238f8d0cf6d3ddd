package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// verdict is the judge's answer.
type verdict struct {
	Score  float64
	Reason string
}

// maxReason bounds the reason kept of a verdict.
const maxReason = 2 << 10

// parseVerdict reads the judge's answer: a submit_verdict call's input,
// else a text holding the verdict object (alone, or fenced as ```json).
// Anything else is an error saying what is wrong, which the repair
// request quotes back to the judge.
func parseVerdict(resp *inference.Response) (verdict, error) {
	if resp.StopReason == inference.StopError {
		return verdict{}, fmt.Errorf("the judge answered with an error: %s", clip(resp.Error, 200))
	}
	for _, b := range resp.Blocks {
		if b.Type == "tool_call" {
			if b.Name != verdictTool {
				return verdict{}, fmt.Errorf("the judge called tool %q, not %s", clip(b.Name, 100), verdictTool)
			}
			return decodeVerdict(b.Input)
		}
	}
	text := strings.TrimSpace(resp.Text())
	if text == "" {
		return verdict{}, fmt.Errorf("the judge's answer is empty")
	}
	if inner, ok := fenced(text); ok {
		text = inner
	}
	return decodeVerdict(json.RawMessage(text))
}

// fenced returns the content of a ```json ... ``` (or ``` ... ```) block
// that is the whole answer.
func fenced(text string) (string, bool) {
	if !strings.HasPrefix(text, "```") || !strings.HasSuffix(text, "```") || len(text) < 6 {
		return "", false
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(text, "```"), "```")
	if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.Contains(inner[:nl], "{") {
		inner = inner[nl+1:] // the fence's language tag
	}
	return strings.TrimSpace(inner), true
}

// decodeVerdict reads {"score": 0..1, "reason": "..."}: exactly one JSON
// object, score a number in [0, 1], reason a string; other keys ignored.
func decodeVerdict(raw json.RawMessage) (verdict, error) {
	var v struct {
		Score  json.RawMessage `json:"score"`
		Reason json.RawMessage `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&v); err != nil {
		return verdict{}, fmt.Errorf("the answer is not a JSON object: %v", err)
	}
	if dec.More() {
		return verdict{}, fmt.Errorf("the answer holds more than one JSON value")
	}
	var out verdict
	switch {
	case v.Score == nil:
		return verdict{}, fmt.Errorf(`the object has no "score"`)
	case json.Unmarshal(v.Score, &out.Score) != nil:
		return verdict{}, fmt.Errorf(`"score" is %s, not a number`, clip(string(v.Score), 50))
	case math.IsNaN(out.Score) || out.Score < 0 || out.Score > 1:
		return verdict{}, fmt.Errorf(`"score" is %g, not from 0 to 1`, out.Score)
	case v.Reason == nil:
		return verdict{}, fmt.Errorf(`the object has no "reason"`)
	case json.Unmarshal(v.Reason, &out.Reason) != nil:
		return verdict{}, fmt.Errorf(`"reason" is not a string`)
	}
	out.Reason = clip(strings.TrimSpace(out.Reason), maxReason)
	return out, nil
}
