package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/termtext"
	"github.com/murmur-nexus/murmur-eval/telemetry"
)

// shutdownTelemetry flushes the spans, bounded so an unreachable collector
// cannot hold the run's exit.
func shutdownTelemetry(tel *telemetry.Telemetry, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		fmt.Fprintln(stderr, "murmur-eval: "+errcode.FormatWarning(err))
	}
}

// isTerminal reports whether w is a terminal, for --progress auto.
func isTerminal(w io.Writer) bool {
	f, ok := termtext.Raw(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
