package sandbox

import "io"

// headTee passes everything to w and keeps the first max bytes, where a
// launcher's set-up failure message would be (Proc.Output). A write error
// of w is not the subprocess's: it is dropped, as spill drops its own.
type headTee struct {
	w    io.Writer
	max  int
	head []byte
}

func (t *headTee) Write(p []byte) (int, error) {
	if room := t.max - len(t.head); room > 0 {
		t.head = append(t.head, p[:min(room, len(p))]...)
	}
	_, _ = t.w.Write(p)
	return len(p), nil
}
