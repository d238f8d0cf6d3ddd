package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/replay"
)

// maxEntryBytes bounds the entry read: a model's answer is as large as
// the HTTP providers read (64 MiB), and a little more for the fields the
// entry adds.
const maxEntryBytes = 64<<20 + 4096

// Entry is the cache entry of resp, the answer to a request with digest
// sum: the recording line inference/record writes (the canonical response,
// the provider's usage its bytes do not carry, request_sha256), so an
// entry can be read as a recording and a recording's line kept as an
// entry.
func Entry(resp *inference.Response, sum string) ([]byte, error) {
	usage := outsideUsage(resp)
	line, err := replay.UsageLine(resp.Raw, usage, sum)
	var compact bytes.Buffer
	if err != nil && json.Compact(&compact, resp.Raw) == nil {
		// A driver may return its JSON on several lines: the entry
		// keeps it on one.
		line, err = replay.UsageLine(compact.Bytes(), usage, sum)
	}
	return line, err
}

// ParseEntry decodes an entry read from the cache folder for a request
// with digest sum. The folder may be shared, so the entry is untrusted:
// it must be one line, a valid recording line (replay.ParseLine), answer
// that very request, and be an answer the cache keeps (not an error).
func ParseEntry(data []byte, sum string) (*inference.Response, error) {
	if len(data) > maxEntryBytes {
		return nil, fmt.Errorf("entry is larger than %d bytes", maxEntryBytes)
	}
	line := bytes.TrimSuffix(data, []byte("\n"))
	if bytes.ContainsAny(line, "\r\n") {
		return nil, errors.New("entry is not one line")
	}
	t, err := replay.ParseLine(line)
	if err != nil {
		return nil, err
	}
	if t.RequestSHA256 != sum {
		return nil, fmt.Errorf("entry answers request %q, not %q", t.RequestSHA256, sum)
	}
	if !cacheable(t.Response) {
		return nil, fmt.Errorf("entry is a stop_reason %q answer, which is never cached", t.Response.StopReason)
	}
	return t.Response, nil
}

// load reads the entry at path. found is false with no error when there
// is none; an error says the entry is there but unusable (a miss that the
// model's answer will overwrite).
func load(path, sum string) (resp *inference.Response, found bool, err error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	case !st.Mode().IsRegular():
		return nil, false, fmt.Errorf("%s is not a regular file", path)
	case st.Size() > maxEntryBytes:
		return nil, false, fmt.Errorf("%s is larger than %d bytes", path, maxEntryBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEntryBytes+1))
	if err != nil {
		return nil, false, err
	}
	resp, err = ParseEntry(data, sum)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return resp, true, nil
}

// store writes resp's entry to path whole: into a temporary file in the
// same folder, renamed over path, so a reader sees the old entry or the
// new one and never a part.
func store(path string, resp *inference.Response, sum string) error {
	line, err := Entry(resp, sum)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".entry-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Chmod(0o644) // readable by the others sharing the folder
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// outsideUsage is resp's provider usage when its bytes do not carry it (a
// driver component's turn, whose usage the host read from the provider's
// answer), so the entry keeps it; nil otherwise.
func outsideUsage(resp *inference.Response) *inference.Usage {
	if resp.Usage == nil {
		return nil
	}
	if own, err := inference.ParseResponse(resp.Raw); err == nil && own.Usage != nil && *own.Usage == *resp.Usage {
		return nil
	}
	return resp.Usage
}
