package anthropic

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// sseBlock is a content block being assembled from its deltas.
type sseBlock struct {
	kind            string // "text", "thinking" or "tool_use"
	text, signature string // text and thinking blocks
	id, name, input string // tool_use blocks; input is the JSON text so far
}

// sseState is murmur's driver's reading of a Messages event stream.
type sseState struct {
	blocks      map[uint32]*sseBlock
	stop        string
	event, data string
	done        bool
	usage       *inference.Usage
}

// decodeSSE reads server-sent events line by line as the driver does:
// "event: " and "data: " lines (the last data line of an event wins), an
// empty line dispatching the event when it has a name, ':' comments, the
// rest ignored; a line not ended by '\n' is never read; message_stop ends
// the stream. Events whose data is not JSON, error events and ping are
// skipped, so a stream cut short or ending in an error is what came
// before it, with stop reason end_turn.
func decodeSSE(body []byte) answer {
	s := &sseState{blocks: map[uint32]*sseBlock{}}
	for !s.done {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(strings.ToValidUTF8(string(body[:i]), "\uFFFD"), "\r")
		body = body[i+1:]
		switch {
		case strings.HasPrefix(line, "event: "):
			s.event = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			s.data = line[len("data: "):]
		case line == "" && s.event != "":
			s.dispatch(s.event, s.data)
			s.event, s.data = "", ""
		}
	}
	return s.answer()
}

func (s *sseState) dispatch(event, data string) {
	tree, err := decodeTree([]byte(data))
	if err != nil {
		return
	}
	switch event {
	case "message_start":
		s.usage = usageOf(pointer(tree, "message", "usage"), s.usage)
	case "content_block_start":
		kind, ok := pointer(tree, "content_block", "type").(string)
		if !ok {
			kind = "text"
		}
		b := &sseBlock{kind: kind}
		switch kind {
		case "tool_use":
			b.id, _ = pointer(tree, "content_block", "id").(string)
			b.name, _ = pointer(tree, "content_block", "name").(string)
		case "thinking":
		default:
			b.kind = "text" // other block types (redacted_thinking, …) start an empty text block
		}
		s.blocks[index(tree)] = b
	case "content_block_delta":
		if b, ok := s.blocks[index(tree)]; ok {
			b.delta(tree)
		}
	case "message_delta":
		if r, _ := pointer(tree, "delta", "stop_reason").(string); r != "" {
			s.stop = r
		}
		s.usage = usageOf(pointer(tree, "usage"), s.usage)
	case "message_stop":
		s.done = true
	}
}

// delta applies a content_block_delta to its block.
func (b *sseBlock) delta(tree any) {
	str := func(k string) string { v, _ := pointer(tree, "delta", k).(string); return v }
	typ, _ := pointer(tree, "delta", "type").(string)
	switch {
	case typ == "text_delta" && b.kind == "text":
		b.text += str("text")
	case typ == "input_json_delta" && b.kind == "tool_use":
		b.input += str("partial_json")
	case typ == "thinking_delta" && b.kind == "thinking":
		b.text += str("thinking")
	case typ == "signature_delta" && b.kind == "thinking":
		b.signature += str("signature")
	}
}

// answer assembles the blocks in index order: text and thinking blocks
// that got some text, every tool_use with its input parsed (an input that
// does not parse is {}).
func (s *sseState) answer() answer {
	ans := answer{stop: s.stop, hasStop: s.stop != "", usage: s.usage}
	keys := make([]uint32, 0, len(s.blocks))
	for k := range s.blocks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		b := s.blocks[k]
		switch {
		case b.kind == "text" && b.text != "":
			ans.blocks = append(ans.blocks, mustJSON(canonicalText{Text: b.text, Type: "text"}))
		case b.kind == "thinking" && b.text != "":
			ans.blocks = append(ans.blocks, mustJSON(canonicalThinking{Signature: b.signature, Text: b.text, Type: "thinking"}))
		case b.kind == "tool_use":
			input := json.RawMessage("{}")
			if tree, err := decodeTree([]byte(b.input)); err == nil {
				input = json.RawMessage(httpapi.DriverJSON(tree))
			}
			ans.blocks = append(ans.blocks, mustJSON(canonicalToolCall{ID: b.id, Input: input, Name: b.name, Type: "tool_call"}))
		}
	}
	return ans
}

// index is an event's "index" as the driver reads it: a non-negative
// integer, else 0, taken modulo 2^32 (its usize is 32 bits).
func index(tree any) uint32 {
	n, _ := pointer(tree, "index").(json.Number)
	i, _ := uint64Literal(json.RawMessage(n))
	return uint32(i) //nolint:gosec // the driver's `as usize` on wasm32: truncation is the behaviour
}

// pointer follows object keys; nil when one is missing.
func pointer(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
