// Command residue is a test tool that looks for what an earlier guest left
// in its linear memory: it allocates 4 MiB, which the Go runtime takes from
// freshly grown linear memory and trusts to be zero, prints how many of its
// bytes are not, then fills it with 0xAA for the next guest to find.
package main

import (
	"fmt"
	"os"
)

func main() {
	b := make([]byte, 4<<20)
	dirty := 0
	for _, v := range b {
		if v != 0 {
			dirty++
		}
	}
	for i := range b {
		b[i] = 0xAA
	}
	fmt.Fprintf(os.Stdout, "dirty %d\n", dirty)
}
