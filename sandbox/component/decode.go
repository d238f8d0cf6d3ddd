package component

import "github.com/murmur-nexus/murmur-eval/sandbox/component/internal/binary"

// Binary is a decoded component (Decode), ready to Compile for a world.
// It is immutable.
type Binary struct{ c *binary.Component }

// Decode reads a component binary (the component model's layer 1;
// internal/binary). It never panics and never allocates much more than
// len(bin): a malformed binary, a core module or another layer is
// E-RUN-001.
func Decode(bin []byte) (*Binary, error) {
	c, err := binary.Decode(bin)
	if err != nil {
		return nil, err
	}
	return &Binary{c: c}, nil
}
