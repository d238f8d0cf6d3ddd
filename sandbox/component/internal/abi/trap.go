package abi

import "fmt"

// Trap is panicked by host functions when the guest broke the canonical
// ABI (bad handle, out-of-bounds pointer, bad tag); wazero turns the panic
// into the call's error, and the call reports it as a trap.
type Trap struct{ Text string }

func (t *Trap) Error() string { return t.Text }

// Trapf panics a Trap with the formatted text.
func Trapf(format string, args ...any) { panic(&Trap{Text: fmt.Sprintf(format, args...)}) }

// Guard runs fn and turns a Trap panicked by host-side code outside a wasm
// call (lowering the input, lifting the result) into an error. Any other
// panic goes on.
func Guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			t, ok := r.(*Trap)
			if !ok {
				panic(r)
			}
			err = t
		}
	}()
	return fn()
}
