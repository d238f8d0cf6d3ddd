//go:build linux

package sessionfs

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestMeasureCountsEntries: every name below the folder is one entry
// (files, folders, links, a hard link once per name), at any depth, and
// the walk stops past stopEntries.
func TestMeasureCountsEntries(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a"), make([]byte, 100), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "sub", "a2")))
	must(t, os.Symlink("/", filepath.Join(dir, "sub", "root")))
	for i := range 5 {
		d := filepath.Join(dir, "d"+strconv.Itoa(i))
		must(t, os.Mkdir(d, 0o755))
		for j := range 10 {
			must(t, os.WriteFile(filepath.Join(d, strconv.Itoa(j)), nil, 0o644))
		}
	}
	u, err := Measure(dir, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	size, _ := Size(dir, 0)
	if u.Entries != 59 || u.Bytes != size {
		t.Errorf("Measure = %+v, want 59 entries and Size's %d bytes", u, size)
	}
	u, err = Measure(dir, 0, 10)
	if err != nil || u.Entries <= 10 || u.Entries >= 59 {
		t.Errorf("Measure(stop at 10 entries) = %+v, %v; want past 10 and short of 59 (entries are counted a folder at a time)", u, err)
	}
}
