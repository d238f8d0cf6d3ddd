#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME (default 10s) each.
# A target that finds a failure fails the script; its input is left under
# the package's testdata/fuzz/ for a regression test. On a loaded machine
# Go's fuzzing coordinator sometimes stops with "context deadline exceeded"
# without any failing input (the time ran out while a worker was busy):
# such a run, and only such a run, is tried once more.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
count=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		for try in 1 2; do
			echo "fuzz: $pkg $target ($fuzztime)"
			if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$log" 2>&1; then
				break
			fi
			if [ "$try" = 1 ] && ! grep -q 'Failing input written' "$log" && grep -q 'context deadline exceeded' "$log"; then
				echo "fuzz: $target: the coordinator timed out with no failing input; trying once more"
				continue
			fi
			cat "$log"
			exit 1
		done
		count=$((count + 1))
	done
done
echo "fuzz: $count targets ran for $fuzztime each, no failures"
