package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// relayFixture is the tests' own driver component, committed as built by
// scripts/component-fixtures.sh from inference/driver/testdata/relay.wat,
// relative to the module root. murmur-bench reads it where it is rather
// than embedding a copy: go:embed cannot reach outside this folder, and a
// second copy would drift from the one the tests run.
const relayFixture = "sandbox/component/testdata/wasm/relay.wasm"

// benchDriver is the driver component the driver path runs: installed in
// the bench capsule's store under Name and declared as its
// inference.driver.
type benchDriver struct {
	Name   string `json:"name"`  // the artifact name in the capsule
	Label  string `json:"label"` // which driver measured the driver path, as the report says it
	File   string `json:"file"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
	Given  bool   `json:"given"` // -driver (or MURMUR_BENCH_DRIVER) named it
	wasm   []byte
}

// loadDriver reads the driver component: file when set (an OpenAI-format
// driver such as murmur's murmur-driver-openai.wasm, installed under that
// name), otherwise the relay fixture, looked for from dir (the working
// folder) up to the module root.
func loadDriver(file, dir string) (*benchDriver, error) {
	d := &benchDriver{Name: "murmur-driver-openai", Label: "murmur-driver-openai (given)", File: file, Given: true}
	if file == "" {
		found, err := findUp(dir, relayFixture)
		if err != nil {
			return nil, fmt.Errorf("the relay fixture %s: %w (run from the module, or give a driver with -driver)", relayFixture, err)
		}
		d = &benchDriver{Name: "relay-driver", Label: "relay fixture (WAT, smaller than a real driver: a lower bound)", File: found}
	}
	wasm, err := os.ReadFile(d.File)
	if err != nil {
		return nil, fmt.Errorf("-driver: %w", err)
	}
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, fmt.Errorf("-driver %s: not a WebAssembly file", d.File)
	}
	sum := sha256.Sum256(wasm)
	d.wasm, d.Bytes, d.SHA256 = wasm, len(wasm), hex.EncodeToString(sum[:])
	return d, nil
}

// findUp returns the first dir/rel, dir's parent/rel, ... that exists.
func findUp(dir, rel string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if _, err := os.Stat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return p, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not found in %s or a folder above it", dir)
		}
		dir = parent
	}
}

// driverManifest is the driver's murmur.yaml for murmur-eval pack.
func (d *benchDriver) manifest() string {
	return fmt.Sprintf("name: %s\nversion: 0.1.0\nruntime: driver\nrequires_files: [%s.wasm]\n", d.Name, d.Name)
}
