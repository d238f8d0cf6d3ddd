package resolve_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
)

// TestScriptCapsuleComponentFound: a capsule without an inference block is
// a script capsule, whose component is capsule.wasm, else the one root
// *.wasm; none or several is E-RUN-004 (murmur-formats.md §1.11).
func TestScriptCapsuleComponentFound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string // the file found, or "" for E-RUN-004
	}{
		{"capsule.wasm", []string{"capsule.wasm", "other.wasm"}, "capsule.wasm"},
		{"one root wasm", []string{"mine.wasm", "sub/deep.wasm"}, "mine.wasm"},
		{"none", []string{"sub/deep.wasm", "notes.txt"}, ""},
		{"two root wasm", []string{"a.wasm", "b.wasm"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "capsule")
			write(t, filepath.Join(dir, "murmur.yaml"), "name: s\nversion: '1'\n")
			for _, f := range tc.files {
				write(t, filepath.Join(dir, f), "\x00asm")
			}
			c := &pipeline.Case{}
			err := resolve.New(resolve.Options{Dir: dir}).Run(context.Background(), c)
			if tc.want == "" {
				if !errcode.Is(err, errcode.RunScriptWasm) {
					t.Fatalf("error %v, want %s", err, errcode.RunScriptWasm)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := pipeline.Lookup(c, resolve.Result)
			if got.Script != filepath.Join(dir, tc.want) {
				t.Errorf("script %q, want %q", got.Script, filepath.Join(dir, tc.want))
			}
		})
	}
}
