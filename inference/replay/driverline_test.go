package replay

import (
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// TestDriverFailedTurnsReplay: a recorded driver failure (status not
// passed) replays as one, and only a stop_reason error line can carry
// the marker.
func TestDriverFailedTurnsReplay(t *testing.T) {
	tests := []struct {
		line   string
		failed bool
	}{
		{`{"error":"HTTP 400","murmur_eval_driver_failed":true,"stop_reason":"error","request_sha256":"ab"}`, true},
		{`{"error":"HTTP 400","stop_reason":"error"}`, false},
		{`{"content":[],"murmur_eval_driver_failed":true,"stop_reason":"end_turn"}`, false},
	}
	for _, tt := range tests {
		turn, err := ParseLine([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		if turn.Response.DriverFailed != tt.failed {
			t.Errorf("%s: DriverFailed %v, want %v", tt.line, turn.Response.DriverFailed, tt.failed)
		}
		if tt.failed && (turn.Response.Error != "HTTP 400" || turn.RequestSHA256 != "ab" || turn.Response.StopReason != inference.StopError) {
			t.Errorf("%s: %+v", tt.line, turn)
		}
	}
}
