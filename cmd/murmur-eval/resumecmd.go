package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/scoring"
)

// defaultTimeout is --timeout's default (flags.go).
const defaultTimeout = 10 * time.Minute

// resumeArgs is the command line that finishes the run o describes: the
// capsule, the dataset and every flag its fingerprint holds
// (fingerprintConfig) that is not at its default, then --resume with its
// folder. The flags may also have come from the environment: they are
// written out, so the command works in a shell without it. Gates, workers
// and the other flags a resume may change are left out. path maps each
// path (the capsule, the dataset, the recordings, the run folder): as
// given for the terminal of the run, absolute for run.json.
func resumeArgs(o options, path func(string) string) []string {
	args := []string{"murmur-eval", path(o.capsuleDir), "--dataset", path(o.dataset)}
	add := func(flag, value string) { args = append(args, flag, value) }
	if o.batch.epochs != 1 {
		add("--epochs", strconv.Itoa(o.batch.epochs))
	}
	if o.batch.retries != 0 {
		add("--retries", strconv.Itoa(o.batch.retries))
	}
	if o.batch.filter != "" {
		add("--filter", o.batch.filter)
	}
	if o.batch.limit != 0 {
		add("--limit", strconv.Itoa(o.batch.limit))
	}
	if s := o.batch.shard.String(); s != "" {
		add("--shard", s)
	}
	if o.timeout != defaultTimeout {
		add("--timeout", o.timeout.String())
	}
	if o.checkTimeout != scoring.DefaultCheckTimeout {
		add("--check-timeout", o.checkTimeout.String())
	}
	if o.replay != "" {
		add("--replay", path(o.replay))
	}
	if o.record != "" {
		add("--record", path(o.record))
	}
	if o.modelCache != "" {
		add("--cache", path(o.modelCache))
	}
	if o.driver != driverInstalled {
		add("--driver", o.driver)
	}
	if o.workdirMaxFiles != defaultWorkdirMaxFiles {
		add("--workdir-max-files", strconv.Itoa(o.workdirMaxFiles))
	}
	if o.allowTaskOutside {
		args = append(args, "--allow-task-outside-dataset")
	}
	args = append(args, o.budget.args()...)
	args = append(args, o.prices.args(path)...)
	args = append(args, o.judge.args()...)
	args = append(args, o.variants.args(path)...)
	if o.runAnyway { // else the resume is refused for what the run went on despite
		args = append(args, "--run-anyway")
	}
	return append(args, "--resume", path(o.out))
}

// shellLine joins args into one line a POSIX shell reads back as args:
// an argument with anything but letters, digits and _@%+=:,./- is put in
// single quotes.
func shellLine(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellWord(a)
	}
	return strings.Join(quoted, " ")
}

func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
