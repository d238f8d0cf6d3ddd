package driver

import (
	"bytes"
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
)

// Response is the loop's view of a driver's tool-result, as murmur's agent
// loop reads it (murmur-session.md §1.4, steps 4-5):
//
//   - status not passed: DriverFailed, Error the data, else the summary,
//     else "driver returned error"; the session ends failed with no
//     inference event. Raw is a canonical error line marked inference.DriverFailedField,
//     so a recording replays the same ending.
//   - no data and no summary: E-RUN-007 "driver returned no data".
//   - data (else summary) not JSON: E-RUN-007 "failed to parse driver
//     response". A JSON object without a stop_reason string has stop
//     reason "" (the loop ends it "unsupported stop_reason ”"), as murmur
//     reads a missing one as empty.
func Response(res inference.DriverResult) (*inference.Response, error) {
	if res.Status != "passed" {
		text := "driver returned error"
		switch {
		case res.Data != nil:
			text = *res.Data
		case res.Summary != nil:
			text = *res.Summary
		}
		return failed(text)
	}
	var raw string
	switch {
	case res.Data != nil:
		raw = *res.Data
	case res.Summary != nil:
		raw = *res.Summary
	default:
		return nil, errcode.New(errcode.RunAgentLoop, "driver returned no data")
	}
	resp, err := inference.ParseResponse([]byte(raw))
	if err == nil {
		return resp, nil
	}
	if noStopReason([]byte(raw)) {
		return &inference.Response{Content: json.RawMessage("[]"), Raw: []byte(raw)}, nil
	}
	return nil, errcode.Wrap(errcode.RunAgentLoop, err, "failed to parse driver response")
}

// failed is the response of a driver whose status was not passed.
func failed(text string) (*inference.Response, error) {
	line, err := json.Marshal(struct {
		Error      string `json:"error"`
		Failed     bool   `json:"murmur_eval_driver_failed"`
		StopReason string `json:"stop_reason"`
	}{text, true, inference.StopError})
	if err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "encode a failed driver turn")
	}
	return &inference.Response{StopReason: inference.StopError, Error: text, DriverFailed: true,
		Content: json.RawMessage("[]"), Raw: line}, nil
}

// noStopReason says whether raw is one JSON object whose stop_reason is
// absent or not a string.
func noStopReason(raw []byte) bool {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if dec.Decode(&obj) != nil || obj == nil || len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		return false
	}
	var s string
	return json.Unmarshal(obj["stop_reason"], &s) != nil
}
