package main

// The process exit codes, in one place (the table in README.md and
// docs/exit-codes.md). When several apply, the first in this list wins:
// output failure, interrupted (or --max-cost spent), usage, error budget
// (or an unreachable endpoint), replay divergence, gate.
const (
	// exitOK: the run finished, every case has its row, and every gate
	// passed: the error budget held, and when asked for, the pass rate was
	// not under --fail-under and no scorer regressed against --baseline.
	// Failed cases alone never change the exit code; gates do.
	exitOK = 0
	// exitFailure: murmur-eval itself failed (it could not write or read
	// back its outputs); results may be incomplete.
	exitFailure = 1
	// exitUsage: bad command line or configuration (flags, dataset and its
	// expected fields, observability.eval, replay folder, output folder, a
	// baseline that cannot be read), or the capsule was refused (manifest,
	// lock, artifact stores, integrity): no case ran. A refused capsule
	// still writes a row per case carrying the refusal's code.
	exitUsage = 2
	// exitErrorBudget: the run finished, but more cases than
	// --max-error-rate allows (by default, any) ended without a verdict
	// because of the harness, the sandbox, the provider or the clock
	// (status error or timeout): its numbers do not measure the model.
	// Also a run stopped because its model endpoint could not be reached
	// (E-EVL-018): the first requests all failed to connect or were refused
	// for their credentials.
	exitErrorBudget = 3
	// exitDiverged: the run finished within its error budget, but more
	// replayed requests differed from the recorded ones than
	// --max-divergence allows (by default, any): the recordings answered a
	// conversation the capsule no longer has, so its verdicts measure the
	// recordings. merge exits with it too.
	exitDiverged = 5
	// exitGateFailed: the run finished within its error budget, but a gate
	// failed: the pass rate is under --fail-under, or a scorer regressed
	// against --baseline (diff exits with it too on a regression), or with
	// --require-detectable the baseline gate could not detect a drop of
	// --max-drop points (E-EVL-006).
	exitGateFailed = 4
	// exitBudgetStopped: --max-cost was spent: the run started no more
	// cases, let the running ones finish and wrote every row; it is
	// incomplete and --resume finishes it. It takes exitInterrupted's
	// place (the budget is the run's interruption), so it wins over the
	// codes after that one.
	exitBudgetStopped = 6
	// exitInterrupted: the run was interrupted (SIGINT/SIGTERM); the rows of
	// every case that finished were written.
	exitInterrupted = 130
)
