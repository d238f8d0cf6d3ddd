package datasets

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestIndexFindsEveryLine: the index points at each case's bytes, whatever
// the line endings, blank lines, byte order mark or missing last newline,
// and Case reads the line back to the case the load parsed.
func TestIndexFindsEveryLine(t *testing.T) {
	a, b, c := `{"case_id": "a", "task": "x"}`, `{"case_id": "b", "task": "y"}`, `{"case_id": "c", "task": "z"}`
	tests := []struct {
		name  string
		file  string
		lines []int    // each case's line number
		at    []string // each case's bytes as the index holds them
	}{
		{"lf", a + "\n" + b + "\n", []int{1, 2}, []string{a + "\n", b + "\n"}},
		{"crlf", a + "\r\n" + b + "\r\n", []int{1, 2}, []string{a + "\r\n", b + "\r\n"}},
		{"no last newline", a + "\n" + b, []int{1, 2}, []string{a + "\n", b}},
		{"blank lines", "\n" + a + "\n  \t\r\n\n" + b + "\n\n", []int{2, 5}, []string{a + "\n", b + "\n"}},
		{"bom", "\ufeff" + a + "\r\n" + b, []int{1, 2}, []string{a + "\r\n", b}},
		{"bom then blank", "\ufeff\n" + a + "\n" + c, []int{2, 3}, []string{a + "\n", c}},
		{"one line", a, []int{1}, []string{a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cases.jsonl")
			writeFile(t, path, tt.file)
			ds, err := Load(path)
			if err != nil {
				t.Fatal(errcode.Format(err))
			}
			t.Cleanup(func() { _ = ds.Close() })
			if ds.Len() != len(tt.lines) {
				t.Fatalf("Len() = %d, want %d", ds.Len(), len(tt.lines))
			}
			for i := range ds.Len() {
				if got, err := ds.readLine(i); err != nil || string(got) != tt.at[i] {
					t.Errorf("case %d: read again as %q (%v), want %q", i, got, err, tt.at[i])
				}
				if ds.Line(i) != tt.lines[i] {
					t.Errorf("case %d: Line() = %d, want %d", i, ds.Line(i), tt.lines[i])
				}
				c, err := ds.Case(i)
				if err != nil {
					t.Fatalf("Case(%d): %v", i, errcode.Format(err))
				}
				if c.ID != ds.ID(i) || c.Line != tt.lines[i] {
					t.Errorf("Case(%d) = id %q line %d, want %q line %d", i, c.ID, c.Line, ds.ID(i), tt.lines[i])
				}
			}
		})
	}
}

// TestIDsArena: ids of every length come back from the arena as loaded.
func TestIDsArena(t *testing.T) {
	var want []string
	file := ""
	for i := range 50 {
		id := "case-" + strconv.Itoa(i)
		for range i % 7 {
			id += "é"
		}
		want = append(want, id)
		file += `{"case_id": ` + strconv.Quote(id) + `, "task": "t"}` + "\n"
	}
	ds, _ := loaded(t, file)
	var got []string
	for i := range ds.Len() {
		got = append(got, ds.ID(i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ID() (-want +got):\n%s", diff)
	}
}

// TestCaseLineChanged: a line edited in place after the load is E-IO-003
// naming the file and line, with the case's id; the other lines still read.
func TestCaseLineChanged(t *testing.T) {
	ds, path := loaded(t, `{"case_id": "a", "task": "x"}`+"\n"+`{"case_id": "b", "task": "y"}`+"\n"+`{"case_id": "c", "task": "z"}`)
	// Same length, other bytes: only the hash can tell.
	writeFile(t, path, `{"case_id": "a", "task": "x"}`+"\n"+`{"case_id": "b", "task": "Y"}`+"\n"+`{"case_id": "c", "task": "z"}`)
	assertChanged(t, ds, 1, "b", path+":2")
	for _, i := range []int{0, 2} {
		if _, err := ds.Case(i); err != nil {
			t.Errorf("Case(%d) of an unchanged line: %v", i, err)
		}
	}
	// Truncated: the last line is gone.
	if err := os.Truncate(path, 10); err != nil {
		t.Fatal(err)
	}
	assertChanged(t, ds, 2, "c", path+":3")
	var n int
	for _, err := range ds.All() {
		n++
		if err != nil {
			break
		}
	}
	if n != 1 {
		t.Errorf("All() yielded %d cases up to its first error, want 1", n)
	}
}

func assertChanged(t *testing.T, ds *Dataset, i int, id, where string) {
	t.Helper()
	c, err := ds.Case(i)
	var ce *errcode.Error
	if !errors.As(err, &ce) || ce.Code != errcode.IO || ce.Where != where || ce.Hint == "" {
		t.Fatalf("Case(%d) = %v, want E-IO-003 at %s with a hint", i, err, where)
	}
	if c.ID != id || c.Line != ds.Line(i) {
		t.Errorf("Case(%d) with an error = id %q line %d, want %q line %d", i, c.ID, c.Line, id, ds.Line(i))
	}
}

// TestLineNumbersAcrossBlankLines: line numbers are kept only where they
// stop following the index; every case's number is still right, and a
// line read again reports it.
func TestLineNumbersAcrossBlankLines(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var file strings.Builder
	var want []int
	line := 0
	for i := range 2000 {
		for range rnd.IntN(3) * rnd.IntN(2) {
			line++
			file.WriteString(" \n")
		}
		line++
		want = append(want, line)
		fmt.Fprintf(&file, `{"case_id": "c%d", "task": "t"}`+"\n", i)
	}
	ds, _ := loaded(t, file.String())
	if len(ds.idx.jumps) == 0 || len(ds.idx.jumps) == ds.Len() {
		t.Fatalf("%d jumps for %d cases: the test wants some, not one a case", len(ds.idx.jumps), ds.Len())
	}
	for i := range ds.Len() {
		if got := ds.Line(i); got != want[i] {
			t.Fatalf("Line(%d) = %d, want %d", i, got, want[i])
		}
	}
	for _, i := range []int{0, 1, 999, 1999} {
		c, err := ds.Case(i)
		if err != nil || c.Line != want[i] {
			t.Errorf("Case(%d) = line %d, %v; want line %d", i, c.Line, err, want[i])
		}
	}
}

// TestVisitSeesEveryCaseOnce: Options.Visit gets each case of the load's
// one pass with its index, in file order, as Case reads it back.
func TestVisitSeesEveryCaseOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	writeFile(t, path, "\n"+`{"case_id": "a", "task": "x"}`+"\n\n"+`{"case_id": "b", "task": "y", "expected": 1}`+"\n"+`{"case_id": "c", "task": "z"}`)
	var seen []string
	ds, err := Options{Visit: func(i int, c Case) {
		seen = append(seen, fmt.Sprintf("%d %s %d %s", i, c.ID, c.Line, c.Expected))
	}}.Load(path)
	if err != nil {
		t.Fatal(errcode.Format(err))
	}
	defer ds.Close()
	var want []string
	for c, err := range ds.All() {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%d %s %d %s", len(want), c.ID, c.Line, c.Expected))
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("Visit (-want +got):\n%s", diff)
	}
}

// TestBlocksReadBack: across many blocks, with lines short and longer than
// a block, blank lines between them and ids that share prefixes or do not,
// every case's id, line number and line come back as loaded; an edit in
// place to one case fails that case only, not the others of its block.
func TestBlocksReadBack(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	var file strings.Builder
	type want struct {
		id, task string
		line     int
		at       int64 // where its task starts in the file
	}
	var cases []want
	line := 0
	for i := range 700 {
		for range rnd.IntN(4) / 3 {
			line++
			file.WriteString("\t\n")
		}
		line++
		var id string
		switch rnd.IntN(4) {
		case 0:
			id = fmt.Sprintf("case-%06d", i)
		case 1:
			id = fmt.Sprintf("case-%06d-é-%d", i, rnd.IntN(1000))
		case 2:
			id = fmt.Sprintf("%x", rnd.Uint64())
		default:
			id = fmt.Sprintf("c%d", i)
		}
		task := strings.Repeat("t", 1+rnd.IntN(3)*rnd.IntN(3000))
		head := `{"case_id": ` + strconv.Quote(id) + `, "task": "`
		cases = append(cases, want{id: id, task: task, line: line, at: int64(file.Len() + len(head))})
		file.WriteString(head + task + "\"}\n")
	}
	ds, path := loaded(t, file.String())
	if len(ds.idx.blocks) < 50 {
		t.Fatalf("%d blocks for %d cases: the test wants many", len(ds.idx.blocks), ds.Len())
	}
	for i, w := range cases {
		c, err := ds.Case(i)
		if err != nil {
			t.Fatalf("Case(%d): %v", i, errcode.Format(err))
		}
		if c.ID != w.id || ds.ID(i) != w.id || c.Line != w.line || ds.Line(i) != w.line || c.Task != w.task {
			t.Fatalf("Case(%d) = id %q (ID %q) line %d (Line %d) task of %d bytes; want %q line %d, %d bytes",
				i, c.ID, ds.ID(i), c.Line, ds.Line(i), len(c.Task), w.id, w.line, len(w.task))
		}
	}
	// One byte of case 301's task changed, in place.
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("T"), cases[301].at); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	assertChanged(t, ds, 301, cases[301].id, path+":"+strconv.Itoa(cases[301].line))
	for _, i := range []int{299, 300, 302, 303} {
		if _, err := ds.Case(i); err != nil {
			t.Errorf("Case(%d), next to the edited case: %v", i, err)
		}
	}
}

// TestIndexBytesPerCase: what a loaded dataset keeps per case is a few
// bytes, not a parsed case: 100,000 cases with ids case-000000... hold
// under 9 bytes each (the index of issue 19's first round held 31).
func TestIndexBytesPerCase(t *testing.T) {
	var file strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&file, `{"case_id": "case-%06d", "task": "what is %d + %d?", "expected": {"contains": "%d"}}`+"\n", i, i, i, 2*i)
	}
	ds, _ := loaded(t, file.String())
	x := ds.idx
	held := 4*cap(x.sums) + int(unsafe.Sizeof(block{}))*cap(x.blocks) + int(unsafe.Sizeof(lineJump{}))*cap(x.jumps) + len(x.ids)
	if per := float64(held) / float64(ds.Len()); per > 9 {
		t.Errorf("the index holds %.1f bytes a case (%d blocks, %d bytes of ids), want at most 9", per, len(x.blocks), len(x.ids))
	}
	if got := ds.ID(99_999); got != "case-099999" {
		t.Errorf("ID(99999) = %q", got)
	}
}

// loaded writes content as a dataset file and loads it; the dataset is
// closed when the test ends.
func loaded(t *testing.T, content string) (*Dataset, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	writeFile(t, path, content)
	ds, err := Load(path)
	if err != nil {
		t.Fatal(errcode.Format(err))
	}
	t.Cleanup(func() { _ = ds.Close() })
	return ds, path
}
