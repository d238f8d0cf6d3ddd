package inference

import (
	"context"
	"encoding/json"
	"time"
)

// Provider answers one case's model requests, turn by turn. A Provider
// belongs to one case and is not safe for concurrent use.
type Provider interface {
	// Complete answers req. obs hears, on the caller's goroutine and before
	// Complete returns, what happened besides the answer (retried attempts,
	// a replayed request that differs from the recorded one); it must not
	// be nil (use NopObserver). An error is the case's end: a coded error
	// for the provider's failure, or one wrapping ctx.Err() when the case's
	// context ended.
	Complete(ctx context.Context, req *Request, obs Observer) (*Response, error)
}

// Source hands out a Provider per case. It is shared by all cases of a run
// and must be safe for concurrent use. ForCase returns a nil Provider and
// no error for a transport: process capsule the source leaves to its CLI
// (the live source); a replay source serves its recordings for it.
type Source interface {
	ForCase(ctx context.Context, c Case) (Provider, error)
}

// Case is what a Source knows of the case it serves.
type Case struct {
	ID string
	// Epoch is the case's 1-based epoch; 0 when the caller runs no epochs
	// (a judge's request). The model-turn cache keys on it, so each epoch
	// keeps its own answers.
	Epoch int
	// Variant is the run's variant the case runs ("" for none): a
	// recording is kept per case and variant (replay.CaseFileName).
	Variant string
	// Workdir is the session folder as the system prompt names it. Request
	// digests replace it with a placeholder, so a recording made in one run
	// folder checks the requests of a replay in another.
	Workdir string
	// Inference is the capsule's inference block.
	Inference Config
	// Driver runs the capsule's installed driver component; nil when the
	// driver artifact is not installed (a built-in provider may serve).
	// Sources that do not run drivers (replay) ignore it.
	Driver Driver
}

// Config is the manifest's inference block as the providers use it
// (murmur-formats.md §1.5).
type Config struct {
	Transport      string // "http" or "process"
	Endpoint       string
	Model          string
	APIKey         string
	MaxTokens      int
	DriverArtifact string
	DriverConfig   json.RawMessage // compact JSON object, nil when absent
}

// Observer hears what a provider did besides answering. A case's provider
// calls it from the case's goroutine only.
type Observer interface {
	// Retried reports an attempt that failed and will be retried after
	// r.Wait.
	Retried(r Retry)
	// Diverged reports a replayed turn whose request differs from the one
	// recorded with it.
	Diverged(d Divergence)
	// Cached reports a turn looked up in the model-turn cache (--cache):
	// hit when the cache answered it, a miss when the model was asked.
	Cached(hit bool)
}

// Reasons an attempt is retried.
const (
	RetryRateLimited = "rate_limited" // HTTP 429
	RetryServer      = "server_error" // HTTP 408 or 5xx
	RetryConnection  = "connection"   // no response: refused, reset, cut short
)

// Retry is one failed attempt that will be retried.
type Retry struct {
	Attempt    int            // 1-based number of the attempt that failed
	Status     int            // HTTP status; 0 when no response arrived
	Reason     string         // RetryRateLimited, RetryServer or RetryConnection
	Wait       time.Duration  // the pause before the next attempt
	RetryAfter *time.Duration // what the server asked for, nil when it did not
	Err        string         // what failed
}

// Divergence is a replayed turn whose request is not the recorded one.
type Divergence struct {
	Turn     int    // 0-based index of the recorded turn
	Recorded string // the recording's request_sha256
	Got      string // RequestDigest of the request the loop sent
}

// NopObserver ignores everything.
type NopObserver struct{}

// Retried does nothing.
func (NopObserver) Retried(Retry) {}

// Diverged does nothing.
func (NopObserver) Diverged(Divergence) {}

// Cached does nothing.
func (NopObserver) Cached(bool) {}
