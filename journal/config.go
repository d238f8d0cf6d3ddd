package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// RunFile is the name of a run's identity file in its folder.
const RunFile = "run.json"

// Run is what a run folder says about the run that made it, so that
// --resume can refuse to mix results of a different configuration.
type Run struct {
	RunID string `json:"run_id"`
	// ConfigSHA256 is Fingerprint's hash of everything that decides the
	// results: capsule, lock, artifacts, dataset, selection, epochs.
	ConfigSHA256 string `json:"config_sha256"`
	// Config holds the named parts the hash was made of, for messages.
	Config map[string]string `json:"config"`
	// Inputs says where the run's inputs were (dataset path, epochs,
	// selection), for merge to find the cases a set of shards misses. It
	// is not part of the hash: a run may resume from another folder.
	Inputs map[string]string `json:"inputs,omitempty"`
	// Version is the murmur-eval that started the run (not part of the
	// hash: a run may be resumed by a newer build).
	Version string `json:"version,omitempty"`
	// Resume is the command line that finishes the run, its paths
	// absolute: `show` prints it for a run killed before it wrote its
	// summary (not part of the hash).
	Resume []string `json:"resume,omitempty"`
}

// Fingerprint hashes named parts (each already a digest or a small value)
// in name order, so the same configuration always gives the same hash.
func Fingerprint(parts map[string]string) string {
	names := make([]string, 0, len(parts))
	for k := range parts {
		names = append(names, k)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, k := range names {
		b, _ := json.Marshal([2]string{k, parts[k]})
		h.Write(append(b, '\n'))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// FileDigest is the hex SHA-256 of a file's bytes, or "absent".
func FileDigest(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Absent, nil
	}
	if err != nil {
		return "", errcode.Wrap(errcode.IO, err, "read %s", path)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Absent is FileDigest's value for a file that does not exist.
const Absent = "absent"

// WriteRun writes dir/run.json atomically.
func WriteRun(dir string, r Run) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "encode %s", RunFile)
	}
	tmp, err := os.CreateTemp(dir, "."+RunFile+".tmp-*")
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "write %s", RunFile)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return errcode.Wrap(errcode.IO, err, "write %s", RunFile)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, RunFile)); err != nil {
		os.Remove(tmp.Name())
		return errcode.Wrap(errcode.IO, err, "write %s", RunFile)
	}
	return nil
}

// ReadRun reads dir/run.json.
func ReadRun(dir string) (Run, error) {
	var r Run
	b, err := readBounded(filepath.Join(dir, RunFile), MaxRunFileBytes)
	if errors.Is(err, errTooLong) {
		return r, errcode.New(errcode.IO, "%s: %s is over %d bytes, which no murmur-eval writes", dir, RunFile, MaxRunFileBytes)
	}
	if err != nil {
		return r, errcode.Wrap(errcode.IONotFound, err, "%s is not a murmur-eval run folder", dir).
			WithHint("--resume takes the --out folder of an earlier run")
	}
	if err := json.Unmarshal(b, &r); err != nil || r.RunID == "" {
		return r, errcode.New(errcode.IO, "%s: not a valid %s", dir, RunFile)
	}
	return r, nil
}

// Changed lists the named parts that differ between two configurations.
func Changed(old, cur map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for k, v := range cur {
		seen[k] = true
		if old[k] != v {
			out = append(out, k)
		}
	}
	for k := range old {
		if !seen[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// MaxRunFileBytes bounds reading run.json: a run folder may come from
// anywhere (report, show, merge read folders they did not write), and the
// file holds a few kilobytes.
const MaxRunFileBytes = 1 << 20

var errTooLong = errors.New("file too long")

// readBounded reads the file at path, errTooLong when it holds more than
// limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = errTooLong
	}
	return b, err
}
