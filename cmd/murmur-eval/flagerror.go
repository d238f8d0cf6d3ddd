package main

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/internal/suggest"
)

// flagError is the usage error (E-EVL-001) for a command line fs refused.
// An unknown flag is named as typed, and the hint names the closest flag
// of fs ("did you mean --workers?", internal/suggest) or, with none
// close, help, the command that prints fs's usage. A Go-style -workers
// (which pflag reads as the shorthands w, o, r, ...) is matched whole.
func flagError(fs *pflag.FlagSet, err error, help string) *errcode.Error {
	var missing *pflag.NotExistError
	if !errors.As(err, &missing) {
		return errcode.New(errcode.Usage, "%v", err).WithHint("%s", help)
	}
	typed, word := "--"+missing.GetSpecifiedName(), missing.GetSpecifiedName()
	if short := missing.GetSpecifiedShortnames(); short != "" {
		typed, word = "-"+short, short
	}
	e := errcode.New(errcode.Usage, "unknown flag %s", typed)
	if s := closestFlag(fs, word); s != "" {
		return e.WithHint("did you mean --%s? (%s)", s, help)
	}
	return e.WithHint("%s", help)
}

// closestFlag is the name of fs's visible flag nearest to word (a flag's
// name without dashes, perhaps followed by =VALUE), or "": a one-letter
// word only matches a long name exactly.
func closestFlag(fs *pflag.FlagSet, word string) string {
	word, _, _ = strings.Cut(word, "=")
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			names = append(names, f.Name)
		}
	})
	for _, n := range names {
		if n == word && len(word) > 1 {
			return n
		}
	}
	if len(word) < 2 {
		return ""
	}
	return suggest.Closest(word, names)
}
