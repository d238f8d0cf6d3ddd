package inference

import "context"

// Driver runs a case's driver component once per model turn
// (murmur-session.md §2.1): a fresh instance, payload as tool-input.data,
// the driver's environment, allow list and the run's HTTP policy. Launch
// binds one to a case when the capsule's driver artifact is installed; a
// Source that serves drivers (inference/driver) reads it from Case.Driver.
// It is used from the case's goroutine only.
type Driver interface {
	// Run calls the driver. An error is a dispatch failure (instantiation,
	// trap, deadline, memory limit), murmur's "driver invocation failed";
	// the driver's own verdict is DriverResult.Status.
	Run(ctx context.Context, payload []byte) (DriverResult, error)
}

// DriverResult is the driver's murmur:tool/run tool-result, as the agent
// loop reads it: status, summary, data and metadata.
type DriverResult struct {
	Status   string // "passed", "failed" or "error"
	Summary  *string
	Data     *string
	Metadata [][2]string
	// Denied are the requests the driver's network.allow denied during
	// the run, each as its allow-list entry ("https://host:443"), in order.
	Denied []string
}

// DriverFailedField marks a recorded turn whose driver returned a status
// other than passed: `{"error":<text>,"murmur_eval_driver_failed":true,
// "stop_reason":"error"}`. inference/replay serves it back as
// Response.DriverFailed. It is murmur-eval's own field, named so that no
// canonical response carries it; a replayer that does not know it still
// ends the session failed with the same result.txt.
const DriverFailedField = "murmur_eval_driver_failed"

// ProviderUsageField holds, in a recorded turn, the provider's usage the
// response's own bytes do not carry: a driver component's turn, whose
// usage the host read from the provider's answer (murmur's drivers drop
// it). It is murmur-eval's own field, written before request_sha256 and
// taken off with it on replay, so the replayed bytes are the driver's.
const ProviderUsageField = "murmur_eval_provider_usage"
