package genai

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// ToolSpanName is a tool call span's name: "execute_tool {gen_ai.tool.name}".
func ToolSpanName(tool string) string {
	return string(OperationExecuteTool) + " " + tool
}

// ToolAttributes are a tool call span's start attributes. A capsule's
// tools are functions the model asks for and the agent (murmur-eval's
// loop) runs, so gen_ai.tool.type is "function". callID is the model's
// id for the call, "" when unknown.
func ToolAttributes(tool, callID string) []attribute.KeyValue {
	out := []attribute.KeyValue{
		semconv.GenAIOperationNameKey.String(string(OperationExecuteTool)),
		semconv.GenAIToolName(tool),
		semconv.GenAIToolType("function"),
	}
	if callID != "" {
		out = append(out, semconv.GenAIToolCallID(callID))
	}
	return out
}

// AgentAttributes mark a case span as the agent's invocation
// (gen_ai.operation.name invoke_agent) of the capsule name at version.
func AgentAttributes(name, version string) []attribute.KeyValue {
	out := []attribute.KeyValue{
		semconv.GenAIOperationNameKey.String(string(OperationInvokeAgent)),
		semconv.GenAIAgentName(name),
	}
	if version != "" {
		out = append(out, semconv.GenAIAgentVersion(version))
	}
	return out
}
