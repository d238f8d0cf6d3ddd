package main

import (
	"io"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/gates"
	"github.com/murmur-nexus/murmur-eval/reports"
)

// diffVariants is `diff --variant A --variant B RUN`: the rows of variant
// A of one run as the base, B's as the head, compared as two runs are.
func diffVariants(args, variants []string, g gates.Options, asJSON bool, env map[string]string, stdout, stderr io.Writer) int {
	if len(variants) != 2 || len(args) != 1 {
		return usageError(stderr, errcode.New(errcode.Usage, "diff --variant takes two variants and one run; got %d variants and %d runs", len(variants), len(args)).
			WithHint("murmur-eval diff --variant gpt-5-mini --variant claude-sonnet-4-5 runs/tonight"))
	}
	if err := g.Validate(); err != nil {
		return usageError(stderr, err)
	}
	lim, err := readLimits(env)
	if err != nil {
		return usageError(stderr, err)
	}
	run, err := reports.ReadRunLimited(args[0], lim)
	if err != nil {
		return usageError(stderr, err)
	}
	sides := make([]*reports.RunData, 2)
	for i, name := range variants {
		var ok bool
		if sides[i], ok = reports.VariantRun(run, name); !ok {
			return usageError(stderr, errcode.New(errcode.Usage, "diff --variant %s: run %s has no row of that variant", name, args[0]).
				WithHint("its variants are in summary.json's variants (murmur-eval show %s)", args[0]))
		}
	}
	return compareRuns(sides[0], sides[1], g, asJSON, stdout, stderr)
}
