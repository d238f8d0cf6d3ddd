package stages

import (
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/launch"
	"github.com/murmur-nexus/murmur-eval/stages/loop"
	"github.com/murmur-nexus/murmur-eval/stages/report"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
)

// CaseRun reads what a finished case's rows carry from its stages'
// results, each by its key; a stage that stored none leaves its fields
// empty.
func CaseRun(c *pipeline.Case) reports.CaseRun {
	r := reports.CaseRun{Case: c}
	if cp, ok := pipeline.Lookup(c, resolve.Result); ok {
		m := cp.Manifest
		r.CapsuleName, r.CapsuleVersion = m.Name, m.Version
		if m.Inference != nil {
			r.Model = m.Inference.Model
		}
	}
	if p, ok := pipeline.Lookup(c, contain.Result); ok {
		r.Containment = p.Achieved
	}
	if ses, ok := pipeline.Lookup(c, launch.Result); ok {
		r.Trace = ses.Trace
	}
	if o, ok := pipeline.Lookup(c, loop.Result); ok {
		r.ExitStatus, r.Reopens, r.TaskExit = o.ExitStatus, o.Reopens, o.TaskExit
	}
	if rep, ok := pipeline.Lookup(c, report.Result); ok {
		r.Scores, r.DiffBytes = rep.Scores, rep.DiffBytes
		if s := c.Verdict().Status; s != pipeline.StatusPassed && s != pipeline.StatusFailed {
			// Only a verdict has scores: a result that failed to close
			// after Report scored the case (pipeline.Closer) made it an error.
			r.Scores = nil
		}
	}
	return r
}
