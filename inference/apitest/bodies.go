package apitest

import (
	"encoding/json"
	"fmt"
)

// Bodies as the real APIs write them (fields and order from their API
// references), for scripting Replies.

// AnthropicText is a Messages text block.
func AnthropicText(text string) string {
	return fmt.Sprintf(`{"type":"text","text":%s}`, quote(text))
}

// AnthropicToolUse is a Messages tool_use block.
func AnthropicToolUse(id, name, input string) string {
	return fmt.Sprintf(`{"type":"tool_use","id":%s,"name":%s,"input":%s}`, quote(id), quote(name), input)
}

// AnthropicMessage is a Messages response with the given stop reason,
// content blocks and usage.
func AnthropicMessage(stop string, in, out int, blocks ...string) string {
	content := "[]"
	if len(blocks) > 0 {
		content = "[" + join(blocks) + "]"
	}
	return fmt.Sprintf(`{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":%s,"stop_reason":%s,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":%d}}`,
		content, quote(stop), in, out)
}

// AnthropicError is a Messages error body (type e.g. rate_limit_error,
// authentication_error, overloaded_error, invalid_request_error).
func AnthropicError(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%s,"message":%s},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, quote(typ), quote(msg))
}

// OpenAIToolCall is a Chat Completions tool call; args is the arguments
// object, sent as a JSON string as OpenAI does.
func OpenAIToolCall(id, name, args string) string {
	return fmt.Sprintf(`{"id":%s,"type":"function","function":{"name":%s,"arguments":%s}}`, quote(id), quote(name), quote(args))
}

// OpenAICompletion is a Chat Completions response with one choice: content
// (null when ""), tool calls, finish reason and usage.
func OpenAICompletion(finish, content string, prompt, completion int, calls ...string) string {
	c := "null"
	if content != "" {
		c = quote(content)
	}
	tc := ""
	if len(calls) > 0 {
		tc = `,"tool_calls":[` + join(calls) + `]`
	}
	return fmt.Sprintf(`{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","created":1741570283,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":%s%s,"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":%s}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_fc9f1d7035"}`,
		c, tc, quote(finish), prompt, completion, prompt+completion)
}

// OpenAIError is a Chat Completions error body.
func OpenAIError(typ, code, msg string) string {
	return fmt.Sprintf(`{"error":{"message":%s,"type":%s,"param":null,"code":%s}}`, quote(msg), quote(typ), quote(code))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func join(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ","
		}
		out += p
	}
	return out
}
