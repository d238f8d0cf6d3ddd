package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestCheckPicked: a selection that picks a case passes; an empty dataset,
// and a filter or limit that picks none, are refused with E-EVL-003
// naming what selected nothing; an empty shard of a selection that holds
// cases is a warning only.
func TestCheckPicked(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one.jsonl", `{"case_id": "calc-1", "task": "t"}`+"\n")
	tests := []struct {
		name    string
		path    string
		sel     Selection
		code    string // "" for no error
		warning string // a substring of the warning; "" for none
		message string // a substring of the error
	}{
		{"picked", one, Selection{}, "", "", ""},
		{"filter", one, Selection{Filter: "login-*"}, errcode.EmptySelection, "", `--filter "login-*" matched none of the 1 case`},
		{"empty shard", one, Selection{Shard: findEmptyShard(t, one)}, "", "holds no case (1 case selected in all)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := Load(tt.path)
			if err != nil {
				t.Fatal(errcode.Format(err))
			}
			defer ds.Close()
			warning, err := tt.sel.CheckPicked(ds, tt.sel.Apply(ds))
			if got := errcode.Code(err); got != tt.code {
				t.Fatalf("code %q, want %q (%v)", got, tt.code, err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.message) {
				t.Errorf("error %q, want it to contain %q", err, tt.message)
			}
			if (warning == "") != (tt.warning == "") || !strings.Contains(warning, tt.warning) {
				t.Errorf("warning %q, want %q", warning, tt.warning)
			}
		})
	}
}

// findEmptyShard is a shard of 2 that does not hold the one case of the
// dataset at path.
func findEmptyShard(t *testing.T, path string) Shard {
	ds, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for i := range 2 {
		s := Shard{Index: i, Count: 2}
		if (Selection{Shard: s}).Apply(ds).Len() == 0 {
			return s
		}
	}
	t.Fatal("no empty shard of 2")
	return Shard{}
}
