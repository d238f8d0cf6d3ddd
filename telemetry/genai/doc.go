// Package genai names murmur-eval's spans and events in the words of the
// OpenTelemetry GenAI semantic conventions (semconv v1.41.0, the newest
// version with GenAI keys in go.opentelemetry.io/otel/semconv at the
// module's version): a "chat {model}" CLIENT span per model call, an
// "execute_tool {name}" INTERNAL span per tool call, the invoke_agent
// attributes of a case span, and a gen_ai.evaluation.result event per
// score. It only builds names and attributes; the spans are made by the
// session's wrappers (session/observe.go) and the executor.
package genai
