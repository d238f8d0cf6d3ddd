package pipeline

import "time"

// Outcome says what happened to one stage of one case.
type Outcome int

// The outcomes of a stage.
const (
	Ran     Outcome = iota + 1 // the stage ran and returned nil
	Failed                     // the stage ran and returned an error
	Skipped                    // the stage did not run: a requirement failed or was skipped
)

func (o Outcome) String() string {
	switch o {
	case Ran:
		return "ran"
	case Failed:
		return "failed"
	case Skipped:
		return "skipped"
	}
	return "unknown"
}

// StageResult is the executor's record of one stage of one case.
type StageResult struct {
	Stage    string
	Outcome  Outcome
	Duration time.Duration // wall time of Run; zero when skipped
	Err      error         // the stage's error, or why it was skipped
}
