#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME (default 10s) each,
# $FUZZJOBS targets at a time (default 2), each with as many fuzzing
# workers as the machine has cores for it (nproc / FUZZJOBS, at least 1):
# two targets with one worker each keep two cores as busy as one target
# with two, and the per-target start (build, link, the seed corpus's
# baseline run) of one overlaps the other's fuzzing.
#
# The targets are found from their declarations (func FuzzXxx(f
# *testing.F) in the package's _test.go files for this platform, as go
# list names them), which builds nothing; go test -list built and ran
# every package's test binary just to list them.
#
# A target that finds a failure fails the script; its input is left under
# the package's testdata/fuzz/ for a regression test. On a loaded machine
# Go's fuzzing coordinator sometimes stops with "context deadline exceeded"
# without any failing input (the time ran out while a worker was busy):
# such a run, and only such a run, is tried once more.
set -euo pipefail
cd "$(dirname "$0")/.."
export FUZZTIME=${FUZZTIME:-10s}
jobs=${FUZZJOBS:-2}
workers=$(($(nproc) / jobs))
((workers >= 1)) || workers=1
export FUZZWORKERS=$workers

# fuzz_one PKG TARGET runs one target; its output is shown only on failure.
fuzz_one() {
	local pkg=$1 target=$2 log
	log=$(mktemp)
	for try in 1 2; do
		if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZWORKERS" "$pkg" >"$log" 2>&1; then
			echo "fuzz: $pkg $target ($FUZZTIME): ok"
			rm -f "$log"
			return 0
		fi
		if [ "$try" = 1 ] && ! grep -q 'Failing input written' "$log" && grep -q 'context deadline exceeded' "$log"; then
			echo "fuzz: $pkg $target: the coordinator timed out with no failing input; trying once more"
			continue
		fi
		break
	done
	{
		echo "fuzz: $pkg $target FAILED:"
		cat "$log"
	} >&2
	rm -f "$log"
	return 1
}
export -f fuzz_one

list=$(mktemp)
trap 'rm -f "$list"' EXIT
go list -f '{{.ImportPath}} {{.Dir}} {{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}' ./... |
	while read -r pkg dir files; do
		[ -n "$files" ] || continue
		for f in $files; do
			sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\).*/\1/p' "$dir/$f"
		done | sort -u | while read -r target; do
			echo "$pkg $target"
		done
	done >"$list"
count=$(wc -l <"$list")
echo "fuzz: $count targets, ${jobs} at a time with $workers worker(s) each, $FUZZTIME each"
# xargs runs every target even when one fails, and exits non-zero then.
if ! xargs -P "$jobs" -L 1 bash -c 'fuzz_one "$@"' _ <"$list"; then
	echo "fuzz: a target failed (its output is above)" >&2
	exit 1
fi
echo "fuzz: $count targets ran for $FUZZTIME each, no failures"
