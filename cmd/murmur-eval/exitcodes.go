package main

// The process exit codes, in one place (documented in README.md).
const (
	// exitOK: the run finished and every case has its row, whatever the
	// cases' own verdicts (passed or failed are the model's results).
	exitOK = 0
	// exitFailure: murmur-eval itself failed (it could not write its
	// outputs); results may be incomplete.
	exitFailure = 1
	// exitUsage: bad command line or configuration (flags, dataset, replay
	// folder, output folder), or the capsule was refused (manifest, lock,
	// artifact stores, integrity): no case ran. A refused capsule still
	// writes a row per case carrying the refusal's code.
	exitUsage = 2
	// exitCaseErrors: the run finished, but one or more cases ended in
	// status error (the harness, the sandbox, the capsule's artifacts or the
	// model provider failed, not the model): a nightly job should look.
	exitCaseErrors = 3
	// exitInterrupted: the run was interrupted (SIGINT/SIGTERM); the rows of
	// every case that finished were written.
	exitInterrupted = 130
)
