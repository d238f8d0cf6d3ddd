package component

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/internal/wasi"
)

// Env is what one call gives the guest.
type Env struct {
	// Name names the artifact in messages.
	Name string
	// Root is preopened as "." (the accessible workdir or the artifact's
	// scoped subfolder); nil gives the guest no preopen. Every path is
	// resolved inside it by os.Root, so neither ".." nor a symlink leads
	// out.
	Root *os.Root
	// OpenRoot, when Root is nil, opens the preopen only if the guest
	// asks for its preopens, and the call closes it; a guest that never
	// touches the file system (murmur's drivers) costs no open. An error
	// it returns fails the call as the host's I/O error (E-IO-003), never
	// as the guest's trap.
	OpenRoot func() (*os.Root, error)
	// Env is the guest's whole environment, "K=V" entries.
	Env []string
	// Args is the guest's argv (wasi:cli/environment.get-arguments).
	Args []string
	// Stdin is what the guest reads on standard input.
	Stdin []byte
	// Deadline bounds the call; 0 means none. The runtime must have been
	// configured WithCloseOnContextDone(true).
	Deadline time.Duration
	// MemoryLimitBytes caps the instance's linear memory; 0 means none.
	MemoryLimitBytes uint64
	// MaxOutputBytes caps each of stdout and stderr; 0 means 16 MiB.
	MaxOutputBytes int
	// Registry serves murmur:tool-registry/invoke for script capsules; nil
	// makes every invoke fail.
	Registry Registry
	// Inference serves a hook's murmur:runtime/inference run-inference;
	// nil answers murmur's "not configured" error.
	Inference Inference
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// Network is the guest's effective network allow list
	// (capsule.Manifest.NetworkRules): wasi:http requests are matched
	// against it as murmur matches them. Nil or empty denies every request
	// with HTTP-request-denied.
	Network []capsule.AllowRule
	// HTTP performs the allowed requests; nil means NewHTTPClient() for
	// this call alone. Its redirect policy should return the 3xx itself, as
	// wasi:http does (NewHTTPClient's does): a followed redirect would
	// bypass Network.
	HTTP *http.Client
	// MaxHTTPBodyBytes caps each outgoing request body and each incoming
	// response body; 0 means 16 MiB.
	MaxHTTPBodyBytes int64
	// OnHTTPDenied, when set, is told of each request the allow list
	// denied (for the trace), on the guest's goroutine.
	OnHTTPDenied func(capsule.Target)
}

// Registry is the tools a script capsule may invoke. The caller decides
// what is allowlisted; an error becomes the guest's err(string) result
// with the error's text. It is called on the guest's goroutine.
type Registry interface {
	Invoke(ctx context.Context, name string, input ToolInput) (ToolResult, error)
}

// Inference is the model a hook may call through run-inference. An error
// becomes the guest's err(string) with the error's text. It is called on
// the guest's goroutine.
type Inference interface {
	RunInference(ctx context.Context, req InferenceRequest) (InferenceResponse, error)
}

// InferenceRequest is murmur:runtime/inference's inference-request.
type InferenceRequest struct {
	Messages     []Message
	SystemPrompt *string
	Model        *string
}

// InferenceResponse is murmur:runtime/inference's inference-response.
type InferenceResponse struct {
	Text, ModelUsed           string
	InputTokens, OutputTokens uint64
}

// Chunk is one murmur:text/chunks emission.
type Chunk struct {
	Thinking bool
	Text     string
}

// state is one call's host-side state, reached by host functions through
// the call's context: the WASI layer's Host (the canonical ABI frame, the
// resource table, stdout, stderr, outgoing HTTP) and murmur's own.
type state struct {
	wasi.Host
	env    *Env
	chunks []Chunk
	// hostCalls counts the host functions called with this state, so that
	// an instantiation that called the host is known (reuse).
	hostCalls int
}

// NewHTTPClient is the client a call gets when Env.HTTP is nil: Go's
// default transport without proxies from the environment, TLS verified
// against the system roots, and redirects returned to the guest as the
// 3xx they are (wasi:http does not follow them). A run shares one.
func NewHTTPClient() *http.Client { return wasi.NewHTTPClient() }
