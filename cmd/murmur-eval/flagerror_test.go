package main

import (
	"errors"
	"io"
	"testing"

	"github.com/spf13/pflag"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// TestFlagError: an unknown flag is named as typed, with the closest
// visible flag of the set in the hint; other parse errors keep pflag's
// words; every one is a usage error.
func TestFlagError(t *testing.T) {
	newSet := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("workers", 1, "")
		fs.String("dataset", "", "")
		fs.StringP("output", "o", "", "")
		fs.String("cpuprofile", "", "")
		_ = fs.MarkHidden("cpuprofile")
		return fs
	}
	for _, tc := range []struct {
		args           []string
		wantMsg, wantH string
	}{
		{[]string{"--worker", "4"}, "unknown flag --worker", "did you mean --workers? (t --help)"},
		{[]string{"--worker=4"}, "unknown flag --worker", "did you mean --workers? (t --help)"},
		{[]string{"--datset", "x"}, "unknown flag --datset", "did you mean --dataset? (t --help)"},
		{[]string{"-workers", "4"}, "unknown flag -workers", "did you mean --workers? (t --help)"},
		{[]string{"-w"}, "unknown flag -w", "t --help"},
		{[]string{"--cpuprofil", "x"}, "unknown flag --cpuprofil", "t --help"}, // hidden flags are not suggested
		{[]string{"--colour"}, "unknown flag --colour", "t --help"},
		{[]string{"--workers", "many"}, `invalid argument "many" for "--workers" flag: must be an integer`, "t --help"},
	} {
		fs := newSet()
		err := fs.Parse(tc.args)
		if err == nil {
			t.Fatalf("%v: parsed", tc.args)
		}
		got := flagError(fs, err, "t --help")
		var e *errcode.Error
		if !errors.As(error(got), &e) || e.Code != errcode.Usage || e.Msg != tc.wantMsg || e.Hint != tc.wantH {
			t.Errorf("%v: %s %q hint %q, want %s %q hint %q", tc.args, e.Code, e.Msg, e.Hint, errcode.Usage, tc.wantMsg, tc.wantH)
		}
	}
}
