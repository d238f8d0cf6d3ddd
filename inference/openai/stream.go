package openai

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// assembleStream reads a body that is not a JSON object as server-sent
// events of completion chunks, as murmur's driver does: of each line
// "data: <chunk>" (other lines, [DONE] and chunks that do not parse are
// skipped), the first choice's delta content text joined (one text block,
// none when empty), tool calls assembled by index (arguments concatenated,
// "" when none came), and the last finish_reason.
func assembleStream(body []byte) ([]string, []answerCall, string) {
	var text strings.Builder
	calls := map[uint64]*answerCall{}
	var finish string
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		payload, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data: "))
		payload = bytes.TrimSpace(payload)
		if !ok || string(payload) == "[DONE]" || !json.Valid(payload) {
			continue
		}
		choices := array(field(payload, "choices"))
		if len(choices) == 0 {
			continue
		}
		delta := field(choices[0], "delta")
		if s, ok := str(field(delta, "content")); ok {
			text.WriteString(s)
		}
		for _, d := range array(field(delta, "tool_calls")) {
			var i uint64 // 0 unless a number that fits, as encoding/json reads it
			if n, err := strconv.ParseUint(string(field(d, "index")), 10, 64); err == nil {
				i = n
			}
			tc := calls[i]
			if tc == nil {
				tc = &answerCall{}
				calls[i] = tc
			}
			fn := field(d, "function")
			if s, _ := str(field(d, "id")); s != "" {
				tc.id = s
			}
			if s, _ := str(field(fn, "name")); s != "" {
				tc.name = s
			}
			if s, ok := str(field(fn, "arguments")); ok {
				tc.arguments += s
			}
		}
		if s, ok := str(field(choices[0], "finish_reason")); ok {
			finish = s
		}
	}
	var texts []string
	if text.Len() > 0 {
		texts = []string{text.String()}
	}
	var out []answerCall
	for _, i := range slices.Sorted(maps.Keys(calls)) {
		out = append(out, *calls[i])
	}
	return texts, out, finish
}
