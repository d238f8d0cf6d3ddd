package launch

import (
	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/contain"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// launchCase is a case whose earlier stages ran: the manifest resolved, an
// empty toolset, an advisory policy rooted at the session folder.
func launchCase(id, sessionDir, sessionID string, m *capsule.Manifest) *pipeline.Case {
	c := &pipeline.Case{ID: id, Input: datasets.Case{ID: id}, SessionDir: sessionDir, SessionID: sessionID}
	pipeline.Store(c, resolve.Result, &resolve.Capsule{Manifest: m})
	pipeline.Store(c, verify.Result, &verify.Toolset{})
	pipeline.Store(c, contain.Result, &contain.Policy{Declared: "advisory", Achieved: "advisory", Root: sessionDir})
	return c
}

// sessionOf is the session Launch stored, nil when none.
func sessionOf(c *pipeline.Case) *session.Session {
	s, _ := pipeline.Lookup(c, Result)
	return s
}
