package reports

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestPageSpillFilesAreUnlinkedAndReusedEmpty(t *testing.T) {
	dir := t.TempDir()
	p := newPageSpill(dir)
	b := p.GetBuffer()
	if _, err := b.Write([]byte("a page of the first row group")); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("dir holds %q while a buffer is in use, want nothing (the file is unlinked)", names)
	}
	p.PutBuffer(b)
	again := p.GetBuffer()
	if again != b {
		t.Errorf("GetBuffer after PutBuffer made a new file, want the one given back")
	}
	if got, err := io.ReadAll(again); err != nil || len(got) != 0 {
		t.Errorf("a reused buffer reads %q (%v), want nothing: stale pages would go into the next group", got, err)
	}
	other := p.GetBuffer()
	if other == again {
		t.Errorf("a buffer in use was handed out twice")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := again.Write([]byte("x")); err == nil {
		t.Errorf("Write after Close succeeded, want the file closed")
	}
	if err := (*pageSpill)(nil).Close(); err != nil {
		t.Errorf("nil pool Close = %v", err)
	}
}

func TestPageSpillReportsAFolderItCannotUse(t *testing.T) {
	p := newPageSpill(filepath.Join(t.TempDir(), "missing"))
	b := p.GetBuffer()
	if _, err := b.Write([]byte("page")); !os.IsNotExist(err) {
		t.Errorf("Write to a buffer in a missing folder = %v, want not-exist", err)
	}
	if _, err := b.Seek(0, io.SeekStart); err == nil {
		t.Errorf("Seek on a failed buffer succeeded")
	}
	p.PutBuffer(b) // not a file: ignored
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestNoBoundsLeavesTheBlobOutOfTheColumnIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.parquet")
	writeLayout(t, path, EventsLayout(), sampleEvents(20))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pf.RowGroups()[0].ColumnChunks() {
		name := pf.Schema().Columns()[c.Column()][0]
		idx, err := c.ColumnIndex()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bounded := len(idx.MinValue(0).Bytes()) > 0 || len(idx.MaxValue(0).Bytes()) > 0
		if want := name != "event_json"; bounded != want && (name == "event_json" || name == "case_id") {
			t.Errorf("column %s: page bounds written = %v, want %v", name, bounded, want)
		}
	}
}

// TestPageSpillCloseRemovesWhatCouldNotBeUnlinked: where the file system
// could not unlink a file when it was made, Close removes it by name.
func TestPageSpillCloseRemovesWhatCouldNotBeUnlinked(t *testing.T) {
	dir := t.TempDir()
	p := newPageSpill(dir)
	f, err := os.CreateTemp(dir, ".pages-*")
	if err != nil {
		t.Fatal(err)
	}
	p.all, p.named = append(p.all, f), append(p.named, f.Name())
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("after Close, dir holds %q, want nothing", names)
	}
}
