package main

import (
	"testing"
)

func TestHugePagesFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		ok   bool
		want bool
	}{
		{name: "on by default", ok: true, want: true},
		{name: "off by flag", args: []string{"--huge-pages=false"}, ok: true, want: false},
		{name: "off by environment", env: map[string]string{"MURMUR_EVAL_HUGE_PAGES": "false"}, ok: true, want: false},
		{name: "flag wins over environment", args: []string{"--huge-pages"}, env: map[string]string{"MURMUR_EVAL_HUGE_PAGES": "false"}, ok: true, want: true},
		{name: "not a boolean", env: map[string]string{"MURMUR_EVAL_HUGE_PAGES": "maybe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := parseFlagCase(t, tc.args, tc.env, tc.ok)
			if !ok {
				return
			}
			if o.hugePages != tc.want {
				t.Errorf("hugePages = %v, want %v", o.hugePages, tc.want)
			}
		})
	}
}
