package httpapi

import (
	"slices"
	"time"
)

// ConnectionChange is one change of an endpoint's limit on requests in
// flight under adaptive connections: a line of the run's
// logs/connections.jsonl.
type ConnectionChange struct {
	Time     time.Time `json:"time"`
	Endpoint string    `json:"endpoint"` // scheme://host:port
	// From is the limit before; when an endpoint with no bound first
	// adapts, the requests that were in flight.
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason"` // ReasonRateLimited, ReasonUnavailable, ReasonRecovered
}

// ConnectionRange is the range one endpoint's limit ran at during a run.
type ConnectionRange struct {
	Endpoint string
	// MaxAllowed is --max-connections, 0 for no bound.
	MaxAllowed int
	// Min, Max and Final are the limit's lowest, highest and last values
	// (for an endpoint with no bound, from the requests in flight when it
	// first adapted).
	Min, Max, Final int
	// Decreases and Increases count the changes; Reasons are the
	// decreases' reasons, each once, in the order first seen.
	Decreases, Increases int
	Reasons              []string
}

// record counts c in r.
func (r *ConnectionRange) record(c change) {
	if r.Max == 0 { // an endpoint with no bound adapting for the first time
		r.Min, r.Max = c.from, c.from
	}
	r.Min, r.Max, r.Final = min(r.Min, c.to), max(r.Max, c.to), c.to
	if c.reason == ReasonRecovered {
		r.Increases++
	} else {
		r.Decreases++
		if !slices.Contains(r.Reasons, c.reason) {
			r.Reasons = append(r.Reasons, c.reason)
		}
	}
}
