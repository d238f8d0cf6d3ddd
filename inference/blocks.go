package inference

import (
	"encoding/json"
	"fmt"
)

// ContentBlock is one block of a request message's content, decoded for the
// wire formats. Raw is the block as the loop built it.
type ContentBlock struct {
	Type      string
	Text      string          // text and thinking blocks
	Signature string          // thinking blocks
	ID, Name  string          // tool_call blocks
	Input     json.RawMessage // tool_call blocks; "{}" when absent
	Source    json.RawMessage // image blocks: {type, media_type, data}
	Raw       json.RawMessage
}

// Blocks decodes the message's content array.
func (m Message) Blocks() ([]ContentBlock, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(m.Content, &raws); err != nil {
		return nil, fmt.Errorf("%s message: content is not an array of blocks", m.Role)
	}
	blocks := make([]ContentBlock, 0, len(raws))
	for i, raw := range raws {
		var w struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Signature string          `json:"signature"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			Source    json.RawMessage `json:"source"`
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("%s message: block %d: %w", m.Role, i, err)
		}
		if len(w.Input) == 0 || string(w.Input) == "null" {
			w.Input = json.RawMessage("{}")
		}
		blocks = append(blocks, ContentBlock{Type: w.Type, Text: w.Text, Signature: w.Signature,
			ID: w.ID, Name: w.Name, Input: w.Input, Source: w.Source, Raw: raw})
	}
	return blocks, nil
}

// ToolChoice is the request's params.tool_choice ("required", "auto",
// "none"), "" when unset. The agent loop always sends empty params.
func (r *Request) ToolChoice() string {
	var p struct {
		ToolChoice string `json:"tool_choice"`
	}
	_ = json.Unmarshal(r.Params, &p)
	return p.ToolChoice
}
