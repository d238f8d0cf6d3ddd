package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
)

// journalFile is the run folder's journal of finished cases.
const journalFile = "journal.jsonl"

// Fingerprint parts whose difference between two runs is only the shard;
// merge compares every other part.
const shardPart = "shard"

// configParts names everything that decides a run's results, each as a
// digest or a small value: --resume refuses a run whose parts changed and
// says which (journal.Changed). Computed after the capsule is prepared, so
// a lock written by the first run's staging is already there. inputs is
// the digest of the files the dataset's lines name (inputsDigest, made
// in the dataset's one pass).
func configParts(o options, env map[string]string, inputs string) (map[string]string, error) {
	parts := map[string]string{
		"selection": fmt.Sprintf("filter=%q limit=%d", o.batch.filter, o.batch.limit),
		shardPart:   o.batch.shard.String(),
		"epochs":    strconv.Itoa(o.batch.epochs),
		"flags": fmt.Sprintf("retries=%d timeout=%s check-timeout=%s record=%t",
			o.batch.retries, o.timeout, o.checkTimeout, o.record != ""),
	}
	if o.driver == driverBuiltin {
		// Only when set, so runs journaled before --driver existed still resume.
		parts["driver"] = driverBuiltin
	}
	if o.workdirMaxFiles != defaultWorkdirMaxFiles {
		// Likewise only when not the default (--workdir-max-files is newer).
		parts["workdir-max-files"] = strconv.Itoa(o.workdirMaxFiles)
	}
	files := map[string]string{
		"manifest": filepath.Join(o.capsuleDir, capsule.ManifestFile),
		"lock":     filepath.Join(o.capsuleDir, capsule.LockFile),
		"dataset":  o.dataset,
	}
	for name, path := range files {
		d, err := journal.FileDigest(path)
		if err != nil {
			return nil, err
		}
		parts[name] = d
	}
	stores := []string{capsule.ProjectStore(o.capsuleDir)}
	if h := env["HOME"]; h != "" {
		stores = append(stores, capsule.GlobalStore(h))
	}
	var err error
	if parts["artifacts"], err = treeDigest(stores, func(p string) bool { return strings.HasSuffix(p, ".sha256") }); err != nil {
		return nil, err
	}
	parts[inputsPart] = inputs
	if o.replay != "" {
		if parts["recordings"], err = treeDigest([]string{o.replay}, func(string) bool { return true }); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// treeDigest hashes the relative path and content of the files under roots
// that keep selects, in walk (lexical) order; a missing root hashes as empty.
// For the stores it hashes the .sha256 sidecars, which name each
// archive's digest, rather than the archives.
func treeDigest(roots []string, keep func(string) bool) (string, error) {
	h := sha256.New()
	for i, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() || !keep(path) {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			sum := sha256.Sum256(b)
			fmt.Fprintf(h, "%d %s %x\n", i, filepath.ToSlash(rel), sum)
			return nil
		})
		if err != nil {
			return "", errcode.Wrap(errcode.IO, err, "hash %s", root)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkResume compares the resumed run's configuration with the current
// one, naming the parts that changed. It returns the configuration the
// resumed run goes on with: prev's, or prev's with the lock adopted.
//
// A run started without murmur.lock writes one when its first case stages
// (as mur eval run does), so the lock is "absent" in its configuration and
// present when it is resumed. That lock is adopted, not a change, when it
// is no older than the run (run.json) and nothing else changed: it pins
// what the run's cases staged, from the same stores (the "artifacts" part).
func checkResume(dir string, prev journal.Run, cur map[string]string, lockPath string) (journal.Run, error) {
	if prev.ConfigSHA256 == journal.Fingerprint(cur) {
		return prev, nil
	}
	changed := journal.Changed(prev.Config, cur)
	if len(changed) == 1 && changed[0] == "lock" && prev.Config["lock"] == journal.Absent && writtenSince(lockPath, filepath.Join(dir, journal.RunFile)) {
		prev.Config = maps.Clone(prev.Config)
		prev.Config["lock"] = cur["lock"]
		prev.ConfigSHA256 = journal.Fingerprint(prev.Config)
		return prev, nil
	}
	return prev, errcode.New(errcode.Usage, "--resume %s: the run's configuration changed since it started: %s", dir, strings.Join(changed, ", ")).
		WithHint("resume with the same capsule, lock, artifacts, dataset, task files, workspaces, recordings and flags, or start a new run with --out")
}

// writtenSince reports whether the file at path was last modified no
// earlier than the file at ref.
func writtenSince(path, ref string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	ri, err := os.Stat(ref)
	return err == nil && !fi.ModTime().Before(ri.ModTime())
}
