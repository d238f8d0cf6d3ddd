package httpapi

import (
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// Defaults of Options.
const (
	DefaultMaxRetries    = 8
	DefaultBaseDelay     = time.Second
	DefaultMaxDelay      = 30 * time.Second
	DefaultMaxRetryAfter = 10 * time.Minute
)

// Options configure a Client. Zero values take the defaults.
type Options struct {
	// MaxConnections bounds concurrent requests per endpoint across all
	// cases; 0 means no bound (the run's workers bound it).
	MaxConnections int
	// FixedConnections keeps each endpoint's bound at MaxConnections;
	// otherwise it adapts (aimd.go): halved on a 429 or 503, at most once
	// per round of requests, held through a Retry-After, grown by one per
	// limit's worth of successful answers, within [1, MaxConnections], or
	// with no MaxConnections within [1, max(Workers, most in flight)] once
	// the endpoint first answers 429 or 503.
	FixedConnections bool
	// Workers is the run's --workers (see FixedConnections).
	Workers int
	// OnConnections hears each change of an endpoint's adaptive limit. It
	// is called with the endpoint's lock held: it must not block for long
	// or send requests through the Client.
	OnConnections func(ConnectionChange)
	// IdleConnsPerHost is how many idle connections to keep per host for
	// reuse; 0 means max(MaxConnections, 16).
	IdleConnsPerHost int
	// MaxRetries is how many times one request is retried; -1 never.
	MaxRetries int
	// BaseDelay and MaxDelay shape the backoff: BaseDelay·2^(n-1), capped.
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a longer one ends
	// the request at once, as does one past the case's deadline.
	MaxRetryAfter time.Duration
	// Proxy picks a proxy per request; nil means none.
	Proxy func(*http.Request) (*url.URL, error)
	// Transport replaces the HTTP transport (tests); Proxy and the
	// connection settings are then ignored.
	Transport http.RoundTripper
	// Jitter returns a random duration in [0, d]; nil means math/rand/v2.
	Jitter func(d time.Duration) time.Duration
	// Now is the clock for Retry-After dates and deadlines; nil: time.Now.
	Now func() time.Time
	// UnreachableAfter is how many failed first requests (no connection:
	// refused, DNS, TLS; or credentials refused), with none getting
	// through, declare an endpoint unreachable: every request to it then
	// fails at once with E-EVL-018. 0 means DefaultUnreachableAfter; -1
	// never.
	UnreachableAfter int
	// OnUnreachable is called once per endpoint declared unreachable, with
	// the error naming it and the cause (the run stops starting cases).
	OnUnreachable func(error)
}

// Client sends requests for every case of a run. It is safe for concurrent
// use; its connection pool and per-endpoint limits are shared by all the
// providers it hands out.
type Client struct {
	hc     *http.Client
	limits *limiter
	reach  *reach
	opts   Options
}

// NewClient returns a Client with o's settings.
func NewClient(o Options) *Client {
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = DefaultBaseDelay
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if o.Jitter == nil {
		o.Jitter = func(d time.Duration) time.Duration {
			if d <= 0 {
				return 0
			}
			return rand.N(d + 1)
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	rt := o.Transport
	if rt == nil {
		idle := o.IdleConnsPerHost
		if idle <= 0 {
			idle = max(o.MaxConnections, 16)
		}
		rt = &http.Transport{
			Proxy:                 o.Proxy,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConnsPerHost:   idle,
			MaxConnsPerHost:       max(o.MaxConnections, 0),
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	return &Client{hc: &http.Client{Transport: rt, CheckRedirect: noRedirects}, limits: newLimiter(o),
		reach: newReach(o.UnreachableAfter, o.OnUnreachable), opts: o}
}

// Provider returns a case's provider speaking api through c.
func (c *Client) Provider(api API) inference.Provider { return &provider{c: c, api: api} }

// Connections are the ranges the endpoints' limits ran at so far, by
// endpoint: each endpoint with a bound, and each with none that adapted.
func (c *Client) Connections() []ConnectionRange { return c.limits.ranges() }

// CloseIdleConnections closes the pooled connections; call it when the run
// ends.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }
