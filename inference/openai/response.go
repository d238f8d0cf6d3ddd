package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

type (
	wireResponse struct {
		Choices []wireChoice `json:"choices"`
		Usage   *wireUsage   `json:"usage"`
	}
	wireChoice struct {
		Message      wireMessage `json:"message"`
		FinishReason *string     `json:"finish_reason"`
	}
	wireMessage struct {
		Content   json.RawMessage `json:"content"` // string, null, or text parts
		Refusal   *string         `json:"refusal"`
		ToolCalls []wireToolCall  `json:"tool_calls"`
	}
	wireToolCall struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"` // a JSON string; some servers send the object
		} `json:"function"`
	}
	wireUsage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	}
)

// Decode maps a Chat Completions response (its first choice) to the
// canonical form. finish_reason stop → end_turn, tool_calls (or the legacy
// function_call) → tool_call, length → max_tokens; a "stop" (or missing)
// finish_reason with tool calls is a tool_call, as vLLM and Ollama send
// it; content_filter and anything else become a canonical error response.
// A tool call whose arguments are not a JSON object is the model's fault:
// an error response too, which the loop ends as failed.
func (a *API) Decode(body []byte) (*inference.Response, error) { return Decode(body) }

// Decode is API.Decode without an API: it needs no configuration.
func Decode(body []byte) (*inference.Response, error) {
	var w wireResponse
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&w); err != nil {
		return nil, fmt.Errorf("not a chat completion: %w", err)
	}
	if len(w.Choices) == 0 {
		if msg := errorMessage(body); msg != "" && bytes.Contains(body, []byte(`"error"`)) {
			return nil, fmt.Errorf("an error object with a success status: %s", msg)
		}
		return nil, fmt.Errorf("chat completion has no choices")
	}
	var usage *inference.Usage
	if u := w.Usage; u != nil {
		if u.PromptTokens < 0 || u.CompletionTokens < 0 {
			return nil, fmt.Errorf("usage: negative token counts")
		}
		usage = &inference.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	}
	c := w.Choices[0]
	text, err := contentText(c.Message.Content)
	if err != nil {
		return nil, err
	}
	if text == "" && c.Message.Refusal != nil {
		text = *c.Message.Refusal
	}
	var blocks []json.RawMessage
	if text != "" {
		blocks = append(blocks, inference.TextBlock(text))
	}
	for i, tc := range c.Message.ToolCalls {
		input, err := arguments(tc.Function.Arguments)
		if err != nil {
			return inference.NewResponse(inference.StopError, nil,
				fmt.Sprintf("tool call %q: %v", tc.Function.Name, err), usage)
		}
		id := tc.ID
		if strings.TrimSpace(id) == "" {
			id = "call_" + strconv.Itoa(i) // llama.cpp and Ollama may omit it
		}
		blocks = append(blocks, inference.ToolCallBlock(id, tc.Function.Name, input))
	}
	finish := ""
	if c.FinishReason != nil {
		finish = *c.FinishReason
	}
	var stop string
	switch {
	case finish == "tool_calls" || finish == "function_call":
		stop = inference.StopToolCall
	case (finish == "stop" || finish == "") && len(c.Message.ToolCalls) > 0:
		stop = inference.StopToolCall
	case finish == "stop" || finish == "":
		stop = inference.StopEndTurn
	case finish == "length":
		stop = inference.StopMaxTokens
	default:
		return inference.NewResponse(inference.StopError, nil, fmt.Sprintf("openai finish_reason %s is not supported", finish), usage)
	}
	r, err := inference.NewResponse(stop, blocks, "", usage)
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	return r, nil
}

// contentText reads message.content: a string, null, or a list of parts
// whose text parts are joined.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("message content is neither a string nor a list of parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// arguments reads a tool call's arguments: a JSON string holding an object
// ("" means {}), or an object sent as is.
func arguments(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("arguments: %v", err)
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return json.RawMessage("{}"), nil
		}
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return nil, fmt.Errorf("arguments are not a JSON object")
	}
	return raw, nil
}

// Failure reads an error body: {"error":{"message","type","code"}}, or
// {"error":"..."} as Ollama and llama.cpp send it. A 429 whose code is
// insufficient_quota is final: the account is out of credit.
func (a *API) Failure(status int, body []byte) httpapi.Failure {
	var e struct {
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return httpapi.Failure{Message: errorMessage(body), Final: string(bytes.TrimSpace(e.Error.Code)) == `"insufficient_quota"`}
}

func errorMessage(body []byte) string {
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &obj) == nil && len(obj.Error) > 0 {
		var s string
		if json.Unmarshal(obj.Error, &s) == nil {
			return s
		}
		var e struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(obj.Error, &e) == nil && (e.Message != "" || e.Type != "") {
			var code string
			_ = json.Unmarshal(e.Code, &code)
			label := e.Type
			if code != "" {
				label = code
			}
			return strings.TrimPrefix(label+": "+e.Message, ": ")
		}
	}
	return httpapi.Snippet(body)
}
