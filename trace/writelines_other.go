//go:build !(darwin || linux || openbsd)

package trace

import "os"

// writeLines writes every line to f, one write each.
func writeLines(f *os.File, lines [][]byte) error {
	for _, l := range lines {
		if _, err := f.Write(l); err != nil {
			return err
		}
	}
	return nil
}
