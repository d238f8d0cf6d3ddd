package capsule

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// serde_yaml 0.9's choices for the strings a lock holds (and a few more).
func TestSerdeYAMLString(t *testing.T) {
	for in, want := range map[string]string{
		"calc":                    "calc",
		"murmur-driver-anthropic": "murmur-driver-anthropic",
		"0.1.0":                   "0.1.0",
		"1.10":                    "'1.10'",
		"1":                       "'1'",
		"0123":                    "'0123'",
		"1e5":                     "'1e5'",
		"0x1F":                    "'0x1F'",
		"+.inf":                   "'+.inf'",
		"true":                    "'true'",
		"Null":                    "'Null'",
		"~":                       "'~'",
		"":                        "''",
		"yes":                     "yes",
		"local":                   "local",
		"4f3c2a":                  "4f3c2a",
		"-":                       "'-'",
		"-x":                      "-x",
		"a: b":                    "'a: b'",
		"a:b":                     "a:b",
		"a #b":                    "'a #b'",
		"a#b":                     "a#b",
		"#x":                      "'#x'",
		"it's":                    "it's",
		"'q":                      "'''q'",
		" x":                      "' x'",
		"---x":                    "'---x'",
		"é":                       "é",
		"a\nb":                    `"a\nb"`,
		"tab\there":               `"tab\there"`,
	} {
		if got := serdeYAMLString(in); got != want {
			t.Errorf("serdeYAMLString(%q) = %s, want %s", in, got, want)
		}
	}
}

// Whatever the strings, a marshalled lock reads back as itself.
func FuzzLockMarshalRoundTrip(f *testing.F) {
	f.Add("calc", "1.10", "4f3c")
	f.Add("a: b", "0x1F", "'")
	f.Add("- x", "#", " t ")
	f.Fuzz(func(t *testing.T, name, version, sum string) {
		l := &Lock{Path: "murmur.lock", LockVersion: 1, Artifacts: []LockEntry{{Name: name, ResolvedVersion: version, SHA256: sum}}}
		// murmur's strings are UTF-8 (Rust's String); so are a lock's.
		if l.Validate() != nil || !utf8.ValidString(name) || !utf8.ValidString(version) || !utf8.ValidString(sum) {
			return
		}
		data, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseLock("murmur.lock", data)
		if err != nil {
			t.Fatalf("ParseLock of %q: %v", data, err)
		}
		if diff := cmp.Diff(l, got); diff != "" {
			t.Fatalf("round trip of %q (-want +got):\n%s", data, diff)
		}
	})
}
