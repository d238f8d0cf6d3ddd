package runfolder

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
	"time"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
)

// JournalFile is the run folder's journal of finished cases.
const JournalFile = "journal.jsonl"

// ShardPart is the fingerprint part whose difference between two runs is
// only the shard; merge compares every other part.
const ShardPart = "shard"

// Config is what decides a run's results, as the fingerprint's parts are
// made of it (Parts).
type Config struct {
	CapsuleDir string // the capsule's folder: its manifest and lock
	Dataset    string // the dataset's path
	Replay     string // --replay's folder; "" for none
	Home       string // $HOME, for the global artifact store; "" for none
	Filter     string
	Limit      int
	Shard      datasets.Shard
	Epochs     int
	Retries    int
	Timeout    time.Duration
	// CheckTimeout is --check-timeout; Record is --record given.
	CheckTimeout time.Duration
	Record       bool
	// Optional are parts set only when their flag is not at its default,
	// so runs journaled before the flag existed still resume ("driver",
	// "workdir-max-files").
	Optional map[string]string
	// Inputs is the digest of the files the dataset's lines name
	// (InputsDigest, made in the dataset's one pass).
	Inputs string
}

// Parts names everything that decides a run's results, each as a
// digest or a small value: --resume refuses a run whose parts changed and
// says which (journal.Changed). Computed after the capsule is prepared, so
// a lock written by the first run's staging is already there.
func Parts(c Config) (map[string]string, error) {
	parts := map[string]string{
		"selection": fmt.Sprintf("filter=%q limit=%d", c.Filter, c.Limit),
		ShardPart:   c.Shard.String(),
		"epochs":    strconv.Itoa(c.Epochs),
		"flags": fmt.Sprintf("retries=%d timeout=%s check-timeout=%s record=%t",
			c.Retries, c.Timeout, c.CheckTimeout, c.Record),
	}
	maps.Copy(parts, c.Optional)
	files := map[string]string{
		"manifest": filepath.Join(c.CapsuleDir, capsule.ManifestFile),
		"lock":     filepath.Join(c.CapsuleDir, capsule.LockFile),
		"dataset":  c.Dataset,
	}
	for name, path := range files {
		d, err := journal.FileDigest(path)
		if err != nil {
			return nil, err
		}
		parts[name] = d
	}
	stores := []string{capsule.ProjectStore(c.CapsuleDir)}
	if c.Home != "" {
		stores = append(stores, capsule.GlobalStore(c.Home))
	}
	var err error
	if parts["artifacts"], err = treeDigest(stores, func(p string) bool { return strings.HasSuffix(p, ".sha256") }); err != nil {
		return nil, err
	}
	parts[InputsPart] = c.Inputs
	if c.Replay != "" {
		if parts["recordings"], err = treeDigest([]string{c.Replay}, func(string) bool { return true }); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// WithoutShard is parts less the shard's part: what the shards of one run
// share.
func WithoutShard(parts map[string]string) map[string]string {
	m := make(map[string]string, len(parts))
	for k, v := range parts {
		if k != ShardPart {
			m[k] = v
		}
	}
	return m
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

// CheckResume compares the resumed run's configuration with the current
// one, naming the parts that changed. It returns the configuration the
// resumed run goes on with: prev's, or prev's with the lock adopted.
//
// A run started without murmur.lock writes one when its first case stages
// (as mur eval run does), so the lock is "absent" in its configuration and
// present when it is resumed. That lock is adopted, not a change, when it
// is no older than the run (run.json) and nothing else changed: it pins
// what the run's cases staged, from the same stores (the "artifacts" part).
func CheckResume(dir string, prev journal.Run, cur map[string]string, lockPath string) (journal.Run, error) {
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
