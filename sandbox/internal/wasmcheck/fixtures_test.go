package wasmcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// referenceDir holds murmur's own components when the machine has them
// (never committed); tests using them skip when it is absent.
func referenceDir() string {
	if d := os.Getenv("MURMUR_REFERENCE_COMPONENTS"); d != "" {
		return d
	}
	return "/work/shared/reference/murmur-components"
}

// coreModules returns the core modules in bin: bin itself if it is one,
// else the core modules a component embeds, at any depth.
func coreModules(t *testing.T, bin []byte) [][]byte {
	t.Helper()
	if len(bin) < 8 || string(bin[:4]) != "\x00asm" {
		t.Fatalf("not WebAssembly")
	}
	if bin[6] == 0 { // layer 0: a core module
		return [][]byte{bin}
	}
	var mods [][]byte
	r := reader{b: bin, off: 8}
	for r.left() > 0 && r.err == nil {
		id := r.byte()
		s := r.sub(r.u32(), "component section")
		switch id {
		case 1: // core module
			mods = append(mods, s.b)
		case 4: // nested component
			mods = append(mods, coreModules(t, s.b)...)
		}
	}
	if r.err != nil {
		t.Fatalf("reading the component: %v", r.err)
	}
	return mods
}

// TestCheckAcceptsFixtures checks every committed WebAssembly fixture's
// core modules, and murmur's own components' when present: Check must
// refuse nothing a real toolchain produced, and GuardTableGrowth must
// rewrite only the one fixture whose code grows a table.
func TestCheckAcceptsFixtures(t *testing.T) {
	var files []string
	for _, glob := range []string{
		"../../component/testdata/wasm/*.wasm",
		"../../../examples/quickstart/tools/*/*.wasm",
		"../../../cmd/murmur-bench/tool/*.wasm",
		filepath.Join(referenceDir(), "*.wasm"),
	} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 30 {
		t.Fatalf("found %d fixtures; want the committed ones at least", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			bin, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			mods := coreModules(t, bin)
			if len(mods) == 0 {
				t.Fatalf("no core module found")
			}
			for i, m := range mods {
				if err := Check(m); err != nil {
					t.Errorf("core module %d of %d: Check = %v; want nil", i, len(mods), err)
				}
				// Only stateful_table grows a table (its T mode): every
				// other module, murmur's own included, is left as it is.
				capped, err := CapTables(m, MaxTableElements)
				if err != nil {
					t.Fatalf("core module %d of %d: CapTables = %v", i, len(mods), err)
				}
				out, err := GuardTableGrowth(capped)
				if rewritten := err == nil && len(out) != len(capped); err != nil || rewritten != (filepath.Base(f) == "stateful_table.wasm" && i == 0) {
					t.Errorf("core module %d of %d: GuardTableGrowth = %v, rewritten %v", i, len(mods), err, rewritten)
				}
			}
		})
	}
}
