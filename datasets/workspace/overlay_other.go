//go:build !linux

package workspace

import (
	"context"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// overlayMount: no overlays off Linux.
type overlayMount struct{}

func (*overlayMount) upper() string { return "" }

func errNoOverlay() error {
	return errcode.New(errcode.IO, "workspace: overlays are Linux's")
}

func (b *Base) cloneOverlay(string, CloneOptions) (*overlayMount, error) { return nil, errNoOverlay() }

func scanLayer(context.Context, string, int) ([]layerEntry, string, error) {
	return nil, "", errNoOverlay()
}

// Release does nothing off Linux (no clone is an overlay).
func (b *Base) Release(CloneResult) error { return nil }

// Materialise does nothing off Linux.
func (b *Base) Materialise(context.Context, string) error { return nil }

func overlayProbe(string, string, string) error { return errNoOverlay() }
