#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME (default 10s) each.
# A target that finds a failure fails the script; its input is left under
# the package's testdata/fuzz/ for a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
count=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "fuzz: $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/fuzz-$$.log 2>&1 || { cat /tmp/fuzz-$$.log; exit 1; }
		count=$((count + 1))
	done
done
rm -f /tmp/fuzz-$$.log
echo "fuzz: $count targets ran for $fuzztime each, no failures"
