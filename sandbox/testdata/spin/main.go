// Command spin is a test tool that never finishes. By default it loops
// forever without calling the host, so only the sandbox can stop it; with
// the argument "sleep" it sleeps for an hour in a host call instead.
package main

import (
	"os"
	"time"
)

func main() {
	os.Stdout.WriteString("spinning\n")
	if len(os.Args) > 1 && os.Args[1] == "sleep" {
		time.Sleep(time.Hour)
		return
	}
	n := 0
	for {
		n++
	}
}
