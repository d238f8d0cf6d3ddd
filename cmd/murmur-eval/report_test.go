package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportUsageErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-run")
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
		err  string
	}{
		{"no run", []string{"report"}, nil, exitUsage, "report takes at least one RUN"},
		{"missing run", []string{"report", missing}, nil, exitUsage, "error[E-IO-001]"},
		{"bad outage rate", []string{"report", missing, "--outage-rate", "0"}, nil, exitUsage, "--outage-rate must be in (0, 1]"},
		{"bad flaky flips", []string{"report", missing, "--flaky-flips", "0"}, nil, exitUsage, "--flaky-flips must be at least 1"},
		{"bad alpha from the environment", []string{"report", missing}, map[string]string{"MURMUR_EVAL_ALPHA": "x"}, exitUsage, "MURMUR_EVAL_ALPHA"},
		{"unknown flag", []string{"report", "--nope"}, nil, exitUsage, "unknown flag --nope"},
		{"help", []string{"report", "--help"}, nil, exitOK, "Usage: murmur-eval report RUN..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := tt.env
			if env == nil {
				env = map[string]string{}
			}
			code := run(context.Background(), tt.args, env, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.err) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tt.code, tt.err, stderr.String())
			}
		})
	}
}
