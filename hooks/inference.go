package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// RunInferenceMaxTokens is the output cap of a hook's completion: murmur's
// run-inference always asks for 8192, never the manifest's cap.
const RunInferenceMaxTokens = 8192

// InferenceRequest is what a hook sends to run_inference (murmur's
// inference-request).
type InferenceRequest struct {
	Messages     []Message `json:"messages"`
	SystemPrompt *string   `json:"system_prompt"`
	Model        *string   `json:"model"`
}

// InferenceResponse is run_inference's answer (murmur's
// inference-response); a failure is {"error": "..."} instead.
type InferenceResponse struct {
	Text         string `json:"text"`
	ModelUsed    string `json:"model_used"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

// InferenceRecord is one hook completion, for the trace's inference event
// with origin "hook:<name>", written at the turn of the event that was
// being handled.
type InferenceRecord struct {
	Hook, Model, Decision     string // Decision: end_turn or error
	InputTokens, OutputTokens int64
	TokensSource              string // provider or estimate
	// CachedInputTokens is the part of InputTokens the provider served
	// from its prompt cache, when it said (priced apart: package pricing).
	CachedInputTokens int64
}

// UseModel lets the case's blocking hooks call the case's model through
// run_inference; model is inference.model, the default. Without it (the
// process transport) run_inference answers murmur's "not configured" error.
func (d *Dispatcher) UseModel(p inference.Provider, model string) {
	if d != nil {
		d.model, d.modelName = p, model
	}
}

// TakeInferences returns the hook completions made since the last call.
func (d *Dispatcher) TakeInferences() []InferenceRecord {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.inferences
	d.inferences = nil
	return r
}

// hostCalls serves one hook call's run_inference.
type hostCalls struct {
	d *Dispatcher
	h *Hook
}

func (hc hostCalls) RunInference(ctx context.Context, request []byte) []byte {
	resp, err := hc.d.runInference(ctx, hc.h, request)
	var b []byte
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	} else {
		b, _ = json.Marshal(resp)
	}
	return b
}

// runInference is murmur's run-inference (murmur-session.md §4.5): the
// messages as text blocks, no tools, 8192 output tokens, the given system
// prompt (or ""), the given model (or inference.model), through the case's
// own model provider; the text is the response's text blocks joined.
func (d *Dispatcher) runInference(ctx context.Context, h *Hook, request []byte) (InferenceResponse, error) {
	if err := d.canInfer(h); err != nil {
		return InferenceResponse{}, err
	}
	var in InferenceRequest
	if err := json.Unmarshal(request, &in); err != nil {
		return InferenceResponse{}, errors.New("run-inference request is not valid JSON: " + err.Error())
	}
	return d.runRequest(ctx, h, in)
}

// canInfer is why h may not call run-inference now, nil if it may.
func (d *Dispatcher) canInfer(h *Hook) error {
	if h.Mode == Async {
		return errors.New("run-inference is not available to async hooks in murmur-eval")
	}
	if d.model == nil {
		return errors.New("inference driver is not configured; add inference.driver.artifact to murmur.yaml")
	}
	return nil
}

// runRequest runs one decoded run-inference request (both hook kinds).
func (d *Dispatcher) runRequest(ctx context.Context, h *Hook, in InferenceRequest) (InferenceResponse, error) {
	if err := d.canInfer(h); err != nil {
		return InferenceResponse{}, err
	}
	req := &inference.Request{MaxTokens: RunInferenceMaxTokens, Model: d.modelName,
		Messages: make([]inference.Message, 0, len(in.Messages)), Params: json.RawMessage("{}"), Tools: []inference.Tool{}}
	if in.Model != nil && *in.Model != "" {
		req.Model = *in.Model
	}
	if in.SystemPrompt != nil {
		req.System = *in.SystemPrompt
	}
	for _, m := range in.Messages {
		msg := inference.UserMessage(m.Content)
		msg.Role = m.Role
		req.Messages = append(req.Messages, msg)
	}
	payload, _ := json.Marshal(req)
	rec := InferenceRecord{Hook: h.Name, Model: req.Model, Decision: "error", InputTokens: int64(len(payload) / 4), TokensSource: "estimate"}
	resp, err := d.model.Complete(ctx, req, inference.NopObserver{})
	if err == nil && resp.StopReason == inference.StopError {
		msg := resp.Error
		if msg == "" {
			msg = "driver returned error"
		}
		err = errors.New(msg)
	}
	if err != nil {
		d.record(rec)
		return InferenceResponse{}, err
	}
	rec.Decision = "end_turn"
	if resp.Usage != nil {
		rec.InputTokens, rec.OutputTokens, rec.TokensSource = resp.Usage.InputTokens, resp.Usage.OutputTokens, "provider"
		rec.CachedInputTokens = resp.Usage.CachedInputTokens
	} else {
		rec.OutputTokens = int64(len(resp.Raw) / 4)
	}
	d.record(rec)
	var text strings.Builder
	for _, b := range resp.Blocks {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	return InferenceResponse{Text: text.String(), ModelUsed: req.Model, InputTokens: rec.InputTokens, OutputTokens: rec.OutputTokens}, nil
}

func (d *Dispatcher) record(r InferenceRecord) {
	d.mu.Lock()
	d.inferences = append(d.inferences, r)
	d.mu.Unlock()
}
