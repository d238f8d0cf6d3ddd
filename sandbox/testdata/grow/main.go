// Command grow is a test tool that allocates memory until the runtime refuses
// to grow its linear memory.
package main

import "os"

func main() {
	var keep [][]byte
	for {
		b := make([]byte, 1<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		keep = append(keep, b)
		if len(keep) > 1<<14 {
			os.Stdout.WriteString("never refused\n")
			return
		}
	}
}
