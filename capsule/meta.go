package capsule

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Meta is a store's <name>-<version>.meta.json (§4.2), the document under
// its "meta" key. One file per version, never platform-suffixed.
type Meta struct {
	Name            string     `json:"name"`
	Version         string     `json:"version"`
	Runtime         Execution  `json:"runtime"`          // packaging: wasm, native or static
	ArtifactRuntime string     `json:"artifact_runtime"` // role from the artifact's manifest
	Platforms       [][]string `json:"platforms"`        // e.g. [["linux","x86_64"]]; only the first is used
	Description     *string    `json:"description"`
	Tags            []string   `json:"tags"`
}

type metaFile struct {
	Meta Meta `json:"meta"`
}

// MetaPath returns the path of name@version's metadata in the store at root.
func MetaPath(root, name, version string) string {
	return filepath.Join(root, name, version, name+"-"+version+".meta.json")
}

// ReadMeta reads name@version's metadata in the store at root the way
// murmur's store listing does: a missing file gives the fallback (wasm, no
// role, no platforms); absent fields take their defaults; name and version
// are always the directory names. Malformed JSON is E-IO-003. Staging never
// reads metadata, in murmur or here: the zip and its sidecar are what count.
func ReadMeta(root, name, version string) (*Meta, error) {
	if err := checkRef(name, version); err != nil {
		return nil, err
	}
	path := MetaPath(root, name, version)
	m := Meta{Runtime: ExecutionWasm}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, errcode.Wrap(errcode.IO, err, "failed to read %s", path)
	default:
		var f metaFile
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, errcode.Wrap(errcode.IO, err, "invalid store metadata %s", path)
		}
		m = f.Meta
	}
	m.Name, m.Version = name, version
	if m.Platforms == nil {
		m.Platforms = [][]string{}
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	return &m, nil
}
