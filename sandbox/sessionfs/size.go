package sessionfs

import "errors"

// ErrChanged is Size's error when a folder moved while it was measured,
// so the walk could not find its way back up without following a path.
// A caller that must not be fooled (the workdir guard) measures again.
var ErrChanged = errors.New("a folder moved while it was measured")
