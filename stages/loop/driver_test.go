package loop

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/driver"
	"github.com/murmur-nexus/murmur-eval/session"
)

// failingModel answers the first turn with a tool call and the second as
// a driver whose status was error.
type failingModel struct{ turn int }

func (m *failingModel) Complete(context.Context, *inference.Request, inference.Observer) (*inference.Response, error) {
	m.turn++
	if m.turn == 1 {
		return inference.ParseResponse([]byte(callCalc))
	}
	data := `{"error":"HTTP 400","stop_reason":"error"}`
	return driver.Response(inference.DriverResult{Status: "error", Data: &data})
}

// TestDriverFailureEndsTheSessionFailed: a driver status other than
// passed ends the session failed with result.txt "error: <data>" and no
// inference event for that turn (murmur-session.md §1.4 step 4); the
// request a tool was denied during its call is traced before its
// tool_call event.
func TestDriverFailureEndsTheSessionFailed(t *testing.T) {
	denied := &session.Denials{}
	tools := &fakeTools{reply: func(string, json.RawMessage) (session.ToolReply, error) {
		target, _ := capsule.TargetOf("https://blocked.example")
		denied.Add("calc", target)
		return session.ToolReply{Text: "http error P", IsError: true}, nil
	}}
	c, _ := newCase(t, nil, tools)
	s := sessionOf(c)
	s.Model, s.Denied = &failingModel{}, denied
	if err := (Stage{}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	o := outcomeOf(c)
	if o.ExitStatus != "failed" || o.ResultText != `error: {"error":"HTTP 400","stop_reason":"error"}` {
		t.Errorf("outcome %q %q, want failed with the driver's data", o.ExitStatus, o.ResultText)
	}
	want := []string{"session_start", "inference", "network_denied", "tool_call", "session_end"}
	if diff := cmp.Diff(want, eventTypes(c)); diff != "" {
		t.Errorf("trace events (-want +got):\n%s", diff)
	}
	var ev map[string]any
	_ = json.Unmarshal(sessionLines(c)[2].JSON, &ev)
	if ev["artifact"] != "calc" || ev["target"] != "https://blocked.example" || ev["turn"] != float64(0) {
		t.Errorf("network_denied event %v", ev)
	}
}
