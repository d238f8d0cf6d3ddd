package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
	"github.com/murmur-nexus/murmur-eval/merge"
	"github.com/murmur-nexus/murmur-eval/runfolder"
	"github.com/murmur-nexus/murmur-eval/scoring"
	"github.com/murmur-nexus/murmur-eval/survey"
)

// scoreInputs are what score scores with: the capsule folder and the
// dataset (absolute), the scoring plan built from the capsule's manifest,
// each case's expected value by case id, and the digests of the manifest
// and the dataset for the new run's fingerprint.
type scoreInputs struct {
	capsuleDir, datasetPath string
	plan                    *scoring.Plan
	resources               capsule.Resources // what a check command runs with
	expected                map[string]json.RawMessage
	manifestDigest          string
	datasetDigest           string
	// rubrics counts the cases with an expected.rubric; judge is the
	// judge's settings for run.json ("" without a judge).
	rubrics int
	judge   string
}

// loadScoreInputs finds the capsule and the dataset (the flags, else the
// ones the run ran with), builds the plan, and reads every case's expected
// value, checked as the run command checks them (survey): a bad one
// refuses the re-scoring, the warnings are printed.
func loadScoreInputs(o scoreOptions, src merge.Shard, env map[string]string, stderr io.Writer) (scoreInputs, error) {
	var in scoreInputs
	capsuleDir := cmp.Or(o.capsule, runCapsule(src))
	if capsuleDir == "" {
		return in, errcode.New(errcode.Usage, "%s: its run.json does not say which capsule it ran", o.run).
			WithHint("name the capsule: murmur-eval score %s --out %s --capsule CAPSULE_DIR", o.run, o.out)
	}
	datasetPath := cmp.Or(o.dataset, src.Run.Inputs["dataset"])
	if datasetPath == "" {
		return in, errcode.New(errcode.Usage, "%s: its run.json does not say which dataset it ran", o.run).
			WithHint("name the dataset: murmur-eval score %s --out %s --dataset FILE", o.run, o.out)
	}
	in.capsuleDir, in.datasetPath = absPath(capsuleDir), absPath(datasetPath)
	if !isCapsuleDir(in.capsuleDir) {
		return in, errcode.New(errcode.IONotFound, "capsule folder %s has no %s", in.capsuleDir, capsule.ManifestFile).
			WithHint("--capsule names the capsule folder whose murmur.yaml scores the run")
	}
	plan, warnings := survey.NewPlan(in.capsuleDir, env, o.checkTimeout)
	if m := survey.ReadManifest(in.capsuleDir, env); m != nil {
		in.resources = m.Capabilities.Resources
	}
	sv := survey.New(plan, in.datasetPath)
	in.expected = map[string]json.RawMessage{}
	// The dataset's task files are never read: a session's task.md is what
	// the case was given.
	ds, err := datasets.Options{AllowTaskOutside: true, Visit: func(i int, c datasets.Case) {
		sv.Visit(i, c)
		in.expected[c.ID] = c.Expected
	}}.Load(in.datasetPath)
	if err != nil {
		return in, err
	}
	_ = ds.Close()
	unread, err := sv.CheckExpected()
	if err != nil {
		return in, err
	}
	for _, w := range append(warnings, unread...) {
		fmt.Fprintln(stderr, w)
	}
	in.plan = plan
	for _, raw := range in.expected {
		if e, _, _ := plan.Expected(raw); e != nil && e.Rubric != nil {
			in.rubrics++
		}
	}
	if in.manifestDigest, err = journal.FileDigest(filepath.Join(in.capsuleDir, capsule.ManifestFile)); err != nil {
		return in, err
	}
	in.datasetDigest, err = journal.FileDigest(in.datasetPath)
	return in, err
}

// runCapsule is the capsule folder the run ran (or was last scored)
// with: its run.json's, else, for a merged run, its shards' (the folders
// its session folders are in); "" when none says.
func runCapsule(src merge.Shard) string {
	if c := runJSONCapsule(src.Run); c != "" {
		return c
	}
	for _, r := range src.Records {
		dir := filepath.FromSlash(r.Final().Result.SessionDir) // absolute: merge.ReadShard
		if filepath.Base(filepath.Dir(dir)) != runfolder.SessionsDir {
			continue
		}
		if run, err := journal.ReadRun(filepath.Dir(filepath.Dir(dir))); err == nil {
			if c := runJSONCapsule(run); c != "" {
				return c
			}
		}
	}
	return ""
}

// runJSONCapsule is the capsule a run.json names: a re-scored run's
// inputs, else the second word of the command line that resumes it.
func runJSONCapsule(run journal.Run) string {
	if c := run.Inputs[scoreCapsuleInput]; c != "" {
		return c
	}
	if len(run.Resume) > 1 {
		return run.Resume[1]
	}
	return ""
}

// The parts and inputs a re-scored run's run.json adds to those of the
// run it re-scores.
const (
	scoreOfPart        = "rescore-of"       // the re-scored run's id
	scoreManifestPart  = "rescore-manifest" // the digest of the murmur.yaml that scored
	scoreDatasetPart   = "rescore-dataset"  // the digest of the dataset whose expected values scored
	scoreJudgePart     = "rescore-judge"    // the judge settings
	scoreOfInput       = "rescore_of"       // the re-scored run's folder
	scoreCapsuleInput  = "capsule"          // the capsule folder that scored
	scoreDatasetInput  = "rescore_dataset"  // the dataset that scored
	scoreJudgeNoneName = "none"
)

// scoreRunFile is the re-scored run's run.json: the parts and inputs of
// the run it re-scores (so its shard and selection still read its journal
// back), plus what scored it, under a new fingerprint.
func scoreRunFile(runID string, src merge.Shard, in scoreInputs) journal.Run {
	parts := maps.Clone(src.Run.Config)
	if parts == nil {
		parts = map[string]string{}
	}
	parts[scoreOfPart] = src.Run.RunID
	parts[scoreManifestPart] = in.manifestDigest
	parts[scoreDatasetPart] = in.datasetDigest
	parts[scoreJudgePart] = cmp.Or(in.judge, scoreJudgeNoneName)
	inputs := maps.Clone(src.Run.Inputs)
	if inputs == nil {
		inputs = map[string]string{}
	}
	inputs[scoreOfInput] = absPath(src.Dir)
	inputs[scoreCapsuleInput] = in.capsuleDir
	inputs[scoreDatasetInput] = in.datasetPath
	return journal.Run{RunID: runID, ConfigSHA256: journal.Fingerprint(parts), Config: parts, Inputs: inputs, Version: buildVersion()}
}
