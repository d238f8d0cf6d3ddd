package capsule

import (
	"archive/zip"
	"bytes"
	"errors"
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
var packTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Pack builds the .mur.zip of the artifact whose murmur.yaml is in dir, as
// `mur build` does (§3.2): Deflate, murmur.yaml first (verbatim), then each
// requires_files entry in order under its relative path with `\` turned
// into `/`. Nothing else is packed. Entries must be relative, free of "..",
// present, and regular files that are not symlinks; a wasm artifact must end
// up with a root *.wasm. A requires_files entry naming murmur.yaml is
// skipped: the manifest entry is reserved (murmur warns W-BLD-001).
//
// Unlike murmur, entries are cleaned ("./a" packs as "a") and directories are
// refused rather than packed.
func Pack(dir string) ([]byte, *ArtifactManifest, error) {
	manPath := filepath.Join(dir, ManifestFile)
	text, err := os.ReadFile(manPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, errcode.New(errcode.IONotFound, "%s not found at %s", ManifestFile, manPath)
	}
	if err != nil {
		return nil, nil, errcode.Wrap(errcode.IO, err, "failed to read %s at %s", ManifestFile, manPath)
	}
	am, err := ParseArtifactManifest(manPath, text)
	if err != nil {
		return nil, nil, err
	}
	if msg := checkArtifactName(am.Name); msg != "" {
		return nil, nil, errcode.New(errcode.BuildName, "invalid artifact name '%s': %s", am.Name, msg).At(manPath)
	}

	type member struct {
		name string
		data []byte
		mode fs.FileMode
	}
	members := []member{{name: ManifestFile, data: text, mode: 0o644}}
	owner := map[string]string{ManifestFile: ManifestFile}
	for _, f := range am.RequiresFiles {
		name := path.Clean(strings.ReplaceAll(f, `\`, "/"))
		if name == ManifestFile {
			continue
		}
		if strings.HasPrefix(name, "/") || filepath.IsAbs(f) || name == "." || name == ".." || strings.HasPrefix(name, "../") {
			return nil, nil, errcode.New(errcode.BuildFiles, "requires_files entry '%s' must be a relative path inside %s without '..'", f, dir).At(manPath)
		}
		if prev, dup := owner[name]; dup {
			return nil, nil, errcode.New(errcode.BuildFiles, "requires_files entries '%s' and '%s' map to the same archive name '%s'", prev, f, name).At(manPath)
		}
		owner[name] = f
		src := filepath.Join(dir, filepath.FromSlash(name))
		info, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, errcode.New(errcode.IO, "missing required file '%s' in %s", f, dir).At(manPath)
		}
		if err != nil {
			return nil, nil, errcode.Wrap(errcode.IO, err, "failed to read required file '%s'", f)
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return nil, nil, errcode.New(errcode.BuildFiles, "requires_files entry '%s' is a symlink", f).At(manPath)
		case !info.Mode().IsRegular():
			return nil, nil, errcode.New(errcode.BuildFiles, "requires_files entry '%s' is not a regular file; list files one by one", f).At(manPath)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, nil, errcode.Wrap(errcode.IO, err, "failed to read required file '%s'", f)
		}
		mode := fs.FileMode(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		members = append(members, member{name: name, data: data, mode: mode})
	}
	if am.Packaging() == ExecutionWasm {
		names := make([]string, len(members))
		for i, m := range members {
			names[i] = m.name
		}
		if _, msg := RootWasm(names); msg != "" {
			return nil, nil, errcode.New(errcode.BuildPayload, "%s", msg).At(manPath).
				WithHint("list the component (e.g. capsule.wasm) in requires_files")
		}
	}

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
			return nil, nil, errcode.Wrap(errcode.IO, err, "failed to write archive entry '%s'", m.name)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, nil, errcode.Wrap(errcode.IO, err, "failed to finish archive")
	}
	return buf.Bytes(), am, nil
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
