package trace

// murmur's session exit statuses, as session_end's exit_status carries
// them; defined once here, where session_end is written.
const (
	ExitOK              = "ok"
	ExitFailed          = "failed"
	ExitMaxTurnsReached = "max_turns_reached"
)

// ExitBudgetReached is murmur-eval's addition to murmur's exit statuses:
// the case's loop reached its --case-max-tokens or --case-max-cost.
const ExitBudgetReached = "budget_reached"
