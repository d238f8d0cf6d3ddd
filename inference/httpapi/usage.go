package httpapi

import (
	"bytes"
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// ReportedUsage is the token usage a provider reported in a 2xx body as
// the host saw it, nil when the body carries none: a JSON answer's
// "usage", or, for server-sent events, the "usage" of each data line's
// object (Anthropic's message_start carries it under "message"), later
// counts replacing earlier ones. Both providers' names are read:
// input_tokens (plus Anthropic's cache_creation_input_tokens and
// cache_read_input_tokens, as the built-in provider counts them) or
// prompt_tokens, and output_tokens or completion_tokens; the cached part
// of the input (Anthropic's cache_read_input_tokens, OpenAI's
// prompt_tokens_details.cached_tokens) as CachedInputTokens. A usage with a
// count that is not a non-negative integer is ignored. It is how the
// provider_*_tokens columns are filled when a driver component answers:
// murmur's drivers drop the provider's usage from their canonical
// response.
func ReportedUsage(body []byte) *inference.Usage {
	if trimmed := bytes.TrimSpace(body); bytes.HasPrefix(trimmed, []byte("{")) {
		var top struct {
			Usage json.RawMessage `json:"usage"`
		}
		if json.Unmarshal(trimmed, &top) != nil {
			return nil
		}
		return usageOver(nil, top.Usage)
	}
	var u *inference.Usage
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
		if !ok {
			continue
		}
		var ev struct {
			Usage   json.RawMessage `json:"usage"`
			Message struct {
				Usage json.RawMessage `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(bytes.TrimSpace(data), &ev) != nil {
			continue
		}
		u = usageOver(usageOver(u, ev.Message.Usage), ev.Usage)
	}
	return u
}

// usageOver reads a usage object over base: the counts it sets replace
// base's. base is returned when raw is not a usage object.
func usageOver(base *inference.Usage, raw json.RawMessage) *inference.Usage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return base
	}
	count := func(keys ...string) (n int64, set, ok bool) {
		for _, k := range keys {
			v, present := m[k]
			if !present || string(v) == "null" {
				continue
			}
			var c int64
			if json.Unmarshal(v, &c) != nil || c < 0 {
				return 0, true, false
			}
			n, set = trace.AddTokens(n, c), true
		}
		return n, set, true
	}
	in, inSet, ok1 := count("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "prompt_tokens")
	out, outSet, ok2 := count("output_tokens", "completion_tokens")
	if !ok1 || !ok2 || !inSet && !outSet {
		return base
	}
	u := inference.Usage{}
	if base != nil {
		u = *base
	}
	if inSet {
		u.InputTokens = in
		u.CachedInputTokens = cachedOf(m)
	}
	if outSet {
		u.OutputTokens = out
	}
	return &u
}

// cachedOf is the cached part of a usage object's input: Anthropic's
// cache_read_input_tokens, else OpenAI's prompt_tokens_details.
// cached_tokens; 0 when neither is a non-negative integer.
func cachedOf(m map[string]json.RawMessage) int64 {
	var n int64
	if raw, ok := m["cache_read_input_tokens"]; ok && json.Unmarshal(raw, &n) == nil && n >= 0 {
		return n
	}
	var details struct {
		Cached *int64 `json:"cached_tokens"`
	}
	if raw, ok := m["prompt_tokens_details"]; ok && json.Unmarshal(raw, &details) == nil && details.Cached != nil && *details.Cached >= 0 {
		return *details.Cached
	}
	return 0
}
