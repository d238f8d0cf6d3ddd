// Command murmur-eval runs every case of a dataset through a murmur capsule,
// each case in its own sandboxed session, scores the cases, and aggregates
// the traces and scores into Parquet and CI reports; `diff` compares two
// runs, `show` summarises one and `report` draws an HTML page over many.
// See README.md and docs/.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/murmur-nexus/murmur-eval/internal/termtext"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// A shell or native tool starts as murmur-eval re-executed with a hidden
	// argument: the launcher applies the sandbox, then execs the tool.
	if handled, code := sandbox.LauncherMain(os.Args); handled {
		os.Exit(code)
	}
	enterMountNS() // as root, for workspace overlays: returns only if it did not re-execute
	ctx, cancel := context.WithCancelCause(context.Background())
	if runsCases(os.Args[1:]) {
		// The first interrupt cancels the run's context; the run says what
		// it does about it (interruption.go). The second exits at once.
		// Other subcommands are short and watch no context: an interrupt
		// ends them as it would any program.
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sigs
			cancel(pipeline.ErrInterrupted)
			<-sigs
			fmt.Fprintln(os.Stderr, "murmur-eval: interrupted again: exiting without writing the Parquet files and the summary; the journal keeps every finished case for --resume")
			os.Exit(exitInterrupted)
		}()
	}
	os.Exit(run(ctx, os.Args[1:], environ(), os.Stdout, os.Stderr))
}

// runsCases reports whether args (without the program name) are the run
// command's, the one that watches its context for an interrupt.
func runsCases(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "pack", "merge", "score", "diff", "show", "report", "view", "help", "version":
		return false
	}
	return true
}

// environ returns the process environment as a map; only main reads it.
func environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				env[kv[:i]] = kv[i+1:]
				break
			}
		}
	}
	return env
}

// run is the whole command, testable: it dispatches to a subcommand and
// returns the process exit code.
func run(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int {
	// Case ids, messages and paths from datasets, capsules, model servers
	// and Parquet files reach both streams: control characters in them are
	// escaped here, once, for every subcommand (the progress bar draws
	// under this, termtext.Raw).
	stdout, stderr = termtext.NewWriter(stdout), termtext.NewWriter(stderr)
	if len(args) == 0 && !isCapsuleDir(".") {
		return bareUsage(env, stderr)
	}
	if len(args) > 0 {
		switch args[0] {
		case "pack":
			return runPack(args[1:], stdout, stderr)
		case "merge":
			return runMerge(args[1:], env, stdout, stderr)
		case "score":
			return runScore(ctx, args[1:], env, stdout, stderr)
		case "diff":
			return runDiff(args[1:], env, stdout, stderr)
		case "show":
			return runShow(args[1:], env, stdout, stderr)
		case "report":
			return runReport(args[1:], env, stdout, stderr)
		case "view":
			return runView(ctx, args[1:], stdout, stderr)
		case "help":
			return runHelp(ctx, args[1:], env, stdout, stderr)
		case "version":
			return printVersion(stdout, stderr)
		case "run":
			args = args[1:]
		default:
			if err := unknownSubcommand(args[0]); err != nil {
				return usageError(stderr, err)
			}
		}
	}
	return runEval(ctx, args, env, stdout, stderr)
}
