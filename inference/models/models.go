// Package models builds where a run's model turns come from: the
// recordings of --replay, the live source (a driver component or a
// built-in provider) optionally recorded by --record, and the one HTTP
// client every component guest's wasi:http goes through.
package models

import (
	"net/http"
	"net/url"
	"path/filepath"

	"golang.org/x/net/http/httpproxy"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/cache"
	"github.com/murmur-nexus/murmur-eval/inference/driver"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/inference/live"
	"github.com/murmur-nexus/murmur-eval/inference/record"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// Flags are the run settings that decide where model turns come from.
type Flags struct {
	Replay         string // --replay DIR
	Record         string // --record DIR
	Cache          string // --cache DIR, the model-turn cache
	MaxConnections int    // --max-connections N, per endpoint; 0 for no bound
	Workers        int    // --workers, to size the idle connection pool
	// FixedConnections is --connections fixed: no adaptation to 429s and
	// 503s; OnConnections hears each change of an endpoint's limit.
	FixedConnections bool
	OnConnections    func(httpapi.ConnectionChange)
	// OnUnreachable stops the run when a model endpoint's first requests
	// all fail to connect or are refused for their credentials.
	OnUnreachable func(error)
	// Judge asks for the judge's source too (Models.Judge): the run has
	// llm_judge scorers and a judge model.
	Judge bool
}

// JudgeDir is the folder, inside --record's and --replay's, of the judge's
// recordings: one file per case, as the model's, apart from them.
const JudgeDir = "judge"

// Models are where a run's model turns come from, and the client every
// component guest's wasi:http goes through.
type Models struct {
	Source inference.Source
	// Guests is the run's one client for guests' wasi:http (tools, the
	// driver, hooks): --max-connections per endpoint, traceparent, retries
	// for the driver (httpapi.Client.GuestClient).
	Guests *http.Client
	// Judge answers the llm_judge scorers' requests (nil unless
	// Flags.Judge): the live client, recorded into or replayed from
	// JudgeDir of --record or --replay.
	Judge inference.Source
	Close func() // closes pooled connections when the run ends
	// Connections are the ranges the endpoints' limits ran at.
	Connections func() []httpapi.ConnectionRange
	// Caches are the model's and the judge's cache sources under --cache
	// (nil without it), for the run's counts.
	Caches []*cache.Source
}

// New builds the run's model source:
//
//	--replay DIR   the recordings in DIR; no network, no driver run
//	--record DIR   the live source, every answer also written to DIR
//	--cache DIR    the live source read through the cache in DIR
//	neither        the live source
//
// The live source runs the capsule's driver component when its artifact
// is installed, else the built-in provider chosen from the manifest's
// inference.driver (docs/providers.md). Giving --replay with --record or
// --cache is a usage error: --replay stays strict. --cache combines with
// --record: a cached turn is recorded too, so the recording is whole.
// The judge's source (Flags.Judge) is read through the same cache.
func New(f Flags, env map[string]string) (Models, error) {
	switch {
	case f.Replay != "" && f.Record != "":
		return Models{}, errcode.New(errcode.Usage, "--replay and --record cannot be used together").
			WithHint("record against the live API with --record DIR, then replay it with --replay DIR")
	case f.Replay != "" && f.Cache != "":
		return Models{}, errcode.New(errcode.Usage, "--replay and --cache cannot be used together").
			WithHint("--replay serves its recordings in order and checks each request; drop --cache, or drop --replay to read through the cache")
	case f.MaxConnections < 0:
		return Models{}, errcode.New(errcode.Usage, "--max-connections must not be negative, got %d", f.MaxConnections)
	}
	client := httpapi.NewClient(httpapi.Options{
		MaxConnections:   f.MaxConnections,
		IdleConnsPerHost: max(f.MaxConnections, f.Workers),
		Proxy:            proxyFromEnv(env),
		OnUnreachable:    f.OnUnreachable,
		FixedConnections: f.FixedConnections,
		Workers:          f.Workers,
		OnConnections:    f.OnConnections,
	})
	m := Models{Guests: client.GuestClient(), Close: client.CloseIdleConnections, Connections: client.Connections}
	if f.Judge {
		judge, err := m.cached(f.Cache, live.New(client))
		if err != nil {
			return Models{}, err
		}
		if m.Judge, err = judgeSource(f, judge); err != nil {
			return Models{}, err
		}
	}
	if f.Replay != "" {
		src, err := replay.Open(f.Replay)
		if err != nil {
			return Models{}, err
		}
		m.Source = src
		return m, nil
	}
	src, err := m.cached(f.Cache, driver.New(live.New(client)))
	if err != nil {
		return Models{}, err
	}
	m.Source = src
	if f.Record != "" {
		rec, err := record.New(f.Record, m.Source)
		if err != nil {
			return Models{}, err
		}
		m.Source = rec
	}
	return m, nil
}

// cached reads inner through the cache in dir ("" for none); the model
// and the judge share it, their entries kept apart by their models.
func (m *Models) cached(dir string, inner inference.Source) (inference.Source, error) {
	if dir == "" {
		return inner, nil
	}
	c, err := cache.New(dir, inner)
	if err != nil {
		return nil, err
	}
	m.Caches = append(m.Caches, c)
	return c, nil
}

// CacheStats sums the counts of the run's caches.
func (m Models) CacheStats() cache.Stats {
	var sum cache.Stats
	for _, c := range m.Caches {
		st := c.Stats()
		sum.Hits += st.Hits
		sum.Misses += st.Misses
		sum.Corrupt += st.Corrupt
		sum.Unwritten += st.Unwritten
	}
	return sum
}

// judgeSource is the judge's source: replayed from --replay's JudgeDir,
// the live client recorded into --record's, or the live client.
func judgeSource(f Flags, live inference.Source) (inference.Source, error) {
	switch {
	case f.Replay != "":
		src, err := replay.Open(filepath.Join(f.Replay, JudgeDir))
		if errcode.Is(err, errcode.IONotFound) {
			return nil, errcode.New(errcode.IONotFound, "--replay %s has no %s folder of judge recordings", f.Replay, JudgeDir).
				WithHint("record the judge's answers with --record DIR and a judge model, then replay DIR")
		}
		return src, err
	case f.Record != "":
		return record.New(filepath.Join(f.Record, JudgeDir), live)
	}
	return live, nil
}

// proxyFromEnv honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case)
// from the run's environment map, as net/http would from the process's;
// loopback endpoints never go through a proxy.
func proxyFromEnv(env map[string]string) func(*http.Request) (*url.URL, error) {
	get := func(upper, lower string) string {
		if v := env[upper]; v != "" {
			return v
		}
		return env[lower]
	}
	cfg := &httpproxy.Config{
		HTTPProxy:  get("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: get("HTTPS_PROXY", "https_proxy"),
		NoProxy:    get("NO_PROXY", "no_proxy"),
	}
	if cfg.HTTPProxy == "" && cfg.HTTPSProxy == "" {
		return nil
	}
	pick := cfg.ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return pick(r.URL) }
}
