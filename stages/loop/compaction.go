package loop

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// compact is murmur's compaction check after a turn (murmur-session.md
// §1.7): when context.max_tokens is set and the turn's tokens reach the
// threshold share of it, on-compaction hooks may replace the conversation.
// A hook's Err ends the session failed (done); no replacement is logged to
// bootstrap.log and the loop goes on (it is tried again next turn).
func (l *run) compact(ctx context.Context, turn int, req *inference.Request, tokens int64) (Outcome, bool, error) {
	window := l.cfg.ContextMaxTokens
	if window <= 0 {
		return Outcome{}, false, nil
	}
	ratio := float64(tokens) / float64(window)
	if ratio < l.cfg.Compaction.Threshold {
		return Outcome{}, false, nil
	}
	model := l.cfg.Compaction.Model
	repl, err := l.hooks.Compaction(ctx, hooks.Compaction{
		Messages: toHookMessages(req.Messages), SessionTokens: tokens, Threshold: ratio,
		Model: &model, SystemPrompt: l.cfg.Compaction.SystemPrompt,
	})
	l.hookInferences()
	var hookErr *hooks.CompactionError
	if errors.As(err, &hookErr) {
		out, err := l.end(trace.ExitFailed, "error: compaction hook failed: "+hookErr.Error())
		return out, true, err
	}
	if err != nil {
		return Outcome{}, true, err
	}
	if repl == nil {
		l.bootstrap("[compaction] threshold reached but no hook returned replace-context; continuing without compaction")
		return Outcome{}, false, nil
	}
	msgs, ok := fromHookMessages(repl)
	if !ok {
		l.bootstrap("[compaction] replace-context discarded: the tool_call ids it issues and the tool_call_ids it answers differ; continuing without compaction")
		return Outcome{}, false, nil
	}
	req.Messages = msgs
	// murmur's count of the new context: cl100k_base over the messages as
	// serde_json writes them.
	b, _ := serdeJSON(msgs)
	after, _ := l.tokens.Count(withoutWorkdir(b, l.cfg.Workdir))
	if err := l.tr.Compaction(trace.Compaction{Turn: turn, TokensBefore: tokens, TokensAfter: after}); err != nil {
		l.bootstrap("[compaction] could not write the trace event: " + err.Error())
	}
	if l.cfg.Compaction.DumpSummaries {
		l.dumpSummary(turn, tokens, after, msgs)
	}
	return Outcome{}, false, nil
}

// toolWrap is how a tool message reaches on-compaction: its content must
// come back with the marker for the message to be kept.
type toolWrap struct {
	Marker     bool            `json:"__murmur_tool_msg__"`
	ToolCallID string          `json:"tool_call_id"`
	IsError    bool            `json:"is_error"`
	Body       json.RawMessage `json:"body"`
}

// toHookMessages is the conversation as murmur hands it to on-compaction:
// the JSON text of each message's blocks, tool messages wrapped.
func toHookMessages(msgs []inference.Message) []hooks.Message {
	out := make([]hooks.Message, 0, len(msgs))
	for _, m := range msgs {
		content := string(m.Content)
		if m.Role == "tool" {
			w := toolWrap{Marker: true, ToolCallID: m.ToolCallID, Body: m.Content}
			if m.IsError != nil {
				w.IsError = *m.IsError
			}
			b, _ := json.Marshal(w)
			content = string(b)
		}
		out = append(out, hooks.Message{Role: m.Role, Content: content})
	}
	return out
}

// fromHookMessages rebuilds a replacement conversation: a tool message is
// kept only when its marker round-tripped; other content that is a JSON
// array is the blocks, a JSON string one text block, anything else the
// text of the content. ok is false when the tool_call ids the assistant
// messages issue differ from the tool_call_ids answered, as murmur checks.
func fromHookMessages(msgs []hooks.Message) ([]inference.Message, bool) {
	out := make([]inference.Message, 0, len(msgs))
	issued, answered := map[string]bool{}, map[string]bool{}
	for _, m := range msgs {
		var w toolWrap
		if json.Unmarshal([]byte(m.Content), &w) == nil && w.Marker {
			body := w.Body
			if len(body) == 0 || body[0] != '[' {
				body = textBlocks(body)
			}
			out = append(out, inference.Message{Role: "tool", ToolCallID: w.ToolCallID, IsError: &w.IsError, Content: body})
			answered[w.ToolCallID] = true
			continue
		}
		if m.Role == "tool" {
			continue // the marker did not come back
		}
		msg := inference.Message{Role: m.Role, Content: textBlocks(json.RawMessage(m.Content))}
		if blocks, err := msg.Blocks(); err == nil {
			for _, b := range blocks {
				if b.Type == inference.StopToolCall {
					issued[b.ID] = true
				}
			}
		}
		out = append(out, msg)
	}
	if len(issued) != len(answered) {
		return nil, false
	}
	for id := range issued {
		if !answered[id] {
			return nil, false
		}
	}
	return out, true
}

// textBlocks is content as blocks: a JSON array as it is, a JSON string
// as one text block, anything else (other JSON, or not JSON) as the text
// of itself.
func textBlocks(raw json.RawMessage) json.RawMessage {
	var v any
	if err := json.Unmarshal(raw, &v); err == nil {
		switch t := v.(type) {
		case []any:
			return raw
		case string:
			return inference.UserMessage(t).Content
		}
	}
	return inference.UserMessage(string(raw)).Content
}

// bootstrap appends a line to logs/bootstrap.log; a failure is ignored.
func (l *run) bootstrap(line string) {
	if l.dir == "" {
		return
	}
	_ = sessionfs.AppendFile(l.dir, "logs/bootstrap.log", []byte(line+"\n"), 0o644)
}

// dumpSummary appends {turn, tokens_before, tokens_after, summary} to
// out/compaction-summaries.jsonl; summary is the text of the replacement's
// non-tool messages. A failure is logged, as murmur's.
func (l *run) dumpSummary(turn int, before, after int64, msgs []inference.Message) {
	var parts []string
	for _, m := range msgs {
		if m.Role == "tool" {
			continue
		}
		if blocks, err := m.Blocks(); err == nil {
			for _, b := range blocks {
				if b.Type == "text" {
					parts = append(parts, b.Text)
				}
			}
		}
	}
	line, _ := json.Marshal(struct {
		Turn         int    `json:"turn"`
		TokensBefore int64  `json:"tokens_before"`
		TokensAfter  int64  `json:"tokens_after"`
		Summary      string `json:"summary"`
	}{turn, before, after, strings.Join(parts, "\n")})
	if err := sessionfs.AppendFile(l.dir, "out/compaction-summaries.jsonl", append(line, '\n'), 0o644); err != nil {
		l.bootstrap("[compaction] could not write out/compaction-summaries.jsonl at " + time.Now().UTC().Format(time.RFC3339) + ": " + err.Error())
	}
}
