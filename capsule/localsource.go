package capsule

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// LocalSkill is a local-source artifact's payload, read from its source
// path rather than a registry. Staging installs it as tools/<name>/skill.md
// (and nothing else: no murmur.yaml, so it is not in the model's tool
// inventory, as in murmur).
type LocalSkill struct {
	Name string
	Path string // the file read
	Text []byte
}

// ReadLocalSkills reads every local-source artifact of m, in manifest
// order. See ReadLocalSkill.
func ReadLocalSkills(m *Manifest) ([]LocalSkill, error) {
	var out []LocalSkill
	for _, a := range m.Artifacts {
		if !a.IsLocal() {
			continue
		}
		s, err := ReadLocalSkill(m.Dir, a)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// ReadLocalSkill reads a local-source artifact the way murmur's staging
// does: the source (relative to dir unless absolute) must exist (else
// E-IO-001); a file is read as it is; a folder must hold a file whose name,
// lowercased, is skill.md (else E-IO-001), the first in name order. Read
// failures are E-IO-003. Whatever the role, the bytes are a skill.md.
func ReadLocalSkill(dir string, a ArtifactDecl) (LocalSkill, error) {
	src := a.Source
	if !filepath.IsAbs(src) {
		src = filepath.Join(dir, src)
	}
	hint := "point source: at a skill.md file, or at a folder that holds one"
	info, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return LocalSkill{}, errcode.New(errcode.IONotFound, "skill source path not found: %s", src).At(a.Where()).WithHint("%s", hint)
	}
	if err != nil {
		return LocalSkill{}, errcode.Wrap(errcode.IO, err, "failed to read skill source for '%s'", a.Name).At(a.Where())
	}
	path := src
	if info.IsDir() {
		entries, err := os.ReadDir(src)
		if err != nil {
			return LocalSkill{}, errcode.Wrap(errcode.IO, err, "failed to read skill source for '%s'", a.Name).At(a.Where())
		}
		path = ""
		for _, e := range entries {
			if strings.ToLower(e.Name()) == "skill.md" {
				path = filepath.Join(src, e.Name())
				break
			}
		}
		if path == "" {
			return LocalSkill{}, errcode.New(errcode.IONotFound, "skill source directory '%s' contains no skill.md", src).At(a.Where()).WithHint("%s", hint)
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return LocalSkill{}, errcode.Wrap(errcode.IO, err, "failed to read skill source for '%s'", a.Name).At(a.Where())
	}
	return LocalSkill{Name: a.Name, Path: path, Text: text}, nil
}
