package reports

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// isTemp reports whether name is a Sink's temporary file for final.
func isTemp(name, final string) bool {
	return strings.HasPrefix(name, "."+final+".tmp-")
}

func TestSinkPublishesOnlyOnClose(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.parquet")
	s, err := NewSink[EventRow](path, Layout{RowsPerGroup: 4})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan EventRow)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), ch) }()
	rows := sampleEvents(10)
	for _, r := range rows {
		ch <- r
	}

	names := dirNames(t, dir)
	if len(names) != 1 || !isTemp(names[0], "events.parquet") {
		t.Errorf("while streaming, dir holds %q, want only the temporary file", names)
	}

	close(ch)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if diff := cmp.Diff([]string{"events.parquet"}, dirNames(t, dir)); diff != "" {
		t.Errorf("after close, dir (-want +got):\n%s", diff)
	}
	if got := len(readParquet(t, path).Rows); got != len(rows) {
		t.Errorf("read %d rows, want %d", got, len(rows))
	}
}

func TestSinkCancelRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.parquet")
	s, err := NewSink[ResultRow](path, Layout{RowsPerGroup: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan ResultRow)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ch) }()
	for _, r := range sampleResults(9) {
		ch <- r
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v, want context.Canceled", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("after cancel, dir holds %q, want nothing", names)
	}
}

func TestSinkCancelledBeforeCloseIsNotPublished(t *testing.T) {
	// A closed channel and a cancelled context both ready: cancellation wins,
	// whichever select picks, so an interrupted run never publishes.
	dir := t.TempDir()
	s, err := NewSink[EventRow](filepath.Join(dir, "events.parquet"), Layout{RowsPerGroup: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ch := make(chan EventRow)
	close(ch)
	if err := s.Run(ctx, ch); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("dir holds %q, want nothing", names)
	}
}

func TestSinkAbort(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSink[EventRow](filepath.Join(dir, "events.parquet"), Layout{RowsPerGroup: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Abort(); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("after Abort, dir holds %q, want nothing", names)
	}
	ch := make(chan EventRow)
	close(ch)
	if err := s.Run(context.Background(), ch); !errcode.Is(err, errcode.Internal) {
		t.Errorf("Run after Abort = %v, want code %s", err, errcode.Internal)
	}
}

func TestSinkRowGroups(t *testing.T) {
	tests := []struct {
		rows, perGroup int
		want           []int64
	}{
		{0, 4, nil},
		{1, 4, []int64{1}},
		{8, 4, []int64{4, 4}}, // no empty trailing group
		{9, 4, []int64{4, 4, 1}},
		{1300, 600, []int64{600, 600, 100}}, // groups larger than one write batch
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "events.parquet")
		writeAll(t, path, tt.perGroup, sampleEvents(tt.rows))
		if diff := cmp.Diff(tt.want, readParquet(t, path).RowGroups); diff != "" {
			t.Errorf("%d rows, %d per group: row groups (-want +got):\n%s", tt.rows, tt.perGroup, diff)
		}
	}
}

func TestSinkEmptyStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.parquet")
	writeAll(t, path, 4, []ResultRow(nil))
	got := readParquet(t, path)
	if len(got.Rows) != 0 || len(got.Columns) != 42 {
		t.Errorf("empty stream: %d rows, %d columns; want 0 rows, 42 columns", len(got.Rows), len(got.Columns))
	}
}

func TestSinkErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewSink[EventRow](filepath.Join(dir, "missing", "events.parquet"), Layout{RowsPerGroup: 4}); !errcode.Is(err, errcode.IO) {
		t.Errorf("NewSink in a missing directory = %v, want code %s", err, errcode.IO)
	}
	if _, err := NewSink[EventRow](filepath.Join(dir, "events.parquet"), Layout{RowsPerGroup: 0}); !errcode.Is(err, errcode.Internal) {
		t.Errorf("NewSink with 0 rows per group = %v, want code %s", err, errcode.Internal)
	}

	// The final path is a non-empty directory, so the rename fails.
	path := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(path, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := NewSink[EventRow](path, Layout{RowsPerGroup: 4})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan EventRow, 3)
	for _, r := range sampleEvents(3) {
		ch <- r
	}
	close(ch)
	if err := s.Run(context.Background(), ch); !errcode.Is(err, errcode.IO) {
		t.Errorf("Run with an unrenamable target = %v, want code %s", err, errcode.IO)
	}
	if diff := cmp.Diff([]string{"taken"}, dirNames(t, dir)); diff != "" {
		t.Errorf("after a failed rename, dir (-want +got):\n%s", diff)
	}
}

// TestSinkHammer feeds one Sink from many goroutines; run it with -race.
func TestSinkHammer(t *testing.T) {
	const senders, each = 16, 500
	path := filepath.Join(t.TempDir(), "events.parquet")
	s, err := NewSink[EventRow](path, Layout{RowsPerGroup: 333})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan EventRow, 8)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), ch) }()
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				ch <- EventRow{CaseID: "c", Epoch: int32(g), Seq: int32(i), EventJSON: "{}"}
				_ = s.Count() // readable while Run writes
			}
		})
	}
	wg.Wait()
	close(ch)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := readParquet(t, path)
	seen := make(map[[2]int32]bool)
	for _, r := range got.Rows {
		seen[[2]int32{r[2].(int32), r[4].(int32)}] = true
	}
	if len(got.Rows) != senders*each || len(seen) != senders*each {
		t.Errorf("read %d rows, %d distinct; want %d of each", len(got.Rows), len(seen), senders*each)
	}
}

// streamEvents writes n generated events through a Sink at path.
func streamEvents(tb testing.TB, path string, n, rowsPerGroup int) *Sink[EventRow] {
	tb.Helper()
	s, err := NewSink[EventRow](path, Layout{RowsPerGroup: rowsPerGroup})
	if err != nil {
		tb.Fatal(err)
	}
	proto := sampleEvents(600)[4:] // leave out the 1 MiB line
	ch := make(chan EventRow, 256)
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), ch) }()
	for i := range n {
		e := proto[i%len(proto)]
		e.CaseID, e.Seq = "case-"+string(rune('a'+i/50%26)), int32(i%50)
		ch <- e
	}
	close(ch)
	if err := <-done; err != nil {
		tb.Fatalf("Run: %v", err)
	}
	return s
}

func TestSink100kEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 000 rows")
	}
	path := filepath.Join(t.TempDir(), "events.parquet")
	s := streamEvents(t, path, 100_000, 8192)
	if s.Count() != 100_000 {
		t.Errorf("Count() = %d, want 100000", s.Count())
	}
	got := readParquet(t, path)
	var total int64
	for _, n := range got.RowGroups {
		if n > 8192 {
			t.Errorf("row group of %d rows, want at most 8192", n)
		}
		total += n
	}
	if total != 100_000 || len(got.RowGroups) != 13 {
		t.Errorf("%d rows in %d row groups, want 100000 in 13", total, len(got.RowGroups))
	}
}

// BenchmarkEventSink measures streaming trace events into events.parquet.
// The writer's live memory is about one row group (8192 rows) whatever the
// number of rows; B/op counts all allocations, including generating rows.
func BenchmarkEventSink(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		streamEvents(b, filepath.Join(dir, "events.parquet"), n, 8192)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
