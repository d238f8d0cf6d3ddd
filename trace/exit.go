package trace

// murmur's session exit statuses, as session_end's exit_status carries
// them; defined once here, where session_end is written.
const (
	ExitOK              = "ok"
	ExitFailed          = "failed"
	ExitMaxTurnsReached = "max_turns_reached"
)
