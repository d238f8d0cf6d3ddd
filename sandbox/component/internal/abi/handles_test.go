package abi

import (
	"strings"
	"testing"
)

type closer struct{ closed *int }

func (c closer) Close() { *c.closed++ }

// trapText runs fn and returns the text of the Trap it panicked, "" if none.
func trapText(t *testing.T, fn func()) (text string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			tr, ok := r.(*Trap)
			if !ok {
				t.Fatalf("panicked %v, want a *Trap", r)
			}
			text = tr.Text
		}
	}()
	fn()
	return ""
}

// TestHandles: handle 0 is never handed out, a dropped handle is reused,
// an unknown or wrongly typed handle traps, and DropAs and CloseAll close
// what they release.
func TestHandles(t *testing.T) {
	var h Handles
	closed := 0
	a := h.Add("a")
	b := h.Add(closer{&closed})
	if a != 1 || b != 2 {
		t.Fatalf("handles %d, %d, want 1, 2", a, b)
	}
	if got := Get[string](&h, a, "string"); got != "a" {
		t.Errorf("Get = %q", got)
	}
	if txt := trapText(t, func() { Get[closer](&h, a, "closer") }); !strings.Contains(txt, "handle 1 is not a closer") {
		t.Errorf("wrong type: trap %q", txt)
	}
	for _, i := range []uint32{0, 9} {
		if txt := trapText(t, func() { h.Lookup(i) }); !strings.Contains(txt, "unknown handle") {
			t.Errorf("handle %d: trap %q", i, txt)
		}
	}
	DropAs[closer](&h, b, "closer")
	if closed != 1 {
		t.Errorf("DropAs closed %d resources, want 1", closed)
	}
	if txt := trapText(t, func() { h.Lookup(b) }); txt == "" {
		t.Error("a dropped handle is still found")
	}
	if c := h.Add(closer{&closed}); c != b {
		t.Errorf("the dropped handle %d was not reused: got %d", b, c)
	}
	h.CloseAll()
	if closed != 2 {
		t.Errorf("CloseAll: %d closed in all, want 2", closed)
	}
}

// TestGuard: a Trap becomes the error, any other panic goes on.
func TestGuard(t *testing.T) {
	err := Guard(func() error { Trapf("bad tag %d", 7); return nil })
	if tr, ok := err.(*Trap); !ok || tr.Text != "bad tag 7" {
		t.Errorf("got %v, want the trap", err)
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("recovered %v, want the other panic to go on", r)
		}
	}()
	_ = Guard(func() error { panic("other") })
}
