package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/suggest"
)

// subcommandSummaries are the subcommands with what each does, as the
// short usage lists them.
func subcommandSummaries() [][2]string {
	return [][2]string{
		{"run", "run a dataset through a capsule (the command when none is named)"},
		{"show", "summarise a run"},
		{"diff", "compare two runs; fails on a regression"},
		{"merge", "merge the runs of a dataset's shards into one"},
		{"score", "score a finished run again from its sessions, without the agent's model"},
		{"report", "draw an HTML page over many runs"},
		{"view", "write a site with every case's transcript (or serve it)"},
		{"pack", "pack artifact folders into .mur.zip archives"},
		{"help", "print a command's usage with every flag"},
		{"version", "print the version"},
	}
}

// subcommands are the command's subcommands, as the top-level usage lists
// them.
func subcommands() []string {
	var names []string
	for _, c := range subcommandSummaries() {
		names = append(names, c[0])
	}
	return names
}

// mainRunFlags are the run command's flags the short usage shows.
func mainRunFlags() []string {
	return []string{"dataset", "out", "replay", "workers", "filter", "baseline", "fail-under", "resume", "strict"}
}

// bareUsage is `murmur-eval` with no argument outside a capsule folder:
// not a run of "." (which would fail on a missing dataset or murmur.yaml)
// but the short usage, exit 2, as a mistyped command line gets.
func bareUsage(env map[string]string, stderr io.Writer) int {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n       murmur-eval COMMAND [ARGS]\n\n", runUsageLine)
	b.WriteString("Runs every case of a dataset through the murmur capsule in CAPSULE_DIR\n(default \".\", which has no murmur.yaml here).\n\nCommands:\n")
	for _, c := range subcommandSummaries() {
		fmt.Fprintf(&b, "  %-8s %s\n", c[0], c[1])
	}
	var o options
	all, _ := newRunFlags(&o, env, io.Discard)
	main := pflag.NewFlagSet("run", pflag.ContinueOnError)
	main.SortFlags = false
	for _, name := range mainRunFlags() {
		main.AddFlag(all.Lookup(name))
	}
	fmt.Fprintf(&b, "\nMain flags of run:\n%s\nmurmur-eval help prints every flag of run, murmur-eval help COMMAND those\nof COMMAND; docs/ has the rest.\n", main.FlagUsagesWrapped(100))
	fmt.Fprint(stderr, b.String())
	return exitUsage
}

// isCapsuleDir reports whether dir holds a murmur.yaml.
func isCapsuleDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, capsule.ManifestFile))
	return err == nil
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
