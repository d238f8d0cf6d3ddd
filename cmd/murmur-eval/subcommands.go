package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/suggest"
)

// subcommands are the command's subcommands, as the top-level usage lists
// them.
func subcommands() []string {
	return []string{"run", "show", "diff", "merge", "report", "pack", "help", "version"}
}

// runHelp is `murmur-eval help [SUBCOMMAND]`: the subcommand's --help, or
// the run command's (the top-level usage) without one.
func runHelp(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0 || args[0] == "run":
		return runEval(ctx, []string{"--help"}, env, stdout, stderr)
	case len(args) > 1:
		return usageError(stderr, errcode.New(errcode.Usage, "help takes one SUBCOMMAND, got %d arguments", len(args)).
			WithHint("murmur-eval help %s", args[0]))
	case args[0] == "help" || args[0] == "version":
		return runEval(ctx, []string{"--help"}, env, stdout, stderr)
	}
	for _, c := range subcommands() {
		if c == args[0] {
			return run(ctx, []string{c, "--help"}, env, stdout, stderr)
		}
	}
	return usageError(stderr, unknownName(args[0]))
}

// unknownSubcommand refuses a first argument that is neither a subcommand
// nor an existing capsule folder but looks like a word: `murmur-eval
// raport runs/*` says "did you mean report?" rather than trying a capsule
// folder named raport. Anything with a path separator or a dot, or that
// exists, is left to the run command.
func unknownSubcommand(arg string) error {
	if arg == "" || strings.HasPrefix(arg, "-") || strings.ContainsAny(arg, "/.") {
		return nil
	}
	if _, err := os.Stat(arg); err == nil {
		return nil
	}
	return unknownName(arg)
}

func unknownName(name string) *errcode.Error {
	e := errcode.New(errcode.Usage, "unknown subcommand %q, and no capsule folder of that name", name)
	if s := suggest.Closest(name, subcommands()); s != "" {
		return e.WithHint("did you mean %q? (murmur-eval help %s)", s, s)
	}
	return e.WithHint("subcommands: %s; or murmur-eval CAPSULE_DIR --dataset FILE (murmur-eval help)", strings.Join(subcommands(), ", "))
}
