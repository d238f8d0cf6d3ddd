package process

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// BridgePath is where the bridge answers.
const BridgePath = "/bridge"

// maxRequestBytes bounds one JSON-RPC request body.
const maxRequestBytes = 16 << 20

// Dispatch runs one bridged tool call in the case's sandbox and returns
// the text the CLI's model sees and whether it is an error. The bridge
// calls it from its HTTP goroutines, one call at a time per Bridge; the
// caller serialises nothing itself.
type Dispatch func(name string, input json.RawMessage) (text string, isError bool)

// Bridge is the Claude Bridge of one case: a loopback HTTP server on a
// random port, answering MCP's JSON-RPC methods initialize, tools/list and
// tools/call (plus ping, and notifications with 202) for requests that
// carry the case's bearer token.
type Bridge struct {
	ln        net.Listener
	srv       *http.Server
	url       string
	token     string
	sessionID string
	tools     []mcpTool
	dispatch  Dispatch
	calls     chan struct{} // a one-slot semaphore: tool calls run one at a time
}

type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// StartBridge serves inventory on 127.0.0.1:<random port>/bridge until
// Close.
func StartBridge(inventory []inference.Tool, dispatch Dispatch) (*Bridge, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("claude bridge: listen on loopback: %w", err)
	}
	b := &Bridge{
		ln:        ln,
		url:       "http://" + ln.Addr().String() + BridgePath,
		token:     randomHex(16),
		sessionID: randomHex(16),
		dispatch:  dispatch,
		calls:     make(chan struct{}, 1),
	}
	for _, t := range inventory {
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		b.tools = append(b.tools, mcpTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	mux := http.NewServeMux()
	mux.HandleFunc(BridgePath, b.serve)
	b.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

func randomHex(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
}

// URL is the bridge's address, http://127.0.0.1:<port>/bridge.
func (b *Bridge) URL() string { return b.url }

// Token is the bearer token every request must carry.
func (b *Bridge) Token() string { return b.token }

// MCPConfig is the --mcp-config JSON that points Claude Code at the
// bridge: one streamable-HTTP server named claude_bridge with the token.
func (b *Bridge) MCPConfig() string {
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	cfg, _ := json.Marshal(map[string]map[string]server{"mcpServers": {BridgeServer: {
		Type: "http", URL: b.url, Headers: map[string]string{"Authorization": "Bearer " + b.token},
	}}})
	return string(cfg)
}

// Close stops the server and waits for calls in flight to return.
func (b *Bridge) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.srv.Shutdown(ctx); err != nil {
		return b.srv.Close()
	}
	return nil
}

// Request is one JSON-RPC 2.0 request as the bridge reads it. ID is nil
// for a notification.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// ParseRequest reads one JSON-RPC request object. A batch (an array), a
// non-object, a missing method or an id that is neither a string, a number
// nor null is an error.
func ParseRequest(body []byte) (Request, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return Request{}, errors.New("request is not a JSON object")
	}
	var r Request
	if err := json.Unmarshal(body, &r); err != nil {
		return Request{}, err
	}
	if r.Method == "" {
		return Request{}, errors.New("request has no method")
	}
	if len(r.ID) > 0 {
		switch r.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		case 'n': // null: answered like any id, as JSON-RPC allows
		default:
			return Request{}, errors.New("request id must be a string or a number")
		}
	}
	return r, nil
}

// callParams are tools/call's params.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (b *Bridge) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// No server-to-client stream (GET) and no session delete: JSON
		// responses only.
		w.Header().Set("Allow", http.MethodPost)
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	want := []byte("Bearer " + b.token)
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err != nil {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		return
	}
	req, err := ParseRequest(body)
	if err != nil {
		writeJSON(w, map[string]any{"jsonrpc": "2.0", "id": nil,
			"error": map[string]any{"code": -32700, "message": "parse error: " + err.Error()}}, http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 { // a notification (notifications/initialized, cancelled, ...)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result any
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2024-11-05"
		}
		w.Header().Set("Mcp-Session-Id", b.sessionID)
		result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "murmur-eval-bridge", "version": "1"},
		}
	case "ping":
		result = map[string]any{}
	case "tools/list":
		tools := b.tools
		if tools == nil {
			tools = []mcpTool{}
		}
		result = map[string]any{"tools": tools}
	case "tools/call":
		var p callParams
		if err := json.Unmarshal(req.Params, &p); err != nil || p.Name == "" {
			writeJSON(w, rpcError(req.ID, -32602, "invalid params: tools/call needs a name"), http.StatusOK)
			return
		}
		input := p.Arguments
		if len(input) == 0 || string(input) == "null" {
			input = json.RawMessage("{}")
		}
		b.calls <- struct{}{}
		text, isError := b.dispatch(p.Name, input)
		<-b.calls
		result = map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": isError}
	default:
		writeJSON(w, rpcError(req.ID, -32601, "method not found"), http.StatusOK)
		return
	}
	writeJSON(w, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result}, http.StatusOK)
}

func rpcError(id json.RawMessage, code int, msg string) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}}
}

func writeJSON(w http.ResponseWriter, v any, status int) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
