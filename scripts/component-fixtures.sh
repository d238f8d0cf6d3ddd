#!/usr/bin/env bash
# Builds the WebAssembly component fixtures the tests read, once, into
# sandbox/component/testdata/wasm/<name>.wasm (committed): each WAT source
# is assembled by wat2wasm and wrapped as a component of its world by jco
# (sandbox/component/testdata/build.mjs; jco pinned in that folder's
# package-lock.json: npm ci there first); inference/drivertest's OpenAI
# driver is built by Go (GOOS=wasip1, c-shared), given its cabi_realloc
# (scripts/addrealloc) and wrapped with jco's preview-1 reactor adapter.
#
#   scripts/component-fixtures.sh [outdir]
#
# Run it (or go generate ./sandbox/component/componenttest) after changing
# a fixture's source; componenttest's
# TestFixturesUpToDate rebuilds every fixture this way when the tools are
# installed and fails when a committed file differs. The output is
# deterministic (wat2wasm, jco's embed + new, and go build with -trimpath
# -buildvcs=false are: two runs give the same bytes).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(realpath -m "${1:-$root/sandbox/component/testdata/wasm}")"
td="$root/sandbox/component/testdata"
cd_="$root/cmd/murmur-eval/testdata/components"
# build.mjs reads its jobs as whitespace-separated words.
[[ "$root$out$(dirname "$(mktemp -u)")" != *[[:space:]]* ]] ||
	{ echo "component-fixtures: paths with spaces are not supported" >&2; exit 1; }
for tool in wat2wasm node go; do
	command -v "$tool" >/dev/null || { echo "component-fixtures: $tool is missing" >&2; exit 1; }
done
[[ -d "$td/node_modules/@bytecodealliance/jco" ]] ||
	{ echo "component-fixtures: jco is missing (npm ci in sandbox/component/testdata)" >&2; exit 1; }
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# component <name> <wat> <wit> <world> [reactor] assembles the core module
# and queues its wrapping; jco wraps the queue in one Node process at the end.
jobs="$tmp/jobs"
: >"$jobs"
component() {
	local name=$1 wat=$2 wit=$3 world=$4 adapter=${5:-}
	wat2wasm "$wat" -o "$tmp/$name.core.wasm"
	echo "$tmp/$name.core.wasm $wit $world $out/$name.wasm $adapter" >>"$jobs"
}

# sandbox/component's fixtures (worlds of testdata/fixtures.wit).
for name in tool:tool probe:probe http:http capsule:capsule capsule_balloon:capsule capsule_spin:capsule \
	capsule_trap:capsule hook:hook hook_none:hook stateful:tool stateful_table:tool; do
	component "${name%%:*}" "$td/${name%%:*}.wat" "$td/fixtures.wit" "${name#*:}"
done
# Preview-1 modules, wrapped with jco's reactor adapter.
for name in p1tool:tool p1init:tool p1hook:hook; do
	component "${name%%:*}" "$td/${name%%:*}.wat" "$td/fixtures.wit" "${name#*:}" reactor
done
# Hooks of other lifecycle shapes, each with its own WIT.
component hook_old "$td/hook_old.wat" "$td/hook_old.wit" hook
component hook_min "$td/hook_min.wat" "$td/hook_min.wit" hook
component hook_noshell "$td/hook_noshell.wat" "$td/hook_noshell.wit" hook
# A preview-1 core module (no component), for the benchmark's comparison.
wat2wasm "$td/echo_p1.wat" -o "$out/echo_p1.wasm"

# inference/driver's relay driver and cmd/murmur-eval's tool and script
# capsules (script_*: script.wat invoking another tool with other data).
component relay "$root/inference/driver/testdata/relay.wat" "$td/fixtures.wit" driver
component ctool "$cd_/ctool.wat" "$td/fixtures.wit" tool
for wat in "$cd_"/script*.wat; do
	name="$(basename "$wat" .wat)"
	component "$name" "$wat" "$td/fixtures.wit" capsule
done

# inference/drivertest's OpenAI driver, written in Go.
drv="$root/inference/drivertest/testdata"
# Another Go release may compile it differently: the release is recorded
# beside it, and TestFixturesUpToDate compares it only under that release.
(cd "$drv/openai-driver" && GOOS=wasip1 GOARCH=wasm GOFLAGS=-mod=mod GOWORK=off \
	go build -trimpath -buildvcs=false -ldflags="-s -w" -buildmode=c-shared -o "$tmp/openai-driver.core.wasm" . &&
	GOWORK=off go env GOVERSION >"$out/openai-driver.goversion")
(cd "$root" && go run ./scripts/addrealloc "$tmp/openai-driver.core.wasm" "$tmp/openai-driver.patched.wasm")
echo "$tmp/openai-driver.patched.wasm $drv/driver.wit driver $out/openai-driver.wasm reactor" >>"$jobs"

(cd "$td" && node build.mjs - <"$jobs")
