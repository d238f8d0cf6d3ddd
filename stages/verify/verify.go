// Package verify is the Verify stage: every resolved artifact's bytes are
// hashed and checked against its .sha256 sidecar and the murmur.lock pin,
// then its archive is read. Once per run, shared by every case; any
// mismatch fails every case with E-REG-002 and nothing is installed.
package verify

import (
	"context"
	"os"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
)

// Name is the stage's name in the graph.
const Name = "verify"

// Stage is the Verify stage. It is safe for concurrent use.
type Stage struct {
	memo pipeline.Memo[[]pipeline.Artifact]
}

// Name returns "verify".
func (s *Stage) Name() string { return Name }

// Run sets c.Artifacts, verifying on first use.
func (s *Stage) Run(ctx context.Context, c *pipeline.Case) error {
	if c.Capsule == nil {
		return errcode.New(errcode.Internal, "verify: resolve did not run")
	}
	pins := c.Capsule.Pins
	arts, err := s.memo.Get(ctx, func(context.Context) ([]pipeline.Artifact, error) { return verifyAll(pins) })
	c.Artifacts = arts
	return err
}

// verifyAll checks every artifact before returning any, so a run with one
// bad artifact uses none of them.
func verifyAll(pins []capsule.Pinned) ([]pipeline.Artifact, error) {
	arts := make([]pipeline.Artifact, 0, len(pins))
	for _, p := range pins {
		zip, err := os.ReadFile(p.Resolved.ZipPath)
		if err != nil {
			return nil, errcode.Wrap(errcode.IO, err, "read artifact %s@%s", p.Name, p.Version)
		}
		if err := capsule.Verify(p.Name, p.Version, zip, p.Resolved.SidecarSHA256, p.LockSHA256); err != nil {
			return nil, err
		}
		ar, err := capsule.ReadArchive(p.Name, p.Version, zip, 0)
		if err != nil {
			return nil, err
		}
		arts = append(arts, pipeline.Artifact{Pinned: p, SHA256: capsule.SHA256Hex(zip), Archive: ar})
	}
	return arts, nil
}
