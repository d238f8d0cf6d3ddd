package genai

import (
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// Chat is what a model call's span records when it starts: the same for
// every call of one case, so its attributes are built once (Attributes).
type Chat struct {
	Model     string // inference.model, the requested model
	Provider  string // gen_ai.provider.name ("anthropic", "openai"); "" when unknown
	Endpoint  string // inference.endpoint, for server.address and server.port; "" when none
	MaxTokens int    // inference.max_tokens; 0 when unset
}

// SpanName is the model call span's name: "chat {gen_ai.request.model}",
// or "chat" without a model.
func (c Chat) SpanName() string {
	if c.Model == "" {
		return string(OperationChat)
	}
	return string(OperationChat) + " " + c.Model
}

// Operation is a gen_ai.operation.name value.
type Operation string

// The operations murmur-eval records.
const (
	OperationChat        Operation = "chat"
	OperationExecuteTool Operation = "execute_tool"
	OperationInvokeAgent Operation = "invoke_agent"
)

// Attributes are the model call span's start attributes.
func (c Chat) Attributes() []attribute.KeyValue {
	out := []attribute.KeyValue{
		semconv.GenAIOperationNameKey.String(string(OperationChat)),
		semconv.GenAIRequestModel(c.Model),
	}
	if c.Provider != "" {
		out = append(out, semconv.GenAIProviderNameKey.String(c.Provider))
	}
	if c.MaxTokens > 0 {
		out = append(out, semconv.GenAIRequestMaxTokens(c.MaxTokens))
	}
	if host, port, ok := server(c.Endpoint); ok {
		out = append(out, semconv.ServerAddress(host), semconv.ServerPort(port))
	}
	return out
}

// server is the endpoint's host and port, the scheme's default port when
// the URL names none.
func server(endpoint string) (string, int, bool) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return "", 0, false
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		return u.Hostname(), n, err == nil
	}
	switch u.Scheme {
	case "https":
		return u.Hostname(), 443, true
	case "http":
		return u.Hostname(), 80, true
	}
	return "", 0, false
}

// ChatResponse are the attributes of a model call's answer: its stop
// reason as the one finish reason, and the provider's reported usage when
// it reported one.
func ChatResponse(stopReason string, usage *Usage) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, 4) // room for the caller's stop reason
	if stopReason != "" {
		out = append(out, semconv.GenAIResponseFinishReasons(stopReason))
	}
	if usage != nil {
		out = append(out, semconv.GenAIUsageInputTokensKey.Int64(usage.Input),
			semconv.GenAIUsageOutputTokensKey.Int64(usage.Output))
	}
	return out
}

// Usage is a model call's token usage as its provider reported it.
type Usage struct {
	Input, Output int64
}

// ErrorType is error.type for a failed operation: murmur-eval's stable
// error code (E-PRV-003, ...), or "_OTHER" when the failure has none, as
// the conventions ask.
func ErrorType(code string) attribute.KeyValue {
	if code == "" {
		code = "_OTHER"
	}
	return semconv.ErrorTypeKey.String(code)
}
