package capsule

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Publish writes an artifact's archive into the store at storeRoot:
// <root>/<name>/<version>/<name>-<version>.mur.zip, its .sha256 sidecar
// (lowercase hex and a newline) and .meta.json, each through a temporary
// file, fsync and rename, in that order. It returns the zip's path.
//
// Publish always writes the generic (platform-less) pair, which Resolve finds
// for every platform; `mur publish` stores a native artifact under its
// platform's name instead. Unlike `mur publish` (E-REG-003) it overwrites an
// existing version: it is murmur-eval's packer for examples and fixtures.
// Reserved versions (latest, stable, edge) are refused with E-REG-004.
func Publish(storeRoot string, zipBytes []byte, m *ArtifactManifest) (string, error) {
	if err := checkRef(m.Name, m.Version); err != nil {
		return "", err
	}
	switch strings.ToLower(m.Version) {
	case "latest", "stable", "edge":
		return "", errcode.New(errcode.RegistryReserved, "version '%s' of %s is reserved and cannot be published", m.Version, m.Name).
			WithHint("publish a concrete version such as 0.1.0")
	}
	meta := metaFile{Meta{Name: m.Name, Version: m.Version, Runtime: m.Packaging(), ArtifactRuntime: m.Runtime,
		Platforms: [][]string{}, Tags: []string{}}}
	if m.Description != "" {
		meta.Meta.Description = &m.Description
	}
	if m.Tags != nil {
		meta.Meta.Tags = m.Tags
	}
	metaJSON, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return "", errcode.Wrap(errcode.Internal, err, "failed to encode store metadata")
	}

	dir := filepath.Join(storeRoot, m.Name, m.Version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", errcode.Wrap(errcode.IO, err, "failed to create store directory %s", dir)
	}
	base := m.Name + "-" + m.Version
	files := []struct {
		name string
		data []byte
	}{
		{base + ".mur.zip", zipBytes},
		{base + ".sha256", []byte(SHA256Hex(zipBytes) + "\n")},
		{base + ".meta.json", metaJSON},
	}
	for _, f := range files {
		if err := writeAtomic(dir, f.name, f.data); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, files[0].name), nil
}

// writeAtomic replaces dir/name with data via a synced temporary file in the
// same directory, so readers see the old file or the new one, never a part.
func writeAtomic(dir, name string, data []byte) (err error) {
	final := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "failed to write %s", final)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err == nil {
		if err = tmp.Chmod(0o644); err == nil {
			err = tmp.Sync()
		}
	}
	if err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "failed to write %s", final)
	}
	return nil
}
