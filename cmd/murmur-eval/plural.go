package main

import (
	"fmt"
	"strings"
)

// plural formats n with its noun: "1 case", "2 cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pluralWord is noun, or its plural when n is not 1; noun may go on past
// its first word ("case to resume" -> "cases to resume").
func pluralWord(n int, noun string) string {
	if n == 1 {
		return noun
	}
	if i := strings.IndexByte(noun, ' '); i > 0 {
		return noun[:i] + "s" + noun[i:]
	}
	return noun + "s"
}
