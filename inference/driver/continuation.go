package driver

import (
	"crypto/sha256"
	"encoding/json"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// continuationKey is the reserved tool-result.metadata key (and request
// field) of murmur's driver continuation protocol (murmur-session.md §1.8).
const continuationKey = "continuation_id"

// continuation is a driver's promise to remember the conversation: the id
// it gave and the messages it had seen then (their count and digest).
type continuation struct {
	id     string
	acked  int
	prefix [sha256.Size]byte
}

// continuationID is the first continuation_id metadata value, "" when
// absent or empty (murmur: first in list order wins; empty is absent).
func continuationID(meta [][2]string) string {
	for _, kv := range meta {
		if kv[0] == continuationKey {
			return kv[1]
		}
	}
	return ""
}

// next is the continuation after a turn that sent messages: the driver's
// id with messages acknowledged, or none when it gave no id.
func (c *continuation) next(id string, messages []inference.Message) *continuation {
	if id == "" {
		return nil
	}
	return &continuation{id: id, acked: len(messages), prefix: digest(messages)}
}

// wire is the driver payload, keys in murmur's (sorted) order.
type wire struct {
	ContinuationID string              `json:"continuation_id,omitempty"`
	MaxTokens      int                 `json:"max_tokens"`
	Messages       []inference.Message `json:"messages"`
	Model          string              `json:"model"`
	Params         json.RawMessage     `json:"params"`
	System         string              `json:"system"`
	Tools          []inference.Tool    `json:"tools"`
}

// payload is req as the driver gets it, and how many of req's messages
// the driver will have seen once it answers. With a continuation whose
// acknowledged messages are still the conversation's first ones, only the
// later messages are sent, with continuation_id; otherwise (none held,
// or compaction replaced the history) all of them, and no id.
func (c *continuation) payload(req *inference.Request) ([]byte, int, error) {
	w := wire{MaxTokens: req.MaxTokens, Messages: req.Messages, Model: req.Model, Params: req.Params,
		System: req.System, Tools: req.Tools}
	if c != nil && c.acked <= len(req.Messages) && digest(req.Messages[:c.acked]) == c.prefix {
		w.ContinuationID, w.Messages = c.id, req.Messages[c.acked:]
	}
	if w.Messages == nil {
		w.Messages = []inference.Message{}
	}
	if w.Tools == nil {
		w.Tools = []inference.Tool{}
	}
	if len(w.Params) == 0 {
		w.Params = json.RawMessage("{}")
	}
	b, err := json.Marshal(w)
	return b, len(req.Messages), err
}

func digest(messages []inference.Message) [sha256.Size]byte {
	b, _ := json.Marshal(messages) // Messages hold only JSON values
	return sha256.Sum256(b)
}
