// Command spin is a test tool that never finishes: it loops forever without
// calling the host, so only the sandbox's deadline can stop it.
package main

import "os"

func main() {
	os.Stdout.WriteString("spinning\n")
	n := 0
	for {
		n++
	}
}
