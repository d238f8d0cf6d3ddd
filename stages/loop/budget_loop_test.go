package loop

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// callCalcUsage is a tool call that reports 400 + 100 tokens.
const callCalcUsage = `{"stop_reason":"tool_call","content":[{"type":"tool_call","id":"c1","name":"calc","input":{"expression":"6*7"}}],"usage":{"input_tokens":400,"output_tokens":100}}`

// TestLoopBudget: the loop ends budget_reached after the model turn that
// reaches the case's budget, before that turn's tool calls run; a turn
// that answers ends the session ok whatever it spent.
func TestLoopBudget(t *testing.T) {
	tests := []struct {
		name      string
		budget    Budget
		responses []string
		wantExit  string
		wantCalls int
		wantTypes []string
	}{
		{"reached at the second turn", Budget{MaxTokens: 1000}, []string{callCalcUsage, callCalcUsage, callCalcUsage}, "budget_reached", 1,
			[]string{"session_start", "inference", "tool_call", "inference", "session_end"}},
		{"an answer past the budget ends ok", Budget{MaxTokens: 50}, []string{endTurn}, "ok", 0,
			[]string{"session_start", "inference", "session_end"}},
		{"no budget", Budget{}, []string{callCalcUsage, callCalcUsage, endTurn}, "ok", 2,
			[]string{"session_start", "inference", "tool_call", "inference", "tool_call", "inference", "session_end"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := &fakeTools{}
			c, _ := newCase(t, tt.responses, tools)
			if err := (Stage{Budget: tt.budget}).Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			out := outcomeOf(c)
			if out.ExitStatus != tt.wantExit || len(tools.calls) != tt.wantCalls || out.OverBudget() != (tt.wantExit == "budget_reached") {
				t.Errorf("exit %q after %d tool calls (over budget %v), want %q after %d", out.ExitStatus, len(tools.calls), out.OverBudget(), tt.wantExit, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantTypes, eventTypes(c)); diff != "" {
				t.Errorf("trace events (-want +got):\n%s", diff)
			}
		})
	}
}
