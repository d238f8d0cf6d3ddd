package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// connectionsLog is the run folder's file of the model endpoints'
// changes of requests in flight (--connections adaptive).
const connectionsLog = "logs/connections.jsonl"

// --connections' values.
const (
	connectionsAdaptive = "adaptive"
	connectionsFixed    = "fixed"
)

// connectionLog is the run's record of each change of an endpoint's limit
// (httpapi.ConnectionChange): a line of logs/connections.jsonl in the run
// folder, created at the first change, and an event on the run's span.
// The HTTP client calls record with the endpoint's lock held, from any
// goroutine, so it writes at once under its own mutex (changes are a few
// per burst of 429s) rather than through a channel and a goroutine. The
// client is built before the run folder is open: changes before open are
// kept and written then.
type connectionLog struct {
	mu      sync.Mutex
	path    string // "" until open
	pending []httpapi.ConnectionChange
	f       *os.File
	span    oteltrace.Span
	err     error // the first write error; later changes are dropped
	// ranges are the endpoints' ranges (models.Models.Connections).
	ranges func() []httpapi.ConnectionRange
}

// record writes c (httpapi.Options.OnConnections).
func (l *connectionLog) record(c httpapi.ConnectionChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path == "" {
		l.pending = append(l.pending, c)
		return
	}
	l.event(c)
	l.write(c)
}

// event adds c to the run's span, if any.
func (l *connectionLog) event(c httpapi.ConnectionChange) {
	if l.span == nil {
		return
	}
	l.span.AddEvent("murmur_eval.connections", oteltrace.WithTimestamp(c.Time), oteltrace.WithAttributes(
		attribute.String("murmur_eval.endpoint", c.Endpoint),
		attribute.Int("murmur_eval.from", c.From),
		attribute.Int("murmur_eval.to", c.To),
		attribute.String("murmur_eval.reason", c.Reason)))
}

// write appends c's line, opening the file at the first one; the first
// error is kept for close and stops later writes.
func (l *connectionLog) write(c httpapi.ConnectionChange) {
	if l.err != nil {
		return
	}
	if l.f == nil {
		if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
			l.err = errcode.Wrap(errcode.IO, err, "%s", l.path)
			return
		}
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			l.err = errcode.Wrap(errcode.IO, err, "%s", l.path)
			return
		}
		l.f = f
	}
	line, err := json.Marshal(c)
	if err == nil {
		_, err = l.f.Write(append(line, '\n'))
	}
	if err != nil {
		l.err = errcode.Wrap(errcode.IO, err, "%s", l.path)
	}
}

// open starts writing into the run folder outAbs and, when span is not
// nil, adding each change to it as an event, the changes so far first.
func (l *connectionLog) open(outAbs string, span oteltrace.Span) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.path, l.span = filepath.Join(outAbs, filepath.FromSlash(connectionsLog)), span
	for _, c := range l.pending {
		l.event(c)
		l.write(c)
	}
	l.pending = nil
}

// close closes the file; its error is the first write's or close's.
func (l *connectionLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.span = nil
	if l.f != nil {
		if err := l.f.Close(); err != nil && l.err == nil {
			l.err = errcode.Wrap(errcode.IO, err, "%s", l.path)
		}
		l.f = nil
	}
	return l.err
}

// digest is summary.json's connections: the endpoints' ranges.
func (l *connectionLog) digest() []reports.ConnectionsDigest {
	if l == nil || l.ranges == nil {
		return nil
	}
	var out []reports.ConnectionsDigest
	for _, r := range l.ranges() {
		out = append(out, reports.ConnectionsDigest{Endpoint: r.Endpoint, MaxAllowed: r.MaxAllowed, Min: r.Min, Max: r.Max, Final: r.Final,
			Decreases: r.Decreases, Increases: r.Increases, Reasons: r.Reasons})
	}
	return out
}
