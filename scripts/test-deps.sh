#!/usr/bin/env bash
# The programs the tests need beyond Go, checked and installed: make test
# and .ci/run run this first, so that a local run covers what CI's does
# (a test whose program is missing fails, saying how to install it:
# internal/tooltest).
#
#   xmllint (libxml2-utils)  validates junit.xml against the JUnit schema
#   chromium (+ a font)      opens the HTML report in the report test
#   wat2wasm (wabt)          checks the benchmark's hand-assembled ok.wasm and
#                            rebuilds the component fixtures (with jco)
#   node, npm and jco        the differential tests against jco and the check
#                            that the committed fixtures are up to date; jco is
#                            pinned in sandbox/component/testdata/package-lock.json
#   playwright-core          drives chromium through the view site in
#                            TestViewInBrowser; pinned in
#                            cmd/murmur-eval/testdata/browser/package-lock.json
#                            (no browser download: Debian's chromium is used)
#   jq and git               the how-to's shell.allow of named binaries
#   bin/otelcol              the OpenTelemetry Collector the OTLP export test
#                            sends through (built from cmd/murmur-eval/testdata/otelcol)
#   /usr/bin/python3         the check-escape test's dataset check and the
#                            escape-conformance probes (ctypes included, which
#                            python3-minimal lacks)
#
# Missing Debian packages are installed with apt-get when this runs as root
# and apt-get exists; jco with `npm ci` in sandbox/component/testdata when
# npm exists and its node_modules is missing or older than the lock.
# --check installs nothing. What is still missing is listed with how to
# install it, and the script fails, unless MURMUR_EVAL_TEST_SKIP_MISSING=1
# (then the tests that need it skip, each saying so).
set -euo pipefail
cd "$(dirname "$0")/.."
install=1
[[ "${1:-}" == "--check" ]] && install=0
jco_dir=sandbox/component/testdata
view_dir=cmd/murmur-eval/testdata/browser

# missing_pkgs prints the Debian packages of the programs that are missing.
missing_pkgs() {
	command -v xmllint >/dev/null 2>&1 || echo libxml2-utils
	command -v chromium >/dev/null 2>&1 || echo chromium fonts-liberation
	command -v wat2wasm >/dev/null 2>&1 || echo wabt
	command -v jq >/dev/null 2>&1 || echo jq
	command -v git >/dev/null 2>&1 || echo git
	{ command -v node && command -v npm; } >/dev/null 2>&1 || echo nodejs npm
	/usr/bin/python3 -c 'import ctypes, fcntl, socket, resource' >/dev/null 2>&1 || echo python3
	return 0
}

# jco_current: jco is installed from the current lock.
jco_current() {
	local stamp=$jco_dir/node_modules/.package-lock.json
	[[ -d $jco_dir/node_modules/@bytecodealliance/jco && -f $stamp && ! $jco_dir/package-lock.json -nt $stamp ]]
}

# otelcol_current: the OpenTelemetry Collector the export test runs is
# built from the current testdata module.
otelcol_dir=cmd/murmur-eval/testdata/otelcol
otelcol_bin=bin/otelcol
otelcol_current() {
	[[ -x $otelcol_bin && ! $otelcol_dir/go.sum -nt $otelcol_bin && ! $otelcol_dir/main.go -nt $otelcol_bin ]]
}

# playwright_current: playwright-core is installed from the current lock.
playwright_current() {
	local stamp=$view_dir/node_modules/.package-lock.json
	[[ -f $view_dir/node_modules/playwright-core/package.json && -f $stamp && ! $view_dir/package-lock.json -nt $stamp ]]
}

read -r -a pkgs <<<"$(missing_pkgs | tr '\n' ' ')"
if ((install)) && ((${#pkgs[@]})); then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		echo "test-deps: installing ${pkgs[*]} (apt-get)"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}"
		read -r -a pkgs <<<"$(missing_pkgs | tr '\n' ' ')"
	fi
fi
if ((install)) && ! jco_current && command -v npm >/dev/null 2>&1; then
	echo "test-deps: installing jco (npm ci in $jco_dir)"
	(cd "$jco_dir" && npm ci --no-audit --no-fund)
fi
if ((install)) && ! playwright_current && command -v npm >/dev/null 2>&1; then
	echo "test-deps: installing playwright-core (npm ci in $view_dir)"
	(cd "$view_dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
fi

if ((install)) && ! otelcol_current && command -v go >/dev/null 2>&1; then
	echo "test-deps: building the OpenTelemetry Collector (go build in $otelcol_dir; a few minutes the first time)"
	mkdir -p bin
	(cd "$otelcol_dir" && CGO_ENABLED=0 go build -o "../../../../$otelcol_bin" .)
fi

missing=()
((${#pkgs[@]})) && missing+=("the Debian packages ${pkgs[*]}: apt-get install ${pkgs[*]} (as root)")
jco_current || missing+=("jco: npm ci --no-audit --no-fund in $jco_dir (needs npm)")
otelcol_current || missing+=("the OpenTelemetry Collector: (cd $otelcol_dir && go build -o ../../../../$otelcol_bin .)")
playwright_current || missing+=("playwright-core: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund in $view_dir (needs npm)")
if ((${#missing[@]} == 0)); then
	echo "test-deps: every program the tests need is installed"
	exit 0
fi
echo "test-deps: missing what some tests need:" >&2
printf '  %s\n' "${missing[@]}" >&2
if [[ "${MURMUR_EVAL_TEST_SKIP_MISSING:-}" == 1 ]]; then
	echo "test-deps: MURMUR_EVAL_TEST_SKIP_MISSING=1: the tests that need them will be skipped, each saying so" >&2
	exit 0
fi
echo "test-deps: install them (run this script as root to install them), or set MURMUR_EVAL_TEST_SKIP_MISSING=1 to skip the tests that need them" >&2
exit 1
