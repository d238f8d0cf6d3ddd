package pipeline

import "github.com/murmur-nexus/murmur-eval/scoring"

// murmur's session exit statuses, as the fake Loop and the Judge tests use
// them (the real ones belong to the session package).
const (
	ExitOK              = "ok"
	ExitFailed          = "failed"
	ExitMaxTurnsReached = "max_turns_reached"
)

// loopOutcome is a fake Loop result: it grades on the exit status.
type loopOutcome struct{ ExitStatus string }

func (o *loopOutcome) Grade() (bool, bool) { return o.ExitStatus == ExitOK, true }

var loopKey = NewKey[*loopOutcome]("loop")

// setExit stores the fake Loop's result.
func setExit(c *Case, exit string) { Store(c, loopKey, &loopOutcome{ExitStatus: exit}) }

// reportScores is a fake Report result: it decides when it scored.
type reportScores []scoring.Score

func (s reportScores) Grade() (bool, bool) {
	for _, x := range s {
		if !x.Pass {
			return false, true
		}
	}
	return true, len(s) > 0
}

var reportKey = NewKey[reportScores]("report")
