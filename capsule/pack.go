package capsule

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// packTime is every entry's modification time, so that the same inputs
// always give the same archive bytes (and the same sha256).
var packTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC) //nolint:gochecknoglobals // a constant (Go has no const time.Time)

// Packed is an artifact archive built by Pack.
type Packed struct {
	Zip      []byte
	Manifest *ArtifactManifest
	// Warnings are `mur build`'s lints, "W-BLD-00N: ...": a requires_files
	// entry shadowed by the reserved murmur.yaml (001), capsule.wasm
	// shadowing another root .wasm (002), Rust sources or build output in a
	// wasm or native artifact (003).
	Warnings []string
}

// Pack builds the .mur.zip of the artifact whose murmur.yaml is in dir, as
// `mur build` does (§3.2): Deflate, murmur.yaml first (verbatim), then each
// requires_files entry in order under its relative path with `\` turned
// into `/`. Nothing else is packed, and never a file named in exclude (the
// output file). Entries must be relative, free of "..", present, and regular
// files that are not symlinks (E-BLD-002, missing E-IO-003); a wasm artifact
// must end up with a root *.wasm (E-BLD-003); the name must be 1–100 of
// [a-z0-9-] (E-BLD-001). A requires_files entry naming murmur.yaml is
// skipped: the manifest entry is reserved (W-BLD-001).
//
// Unlike murmur, entries are cleaned ("./a" packs as "a") and directories are
// refused rather than packed.
func Pack(dir string, exclude ...string) (*Packed, error) {
	zip, am, warnings, err := pack(dir, exclude)
	if err != nil {
		return nil, err
	}
	return &Packed{Zip: zip, Manifest: am, Warnings: warnings}, nil
}

func pack(dir string, exclude []string) ([]byte, *ArtifactManifest, []string, error) {
	manPath := filepath.Join(dir, ManifestFile)
	text, err := os.ReadFile(manPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, errcode.New(errcode.IONotFound, "%s not found at %s", ManifestFile, manPath)
	}
	if err != nil {
		return nil, nil, nil, errcode.Wrap(errcode.IO, err, "failed to read %s at %s", ManifestFile, manPath)
	}
	am, err := ParseArtifactManifest(manPath, text)
	if err != nil {
		return nil, nil, nil, err
	}
	if msg := checkArtifactName(am.Name); msg != "" {
		return nil, nil, nil, errcode.New(errcode.BuildName, "invalid artifact name '%s': %s", am.Name, msg).At(manPath)
	}

	members := []packMember{{name: ManifestFile, data: text, mode: 0o644}}
	owner := map[string]string{ManifestFile: ManifestFile}
	var warnings []string
	for _, f := range am.RequiresFiles {
		name := path.Clean(strings.ReplaceAll(f, `\`, "/"))
		if name == ManifestFile {
			warnings = append(warnings, fmt.Sprintf("W-BLD-001: requires_files entry '%s' is shadowed by the reserved root entry '%s' (the artifact's manifest); it is not packed again", f, ManifestFile))
			continue
		}
		if strings.HasPrefix(name, "/") || filepath.IsAbs(f) || name == "." || name == ".." || strings.HasPrefix(name, "../") {
			return nil, nil, nil, errcode.New(errcode.BuildFiles, "requires_files entry '%s' must be a relative path inside %s without '..'", f, dir).At(manPath)
		}
		src := filepath.Join(dir, filepath.FromSlash(name))
		if isExcluded(src, exclude) {
			continue // the output file itself is never packed
		}
		if prev, dup := owner[name]; dup {
			return nil, nil, nil, errcode.New(errcode.BuildFiles, "requires_files entries '%s' and '%s' map to the same archive name '%s'", prev, f, name).At(manPath)
		}
		owner[name] = f
		info, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil, errcode.New(errcode.IO, "missing required file '%s' in %s", f, dir).At(manPath)
		}
		if err != nil {
			return nil, nil, nil, errcode.Wrap(errcode.IO, err, "failed to read required file '%s'", f)
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return nil, nil, nil, errcode.New(errcode.BuildFiles, "requires_files entry '%s' is a symlink", f).At(manPath)
		case !info.Mode().IsRegular():
			return nil, nil, nil, errcode.New(errcode.BuildFiles, "requires_files entry '%s' is not a regular file; list files one by one", f).At(manPath)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, nil, nil, errcode.Wrap(errcode.IO, err, "failed to read required file '%s'", f)
		}
		mode := fs.FileMode(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		members = append(members, packMember{name: name, data: data, mode: mode})
	}
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.name
	}
	if am.Packaging() == ExecutionWasm {
		if _, msg := RootWasm(names); msg != "" {
			return nil, nil, nil, errcode.New(errcode.BuildPayload, "%s", msg).At(manPath).
				WithHint("list the component (e.g. capsule.wasm) in requires_files")
		}
	}
	warnings = append(warnings, buildLints(am, names)...)
	archive, err := zipMembers(members)
	if err != nil {
		return nil, nil, nil, err
	}
	return archive, am, warnings, nil
}

// packMember is one file of an artifact archive.
type packMember struct {
	name string
	data []byte
	mode fs.FileMode
}

// zipMembers writes members, in order, into a zip archive whose bytes
// depend only on them (every entry is dated packTime).
func zipMembers(members []packMember) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: packTime}
		h.SetMode(m.mode)
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = w.Write(m.data)
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.IO, err, "failed to write archive entry '%s'", m.name)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "failed to finish archive")
	}
	return buf.Bytes(), nil
}

// checkArtifactName applies `mur build`'s rule: 1–100 characters of [a-z0-9-],
// not starting or ending with '-'. It returns the problem, or "".
func checkArtifactName(name string) string {
	if name == "" || len(name) > 100 {
		return "must be 1 to 100 characters long"
	}
	if strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return "may contain only lowercase letters, digits and '-'"
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		return "must not start or end with '-'"
	}
	return ""
}
