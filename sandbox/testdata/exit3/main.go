// Command exit3 is a test tool that writes to stderr and exits with status 3.
package main

import "os"

func main() {
	os.Stderr.WriteString("boom: exiting with 3\n")
	os.Exit(3)
}
