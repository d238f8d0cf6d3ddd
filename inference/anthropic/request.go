package anthropic

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/murmur-nexus/murmur-eval/inference"
)

type (
	request struct {
		Model       string          `json:"model"`
		MaxTokens   int             `json:"max_tokens"`
		System      string          `json:"system,omitempty"`
		Messages    []message       `json:"messages"`
		Tools       []tool          `json:"tools,omitempty"`
		ToolChoice  *typed          `json:"tool_choice,omitempty"`
		Thinking    *thinkingConfig `json:"thinking,omitempty"`
		Temperature *float64        `json:"temperature,omitempty"`
		TopP        *float64        `json:"top_p,omitempty"`
		TopK        *int            `json:"top_k,omitempty"`
	}
	message struct {
		Role    string `json:"role"`
		Content []any  `json:"content"`
	}
	tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	typed struct {
		Type string `json:"type"`
	}
	thinkingConfig struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	}
	textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	thinkingBlock struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	toolUseBlock struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	imageBlock struct {
		Type   string          `json:"type"`
		Source json.RawMessage `json:"source"`
	}
	toolResultBlock struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		Content   []any  `json:"content"`
		IsError   bool   `json:"is_error,omitempty"`
	}
)

// Encode maps the canonical request to a Messages request body.
func (a *API) Encode(req *inference.Request) ([]byte, error) {
	out := request{
		Model:       cmp.Or(req.Model, a.inf.Model),
		MaxTokens:   firstPositive(req.MaxTokens, a.inf.MaxTokens, defaultMaxTokens),
		System:      req.System,
		Temperature: a.cfg.Temperature,
		TopP:        a.cfg.TopP,
		TopK:        a.cfg.TopK,
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if req.ToolChoice() == "required" {
		out.ToolChoice = &typed{Type: "any"}
	}
	if a.cfg.Thinking == "enabled" {
		budget := defaultThinkingBudget
		if a.cfg.ThinkingBudget != nil {
			budget = *a.cfg.ThinkingBudget
		}
		out.Thinking = &thinkingConfig{Type: "enabled", BudgetTokens: budget}
	}
	for _, m := range req.Messages {
		blocks, err := m.Blocks()
		if err != nil {
			return nil, err
		}
		switch m.Role {
		case "tool":
			res := toolResultBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: wireBlocks(blocks), IsError: m.IsError != nil && *m.IsError}
			// Every tool result of one assistant turn goes in one user message.
			if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == "user" && isToolResults(out.Messages[n-1]) {
				out.Messages[n-1].Content = append(out.Messages[n-1].Content, res)
				continue
			}
			out.Messages = append(out.Messages, message{Role: "user", Content: []any{res}})
		case "user", "assistant":
			out.Messages = append(out.Messages, message{Role: m.Role, Content: wireBlocks(blocks)})
		default:
			return nil, fmt.Errorf("message role %q is not user, assistant or tool", m.Role)
		}
	}
	return json.Marshal(out)
}

func isToolResults(m message) bool {
	for _, c := range m.Content {
		if _, ok := c.(toolResultBlock); !ok {
			return false
		}
	}
	return len(m.Content) > 0
}

// wireBlocks maps canonical blocks to Messages blocks; a type the
// canonical format does not define is passed through as the loop built it.
func wireBlocks(blocks []inference.ContentBlock) []any {
	out := make([]any, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, textBlock{Type: "text", Text: b.Text})
		case "thinking":
			out = append(out, thinkingBlock{Type: "thinking", Thinking: b.Text, Signature: b.Signature})
		case "tool_call":
			out = append(out, toolUseBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: b.Input})
		case "image":
			out = append(out, imageBlock{Type: "image", Source: b.Source})
		default:
			out = append(out, b.Raw)
		}
	}
	return out
}

func firstPositive(n ...int) int {
	for _, v := range n {
		if v > 0 {
			return v
		}
	}
	return 0
}
