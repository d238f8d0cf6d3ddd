package main

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/progress"
)

func TestBatchFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		ok    bool
		shard datasets.Shard
		check func(t *testing.T, o options)
	}{
		{name: "defaults", ok: true, check: func(t *testing.T, o options) {
			if o.batch.epochs != 1 || o.batch.retries != 0 || o.batch.keepSessions != keepAll || o.batch.progress != progress.Auto {
				t.Errorf("defaults: %+v", o.batch)
			}
		}},
		{name: "epochs and pass@k", args: []string{"--epochs", "5", "--pass-at", "1,5"}, ok: true, check: func(t *testing.T, o options) {
			if diff := cmp.Diff([]int{1, 5}, o.batch.passAt); diff != "" || o.batch.epochs != 5 {
				t.Errorf("epochs %d pass-at %v", o.batch.epochs, o.batch.passAt)
			}
		}},
		{name: "pass@k beyond epochs", args: []string{"--epochs", "2", "--pass-at", "5"}},
		{name: "zero epochs", args: []string{"--epochs", "0"}},
		{name: "negative retries", args: []string{"--retries", "-1"}},
		{name: "bad keep-sessions", args: []string{"--keep-sessions", "some"}},
		{name: "bad progress", args: []string{"--progress", "fancy"}},
		{name: "bad filter", args: []string{"--filter", "[a"}},
		{name: "negative limit", args: []string{"--limit", "-2"}},
		{name: "shard flag", args: []string{"--shard", "1/3"}, ok: true, shard: datasets.Shard{Index: 1, Count: 3}},
		{name: "shard out of range", args: []string{"--shard", "3/3"}},
		{name: "indexed job", args: []string{"--shard-count", "4"}, env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, ok: true, shard: datasets.Shard{Index: 2, Count: 4}},
		{name: "shard flag wins over the index", args: []string{"--shard", "0/2", "--shard-count", "4"}, env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, ok: true, shard: datasets.Shard{Index: 0, Count: 2}},
		{name: "shard count from env", env: map[string]string{"JOB_COMPLETION_INDEX": "1", "MURMUR_EVAL_SHARD_COUNT": "2"}, ok: true, shard: datasets.Shard{Index: 1, Count: 2}},
		{name: "shard count without index", args: []string{"--shard-count", "4"}},
		{name: "index without count runs everything", env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, ok: true},
		{name: "otel from the standard variable", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, ok: true, check: func(t *testing.T, o options) {
			if o.batch.otelEndpoint != "http://collector:4318" {
				t.Errorf("otel endpoint %q", o.batch.otelEndpoint)
			}
		}},
		{name: "resume is the out folder", args: []string{"--resume", "runs/a"}, ok: true, check: func(t *testing.T, o options) {
			if o.out != "runs/a" {
				t.Errorf("out %q, want runs/a", o.out)
			}
		}},
		{name: "resume and another out", args: []string{"--resume", "runs/a", "--out", "runs/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := parseFlagCase(t, tt.args, tt.env, tt.ok)
			if !ok {
				return
			}
			if o.batch.shard != tt.shard {
				t.Errorf("shard %v, want %v", o.batch.shard, tt.shard)
			}
			if tt.check != nil {
				tt.check(t, o)
			}
		})
	}
}

// parseFlagCase parses --dataset cases.jsonl and args as the run command
// does, with env (nil: empty) for its environment, fails t unless it is
// accepted exactly when wantOK, and a refusal is a usage error (exit 2),
// and returns the options and whether they were accepted.
func parseFlagCase(t *testing.T, args []string, env map[string]string, wantOK bool) (options, bool) {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	o, code, ok := parseRunFlags(append([]string{"--dataset", "cases.jsonl"}, args...), env, io.Discard)
	if ok != wantOK {
		t.Fatalf("ok = %v (exit %d), want %v", ok, code, wantOK)
	}
	if !ok && code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	return o, ok
}
