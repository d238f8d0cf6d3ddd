package resolve

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// scriptFile is the name murmur looks for first in a script capsule's
// project folder.
const scriptFile = "capsule.wasm"

// scriptWasm finds a script capsule's component as murmur does
// (murmur-formats.md §1.11): <dir>/capsule.wasm, else the one *.wasm file
// at the root of dir; none or several is E-RUN-004.
func scriptWasm(dir string) (string, error) {
	if fi, err := os.Stat(filepath.Join(dir, scriptFile)); err == nil && fi.Mode().IsRegular() {
		return filepath.Join(dir, scriptFile), nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", errcode.Wrap(errcode.IO, err, "read capsule project %s", dir)
	}
	var found []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".wasm") && e.Type().IsRegular() {
			found = append(found, e.Name())
		}
	}
	sort.Strings(found)
	hint := "put the script capsule's component at capsule.wasm, or add an inference: block to murmur.yaml for an agent capsule"
	switch len(found) {
	case 1:
		return filepath.Join(dir, found[0]), nil
	case 0:
		return "", errcode.New(errcode.RunScriptWasm, "script capsule (no inference block): no capsule.wasm and no *.wasm file in %s", dir).
			WithHint("%s", hint)
	}
	return "", errcode.New(errcode.RunScriptWasm, "script capsule (no inference block): no capsule.wasm and %d *.wasm files in %s (%s): which one runs is ambiguous",
		len(found), dir, strings.Join(found, ", ")).WithHint("%s", hint)
}
