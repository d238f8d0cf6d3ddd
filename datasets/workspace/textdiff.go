package workspace

import (
	"fmt"
	"io"
	"strings"
)

// maxLCSCells bounds the table a line diff uses (2 bytes a cell): past it
// the changed middle of the two files is shown as removed then added, a
// correct diff, if not the shortest.
const maxLCSCells = 4 << 20

// contextLines is unified diff's default context.
const contextLines = 3

type opKind uint8

const (
	opEqual opKind = iota
	opDelete
	opInsert
)

type op struct {
	kind opKind
	a, b int // line indexes in a and b (the one that applies)
}

// splitLines splits text into lines, each with its "\n" but the last.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineOps is an edit script from a to b: the common prefix and suffix
// trimmed, the middle by a longest common subsequence while it fits in
// maxLCSCells.
func lineOps(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{opEqual, i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(ma), len(mb)
	if n > 0 && m > 0 && (n+1)*(m+1) <= maxLCSCells && n < 65535 && m < 65535 {
		w := m + 1
		t := make([]uint16, (n+1)*w)
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					t[i*w+j] = t[(i+1)*w+j+1] + 1
				} else {
					t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n && j < m {
			switch {
			case ma[i] == mb[j]:
				ops = append(ops, op{opEqual, pre + i, pre + j})
				i++
				j++
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				ops = append(ops, op{opDelete, pre + i, pre + j})
				i++
			default:
				ops = append(ops, op{opInsert, pre + i, pre + j})
				j++
			}
		}
		for ; i < n; i++ {
			ops = append(ops, op{opDelete, pre + i, pre + m})
		}
		for ; j < m; j++ {
			ops = append(ops, op{opInsert, pre + n, pre + j})
		}
	} else {
		for i := 0; i < n; i++ {
			ops = append(ops, op{opDelete, pre + i, pre})
		}
		for j := 0; j < m; j++ {
			ops = append(ops, op{opInsert, pre + n, pre + j})
		}
	}
	for k := 0; k < suf; k++ {
		ops = append(ops, op{opEqual, len(a) - suf + k, len(b) - suf + k})
	}
	return ops
}

// unified writes the unified diff of a and b (nothing when equal) under
// the names from and to.
func unified(w io.Writer, from, to, a, b string) error {
	al, bl := splitLines(a), splitLines(b)
	ops := lineOps(al, bl)
	var hunks [][2]int // [start, end) in ops
	for k := 0; k < len(ops); {
		if ops[k].kind == opEqual {
			k++
			continue
		}
		start := max(0, k-contextLines)
		end := k
		for end < len(ops) {
			if ops[end].kind != opEqual {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == opEqual {
				run++
			}
			if run == len(ops) || run-end > 2*contextLines {
				end = min(end+contextLines, run)
				break
			}
			end = run
		}
		if len(hunks) > 0 && start <= hunks[len(hunks)-1][1] {
			hunks[len(hunks)-1][1] = end
		} else {
			hunks = append(hunks, [2]int{start, end})
		}
		k = end
	}
	if len(hunks) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "--- %s\n+++ %s\n", from, to); err != nil {
		return err
	}
	for _, h := range hunks {
		var na, nb int
		for _, o := range ops[h[0]:h[1]] {
			if o.kind != opInsert {
				na++
			}
			if o.kind != opDelete {
				nb++
			}
		}
		first := ops[h[0]]
		sa, sb := first.a+1, first.b+1
		if na == 0 {
			sa--
		}
		if nb == 0 {
			sb--
		}
		if _, err := fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(sa, na), hunkRange(sb, nb)); err != nil {
			return err
		}
		for _, o := range ops[h[0]:h[1]] {
			var line string
			prefix := " "
			switch o.kind {
			case opEqual:
				line = al[o.a]
			case opDelete:
				prefix, line = "-", al[o.a]
			case opInsert:
				prefix, line = "+", bl[o.b]
			}
			if _, err := io.WriteString(w, prefix+line); err != nil {
				return err
			}
			if !strings.HasSuffix(line, "\n") {
				if _, err := io.WriteString(w, "\n\\ No newline at end of file\n"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
