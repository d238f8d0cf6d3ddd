package capsule

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// DefaultMaxEntryBytes is murmur's zip_guard ceiling on one entry's
// decompressed size: 500 MiB.
const DefaultMaxEntryBytes = 524288000

// MaxEntryBytesEnv is the environment variable that overrides
// DefaultMaxEntryBytes.
const MaxEntryBytesEnv = "MURMUR_MAX_ARTIFACT_DECOMPRESSED_BYTES"

// MaxEntryBytes returns zip_guard's per-entry ceiling: MaxEntryBytesEnv
// when it holds an unsigned integer (capped at the largest int64), else
// DefaultMaxEntryBytes, as murmur ignores an unparsable value. A value of
// 0 also means the default here (murmur would refuse every entry).
func MaxEntryBytes(lookupEnv func(string) (string, bool)) int64 {
	if lookupEnv == nil {
		return DefaultMaxEntryBytes
	}
	v, ok := lookupEnv(MaxEntryBytesEnv)
	if !ok {
		return DefaultMaxEntryBytes
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(v, "+"), 10, 64) // Rust accepts one "+"
	switch {
	case err != nil || n == 0:
		return DefaultMaxEntryBytes
	case n > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(n)
}

// Archive is the content of a .mur.zip that staging uses: the artifact's own
// manifest and its payload.
type Archive struct {
	Name    string // the reference it was read for
	Version string

	Manifest     *ArtifactManifest
	ManifestText string   // the packed murmur.yaml verbatim; staging installs it as tools/<name>/murmur.yaml
	Entries      []string // entry names in archive order

	Packaging    Execution
	PayloadEntry string // the root *.wasm, "bin/<name>" or "skill.md"
	Payload      []byte
}

// ReadArchive reads the archive of name@version the way murmur's staging
// does, behind zip_guard (§3.3): every entry name must stay relative (a
// leading "/" is stripped; ".." and drive or backslash-rooted names are
// refused), no entry may be listed twice, and each entry read is cut off
// after maxEntryBytes decompressed bytes (DefaultMaxEntryBytes when <= 0).
// The payload depends on the artifact's packaging type: the root *.wasm
// (capsule.wasm wins, else exactly one), bin/<name>, or skill.md.
//
// Archive failures are E-IO-003 "failed to read artifact archive for n@v: ...";
// a bad packed manifest keeps its E-MAN code.
func ReadArchive(name, version string, zipBytes []byte, maxEntryBytes int64) (*Archive, error) {
	if maxEntryBytes <= 0 {
		maxEntryBytes = DefaultMaxEntryBytes
	}
	fail := func(format string, args ...any) error {
		return errcode.New(errcode.IO, "failed to read artifact archive for %s@%s: %s", name, version, fmt.Sprintf(format, args...))
	}
	zr, err := zip.NewReader(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fail("zip archive error: %v", err)
	}
	a := &Archive{Name: name, Version: version}
	files := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		if reason := unsafeEntry(f.Name); reason != "" {
			return nil, fail("zip entry '%s' has an unsafe path: %s", f.Name, reason)
		}
		if files[f.Name] != nil {
			return nil, fail("zip entry '%s' appears more than once", f.Name)
		}
		files[f.Name] = f
		a.Entries = append(a.Entries, f.Name)
	}
	read := func(entry string, text bool) ([]byte, error) {
		f := files[entry]
		if f == nil {
			return nil, errors.New("specified file not found in archive")
		}
		data, err := readCapped(f, maxEntryBytes)
		if err == nil && text && !utf8.Valid(data) {
			err = fmt.Errorf("zip entry '%s' is not valid UTF-8", entry)
		}
		return data, err
	}

	text, err := read(ManifestFile, true)
	if err != nil {
		return nil, fail("missing or unreadable %s in artifact archive: %v", ManifestFile, err)
	}
	a.ManifestText = string(text)
	if a.Manifest, err = ParseArtifactManifest(name+"@"+version+":"+ManifestFile, text); err != nil {
		return nil, err
	}

	a.Packaging = a.Manifest.Packaging()
	switch a.Packaging {
	case ExecutionNative:
		a.PayloadEntry = "bin/" + name
		if a.Payload, err = read(a.PayloadEntry, false); err != nil {
			return nil, fail("failed to read native binary at '%s': %v", a.PayloadEntry, err)
		}
	case ExecutionStatic:
		a.PayloadEntry = "skill.md"
		if a.Payload, err = read(a.PayloadEntry, true); err != nil {
			return nil, fail("skill.md not found or unreadable at archive root: %v", err)
		}
	default:
		entry, msg := RootWasm(a.Entries)
		if msg != "" {
			return nil, fail("%s", msg)
		}
		a.PayloadEntry = entry
		if a.Payload, err = read(entry, false); err != nil {
			return nil, fail("%v", err)
		}
	}
	return a, nil
}

// unsafeEntry returns why zip_guard refuses an entry name, or "".
// Backslashes count as separators too, so a name stays safe on any host.
func unsafeEntry(raw string) string {
	s := strings.TrimLeft(raw, "/")
	if strings.HasPrefix(s, `\`) || (len(s) >= 2 && s[1] == ':' && isASCIILetter(s[0])) || strings.ContainsRune(s, 0) {
		return "contains an absolute path component"
	}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "contains a '..' component"
		}
	}
	return ""
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// readCapped reads one entry, refusing one whose size is past max. The
// size comes from the entry's header, and the entry must hold exactly that
// many bytes (archive/zip fails an entry that inflates past it), so at most
// max bytes are ever allocated or inflated, in one allocation.
func readCapped(f *zip.File, max int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(max) {
		return nil, fmt.Errorf("zip entry '%s' exceeds the %d-byte decompression ceiling", f.Name, max)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("zip archive error: %w", err)
	}
	defer rc.Close()
	data := make([]byte, f.UncompressedSize64)
	if _, err := io.ReadFull(rc, data); err != nil {
		return nil, fmt.Errorf("io error reading zip entry: %w", err)
	}
	// Reading on to the end also checks the entry's CRC-32.
	var more [1]byte
	switch _, err := io.ReadFull(rc, more[:]); {
	case errors.Is(err, io.EOF):
		return data, nil
	case err == nil:
		return nil, fmt.Errorf("zip entry '%s' is longer than its header says", f.Name)
	default:
		return nil, fmt.Errorf("io error reading zip entry: %w", err)
	}
}

// RootWasm picks the WASM payload among archive entry names: candidates end
// in .wasm and are a single relative path component; capsule.wasm wins,
// otherwise there must be exactly one. On failure it returns murmur's
// message (E-BLD-003 at build, an archive error at staging).
func RootWasm(entries []string) (entry, problem string) {
	var found []string
	for _, e := range entries {
		if !strings.HasSuffix(e, ".wasm") || strings.ContainsAny(e, `/\`) {
			continue
		}
		if e == "capsule.wasm" {
			return e, ""
		}
		found = append(found, e)
	}
	switch len(found) {
	case 0:
		return "", "missing root .wasm file (expected capsule.wasm or one root *.wasm)"
	case 1:
		return found[0], ""
	}
	sort.Strings(found)
	return "", "multiple root .wasm files found: " + strings.Join(found, ", ")
}
