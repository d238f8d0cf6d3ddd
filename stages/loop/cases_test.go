package loop

import (
	"context"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
)

// loopCase is a case as Stage and Launch leave it: the task staged (and
// written to task.md, for the hooks) and the session open.
func loopCase(dir, task string, s *session.Session) *pipeline.Case {
	if err := os.WriteFile(filepath.Join(dir, "task.md"), []byte(task), 0o644); err != nil {
		panic(err)
	}
	c := &pipeline.Case{SessionDir: dir}
	pipeline.Store(c, staging.Result, &staging.Staged{Task: task})
	pipeline.Store(c, launch.Result, s)
	return c
}

// sessionOf is the case's session; outcomeOf the loop's outcome, the zero
// Outcome when the loop stored none.
func sessionOf(c *pipeline.Case) *session.Session {
	s, _ := pipeline.Lookup(c, launch.Result)
	return s
}

// outcomeOf is the case's Outcome without its transcript, which
// transcript_test.go checks, so that tests compare outcomes with ==.
func outcomeOf(c *pipeline.Case) *Outcome {
	if o, ok := pipeline.Lookup(c, Result); ok {
		o := *o
		o.Transcript = nil
		return &o
	}
	return &Outcome{}
}

// taskStage is a fake Stage stage: the case's task is its id.
type taskStage struct{}

func (taskStage) Name() string { return staging.Name }

func (taskStage) Run(_ context.Context, c *pipeline.Case) error {
	pipeline.Store(c, staging.Result, &staging.Staged{Task: c.ID})
	return nil
}
