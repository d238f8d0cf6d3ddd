package main

import (
	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
)

// stagingOptions are the Stage stage's workspace and setup settings:
// bases under the run folder, overlays when main entered a mount namespace
// of its own (MURMUR_EVAL_MOUNTNS), MURMUR_EVAL_WORKSPACE_CLONE and
// MURMUR_EVAL_WORKSPACE_LIMITS from the environment (docs/workspaces.md),
// setup commands with the evaluator's PATH (through the launcher the
// stage table gives the Stage stage and the checks).
func (w wiring) stagingOptions() (staging.Options, error) {
	mech, err := workspace.ParseMechanism(w.env[workspace.CloneEnv])
	if err != nil {
		return staging.Options{}, err
	}
	lim, err := workspace.ParseLimits(w.env[workspace.LimitsEnv])
	if err != nil {
		return staging.Options{}, err
	}
	return staging.Options{
		Workspaces: workspace.NewSet(w.outDir, lim).WithOverlay(w.env[workspace.MountNSEnv]),
		Clone:      mech,
		PATH:       w.env["PATH"],

		WorkdirMaxFiles: w.workdirMaxFiles,
	}, nil
}
