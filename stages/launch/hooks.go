package launch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/hooks"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/session"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

// openHooks gives the case its hook dispatcher: the run's compiled hooks,
// the case's session folder (logs, scopes), MURMUR_CASE_ID and the host's
// MURMUR_FORMATION_ID, the run's wasi:http client and the case's denial
// log. nil when
// the capsule has no hooks.
func (s *Stage) openHooks(c *pipeline.Case, ts *verify.Toolset, denied *session.Denials) *hooks.Dispatcher {
	return ts.Hooks.Open(hooks.Case{SessionDir: c.SessionDir, CaseID: c.ID, FormationID: s.env["MURMUR_FORMATION_ID"],
		HTTP: s.http, OnHTTPDenied: denied.Add}, s.now)
}

// taskConfig fills in the loop's reopen budget and compaction settings.
// An unreadable compaction.system_prompt_file is E-RUN-009, as murmur's.
func taskConfig(m *capsule.Manifest, cfg *session.LoopConfig) error {
	cfg.MaxTaskReopens = int(m.Inference.MaxTaskReopens)
	cfg.ContextMaxTokens = int64(m.Context.MaxTokens)
	cfg.Compaction = session.CompactionConfig{Threshold: float64(capsule.DefaultCompactionThreshold), Model: m.Inference.Model}
	c := m.Inference.Compaction
	if c == nil {
		return nil
	}
	cfg.Compaction.Threshold, cfg.Compaction.DumpSummaries = float64(c.Threshold), c.DumpSummaries
	if c.Model != "" {
		cfg.Compaction.Model = c.Model
	}
	switch {
	case c.SystemPrompt != "":
		p := c.SystemPrompt
		cfg.Compaction.SystemPrompt = &p
	case c.SystemPromptFile != "":
		path := c.SystemPromptFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(m.Dir, path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return errcode.Wrap(errcode.RunSystemPrompt, err, "read inference.compaction.system_prompt_file %s", path)
		}
		p := string(b)
		cfg.Compaction.SystemPrompt = &p
	}
	return nil
}

// stageHooks is murmur's on-stage dispatch (murmur-session.md §1.1), done
// here because murmur-eval's Stage stage knows nothing of hooks: every
// write-manifests answer replaces tools/<binary_name>/murmur.yaml in the
// session (never through the hard link to the run's copy), and the case's
// tool inventory takes the description and input schema of a replaced
// tool's manifest, as murmur's inventory reads them from tools/.
func (s *Stage) stageHooks(ctx context.Context, c *pipeline.Case, ses *session.Session, manifest *capsule.Manifest) error {
	d := ses.Hooks
	if d == nil {
		return nil
	}
	if ses.Process == nil {
		d.UseModel(ses.Model, ses.Config.Model)
	}
	ms, err := d.Stage(ctx, hooks.StageEvent{ShellAllow: manifest.Capabilities.Shell.Allow})
	d.TakeInferences() // completions made while staging have no trace to go to yet
	if err != nil || len(ms) == 0 {
		return err
	}
	inv := slices.Clone(ses.Tools.Inventory())
	for _, m := range ms {
		name := m.BinaryName
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
			bootstrapLog(c.SessionDir, "[on-stage] write-manifests: binary_name '"+name+"' is not a tool folder name; ignored")
			continue
		}
		// Created fresh: the staged file is a hard link to the run's copy,
		// replaced, never written through (sessionfs).
		p := "tools/" + name + "/" + capsule.ManifestFile
		if err := sessionfs.WriteFile(c.SessionDir, p, []byte(m.Content), 0o644); err != nil {
			return writeErr(err, p)
		}
		am, err := capsule.ParseArtifactManifest("tools/"+name+"/"+capsule.ManifestFile, []byte(m.Content))
		if err != nil {
			bootstrapLog(c.SessionDir, "[on-stage] write-manifests: "+err.Error()+"; the tool list keeps the staged manifest")
			continue
		}
		for i := range inv {
			if inv[i].Name == name {
				inv[i].Description, inv[i].Parameters = am.Description, am.InputSchema
			}
		}
	}
	ses.Tools = caseTools{Toolbox: ses.Tools, inventory: inv}
	return nil
}

// caseTools is a case's toolbox with its own inventory, after on-stage
// hooks rewrote tool manifests.
type caseTools struct {
	session.Toolbox
	inventory []inference.Tool
}

func (t caseTools) Inventory() []inference.Tool { return t.inventory }

func bootstrapLog(dir, line string) {
	_ = sessionfs.AppendFile(dir, "logs/bootstrap.log", []byte(line+"\n"), 0o644)
}
