#!/bin/sh
# A nightly job comparing two models on one capsule (README.md beside it):
# tonight's run of every case with each model, gated on each model's pass
# rate and against last night's run (same-named models paired), the two
# models' flips side by side, and the trend page over every night.
set -eu

CAPSULE=${CAPSULE:-examples/quickstart}
DATASET=${DATASET:-$CAPSULE/cases.jsonl}
MODELS=${MODELS:-claude-sonnet-4-5,claude-haiku-4-5}
RUNS=${RUNS:-runs/nightly}
PRICES=${PRICES:-}          # a --prices file; empty: the built-in table
FAIL_UNDER=${FAIL_UNDER:-0.8}

mkdir -p "$RUNS"
last=$(find "$RUNS" -mindepth 1 -maxdepth 1 -type d -name '20*' | sort | tail -n 1)
tonight="$RUNS/$(date -u +%Y-%m-%dT%H%M%S)"

set -- "$CAPSULE" --dataset "$DATASET" --models "$MODELS" --out "$tonight" --fail-under "$FAIL_UNDER"
if [ -n "$PRICES" ]; then set -- "$@" --prices "$PRICES"; fi
if [ -n "$last" ]; then set -- "$@" --baseline "$last"; fi

status=0
murmur-eval "$@" || status=$?

# The first two models, compared case by case within tonight's run.
first=${MODELS%%,*}
rest=${MODELS#*,}
second=${rest%%,*}
if [ -f "$tonight/results.parquet" ] && [ "$first" != "$MODELS" ]; then
	murmur-eval diff --variant "$first" --variant "$second" "$tonight" >"$tonight/models-diff.txt" || true
fi

murmur-eval report "$RUNS"/20*/ -o "$RUNS/report.html" || true
exit "$status"
