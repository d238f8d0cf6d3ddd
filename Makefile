# murmur-eval: `make demo` runs the bundled example, `make test` runs the tests
# (`make check`: the quick loop).
GO      ?= go
BIN     := bin/murmur-eval
QS      := examples/quickstart
TOOLS   := calc notes
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
FUZZTIME ?= 10s
# make ci (CI) fuzzes every target this long (make fuzz: FUZZTIME), two at
# a time (scripts/fuzz.sh).
TEST_FUZZTIME ?= 3s

# The linter, pinned: make lint installs this version with go install when
# the one on disk is another (.ci/run installs it first: make lint-install).
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT = $(or $(shell $(GO) env GOBIN),$(shell $(GO) env GOPATH)/bin)/golangci-lint

.PHONY: judge-demo all build quickstart demo workspace-demo test test-deps check ci fuzz-smoke lint lint-install vet cross fuzz bench bench-smoke clean

all: build

# A static binary: nothing in it needs cgo (DuckDB is a test-only
# dependency of docs/), and a static launcher needs no dynamic loader.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/murmur-eval

# Build the quickstart's WASM tools (wasip1 modules) and pack them into the
# capsule's project store, as `mur build` + `mur install` would.
quickstart: build
	@rm -f $(QS)/murmur.lock # the tools are rebuilt: pin them afresh (the first run writes the lock)
	@for t in $(TOOLS); do \
		GOOS=wasip1 GOARCH=wasm $(GO) build -o $(QS)/tools/$$t/$$t.wasm ./$(QS)/tools/$$t || exit 1; \
		./$(BIN) pack $(QS)/tools/$$t --store $(QS)/.murmur/artifacts || exit 1; \
	done

# Run the quickstart dataset against its recordings; prints the summary and
# where the Parquet files are. Exits 0: the dataset's failures are the
# model's, not the harness's. Its check runs as an unprivileged user when
# you are root, who must reach the run folder: in a checkout below a 0700
# folder (/root), run make demo DEMO_OUT=/tmp/murmur-eval-demo.
DEMO_OUT ?= out/demo
demo: quickstart
	rm -rf $(DEMO_OUT)
	./$(BIN) $(QS) --dataset $(QS)/cases.jsonl --replay $(QS)/recordings --out $(DEMO_OUT)

# The judge example (examples/judge): the quickstart capsule on four cases
# with a rubric, the model's turns and the judge's verdicts replayed;
# max-turns fails on its judge alone (exits 0: the model's failure).
judge-demo: quickstart
	rm -rf /tmp/murmur-eval-judge-demo
	./$(BIN) $(QS) --dataset examples/judge/cases.jsonl --replay examples/judge/recordings --judge-model gpt-5-mini --out /tmp/murmur-eval-judge-demo

# The workspace example (docs/workspaces.md): each case starts from its own
# copy of a small Go repository with a failing test; the recorded turns edit
# it through bash and sed, and expected.check runs `go test ./...` in the
# session (as the tool user, so --out must be reachable by others: /tmp).
# fix-add passes and wrong-fix fails, as recorded (the model's failure:
# exit 0).
WS_OUT ?= /tmp/murmur-eval-workspace-demo
workspace-demo: build
	rm -rf $(WS_OUT)
	./$(BIN) examples/workspace --dataset examples/workspace/cases.jsonl --replay examples/workspace/recordings --out $(WS_OUT) --workers 2
	@for f in $(WS_OUT)/sessions/*/out/workspace.diff; do echo; echo "$$f:"; cat "$$f"; done

vet:
	$(GO) vet ./...

# golangci-lint with .golangci.yml: the house rules a linter can hold
# (RATIONALE.md, "Why these linters, and why only part of `os` is forbidden
# outside cmd/?").
lint:
	@$(GOLANGCI_LINT) version 2>/dev/null | grep -q 'version $(GOLANGCI_LINT_VERSION:v%=%) ' || $(MAKE) --no-print-directory lint-install
	$(GOLANGCI_LINT) run ./...

lint-install:
	$(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

# The report tools (diff, show, report, merge, pack) must build everywhere:
# go build for the six release targets, go vet (tests included) for macOS.
# docs/ is left out of the vet: its test runs DuckDB through cgo. Two
# targets build at a time (one's link overlaps the other's compiles) and
# link without symbol table or DWARF (-s -w): the binaries are thrown
# away, only whether they build counts.
CROSS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
cross:
	@printf '%s\n' $(CROSS) | xargs -P 2 -I{} sh -c 't={}; echo "go build $$t"; \
		CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build -ldflags="-s -w" ./... || { echo "go build $$t failed"; exit 255; }'
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) vet $$($(GO) list ./... | grep -v /docs$$)

# The linter, vet, the cross-builds and the full suite with the race
# detector (every fuzz target's seed corpus runs as a test). E2E tests wait
# on processes, timeouts and model servers more than they compute, so four
# run at once per package rather than one per core.
TEST_PARALLEL ?= 4
test: test-deps lint vet cross
	$(GO) test -race -count=1 -parallel $(TEST_PARALLEL) ./...

# The programs the tests need beyond Go (xmllint, chromium, wat2wasm, node
# and jco, python3): installed when this runs as root with apt-get, else
# listed with how to install them, and make test stops; a test whose
# program is missing fails rather than skips. MURMUR_EVAL_TEST_SKIP_MISSING=1
# lets the run go on, those tests skipping, each saying so.
test-deps:
	./scripts/test-deps.sh

# A contributor's quick loop: the linter, go vet and the tests under -short
# (the end-to-end tests, which build and run the binary, skip; no race
# detector, no cross-builds, no fuzzing), those needing a missing program
# skipped. make test before a pull request.
check: lint vet
	MURMUR_EVAL_TEST_SKIP_MISSING=1 $(GO) test -short ./...

# What CI runs (.ci/run): make test, then every fuzz target briefly
# (TEST_FUZZTIME each, two at a time: scripts/fuzz.sh) and the benchmark
# harness once at a reduced size (it proves the harness works; it never
# fails on a timing). Fuzzing is kept out of make test: each target is a
# build and a link of its own, minutes in all, and finds nothing in 3 s
# that the seed corpora (run by make test) do not.
ci: test fuzz-smoke bench-smoke

fuzz-smoke:
	FUZZTIME=$(TEST_FUZZTIME) ./scripts/fuzz.sh

# The benchmark harness (cmd/murmur-bench): builds murmur-eval, generates
# its datasets, runs the overhead, latency-bound scaling, waiting, memory
# and Parquet suites, prints a table and writes out/bench-full.json (about
# 10 minutes on 2 cores before the driver path; its runs add an estimated
# 5). The scaling and waiting suites run every point on both paths, the
# capsule's driver component (murmur's default) and --driver builtin, side
# by side. BENCH_DRIVER is the driver component: an OpenAI-format driver
# such as murmur's murmur-driver-openai.wasm (never committed here);
# without it, the tests' relay fixture, a lower bound.
# BENCH_FLAGS passes more, e.g. -profile out/pprof or -suites overhead.
# See BENCHMARKS.md.
BENCH_FLAGS ?=
BENCH_DRIVER ?=
bench:
	$(GO) run ./cmd/murmur-bench -size full $(if $(BENCH_DRIVER),-driver "$(BENCH_DRIVER)") $(BENCH_FLAGS)

# The same at a reduced size, in well under a minute: out/bench-smoke.json.
bench-smoke:
	$(GO) run ./cmd/murmur-bench -size smoke $(if $(BENCH_DRIVER),-driver "$(BENCH_DRIVER)") $(BENCH_FLAGS)

# Every fuzz target for FUZZTIME with all cores, one after another (make
# test runs them shorter, two at a time).
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZJOBS=$${FUZZJOBS:-1} ./scripts/fuzz.sh

clean:
	rm -rf bin out $(QS)/.murmur $(QS)/murmur.lock $(QS)/tools/*/*.wasm
