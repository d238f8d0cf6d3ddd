package inference

import "encoding/json"

// Request is murmur's canonical driver payload. Fields are declared in
// sorted order because murmur serialises the payload with sorted keys and
// counts tokens over those bytes; keeping the order keeps the estimate
// comparable.
type Request struct {
	MaxTokens int             `json:"max_tokens"`
	Messages  []Message       `json:"messages"`
	Model     string          `json:"model"`
	Params    json.RawMessage `json:"params"`
	System    string          `json:"system"`
	Tools     []Tool          `json:"tools"`
}

// Message is one conversation message. Content is a JSON array of blocks;
// an assistant message carries the model's content verbatim.
type Message struct {
	Content    json.RawMessage `json:"content"`
	IsError    *bool           `json:"is_error,omitempty"`
	Role       string          `json:"role"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// Tool is one entry of the tool inventory offered to the model.
type Tool struct {
	Description string          `json:"description,omitempty"`
	Name        string          `json:"name"`
	Parameters  json.RawMessage `json:"parameters"`
}

// textBlock is murmur's text content block.
type textBlock struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

// UserMessage returns the user message that carries the task text.
func UserMessage(text string) Message {
	return Message{Role: "user", Content: textContent(text)}
}

// ToolMessage returns the message answering tool call id.
func ToolMessage(id string, isError bool, text string) Message {
	e := isError
	return Message{Role: "tool", ToolCallID: id, IsError: &e, Content: textContent(text)}
}

// AssistantMessage returns the message that repeats the model's content.
func AssistantMessage(content json.RawMessage) Message {
	return Message{Role: "assistant", Content: content}
}

func textContent(text string) json.RawMessage {
	b, _ := json.Marshal([]textBlock{{Text: text, Type: "text"}})
	return b
}
