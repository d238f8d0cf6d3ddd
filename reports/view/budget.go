package view

import (
	"fmt"
	"strings"
)

// The bounds of a case page: a text (a tool's output, an answer, the
// trace) is shown up to maxShown bytes, and a page up to maxPage bytes of
// them in all; the rest is a link to the raw file. A text over foldBytes
// or foldLines is folded (<details>), so a page with a 50 MB trace opens
// as fast as a short one.
const (
	maxShown  = 64 << 10
	maxPage   = 2 << 20
	foldBytes = 1 << 10
	foldLines = 12
	summaryAt = 120
)

// textView is one text as a page shows it.
type textView struct {
	Text    string // cleaned, and cut when Left > 0
	Left    int64  // bytes not shown
	Fold    bool
	Summary string // a folded text's first line and size
	Raw     string // the link to the raw file holding it whole, "" for none
}

// budget hands out a page's bytes: each text takes what it shows.
type budget struct{ left int }

func newBudget() *budget { return &budget{left: maxPage} }

// text is s as the page shows it; raw links the file that holds it.
func (b *budget) text(s, raw string) textView {
	v := textView{Raw: raw}
	shown := min(len(s), maxShown, max(b.left, 0))
	if shown < len(s) {
		s2 := cutUTF8(s, shown)
		v.Left = int64(len(s) - len(s2))
		s = s2
	}
	b.left -= len(s)
	v.Text = clean(s)
	if len(s) > foldBytes || strings.Count(s, "\n") > foldLines || v.Left > 0 {
		v.Fold = true
		total := int64(len(s)) + v.Left
		v.Summary = fmt.Sprintf("%s (%s)", clean(firstLine(s, summaryAt)), size(total))
		if s == "" {
			v.Summary = fmt.Sprintf("left out: the page shows at most %s (%s)", size(maxPage), size(total))
		}
	}
	return v
}
