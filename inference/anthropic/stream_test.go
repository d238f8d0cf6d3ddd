package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
)

// stream is a Messages JSON answer as the server-sent events Anthropic
// sends for it with stream: true: message_start, ping, each block's start,
// deltas (a tool's input in two halves, a thinking block's signature
// after its text) and stop, then message_delta with the stop reason and
// message_stop.
func stream(body string) string {
	var m struct {
		Content    []map[string]any `json:"content"`
		StopReason *string          `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		panic(err)
	}
	var b strings.Builder
	ev := func(name, format string, args ...any) {
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, fmt.Sprintf(format, args...))
	}
	str := func(v any) string { s, _ := json.Marshal(v); return string(s) }
	ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
	ev("ping", `{"type": "ping"}`)
	for i, c := range m.Content {
		switch c["type"] {
		case "text":
			ev("content_block_start", `{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i)
			ev("content_block_delta", `{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, str(c["text"]))
		case "thinking":
			ev("content_block_start", `{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, i)
			ev("content_block_delta", `{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, i, str(c["thinking"]))
			ev("content_block_delta", `{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%s}}`, i, str(c["signature"]))
		case "tool_use":
			ev("content_block_start", `{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, i, str(c["id"]), str(c["name"]))
			in := str(c["input"])
			ev("content_block_delta", `{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, str(in[:len(in)/2]))
			ev("content_block_delta", `{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, str(in[len(in)/2:]))
		default:
			ev("content_block_start", `{"type":"content_block_start","index":%d,"content_block":%s}`, i, str(c))
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":%d}`, i)
	}
	stop := "null"
	if m.StopReason != nil {
		stop = str(*m.StopReason)
	}
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":%s,"stop_sequence":null},"usage":{"output_tokens":15}}`, stop)
	ev("message_stop", `{"type":"message_stop"}`)
	return b.String()
}
