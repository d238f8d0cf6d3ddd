package capsule

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// §1.10: murmur's .env format.
func TestParseDotEnv(t *testing.T) {
	src := "# keys for local runs\n\n  ANTHROPIC_API_KEY = sk-ant-1  \nQUOTED=\"a b\"\r\nSINGLE='x=y'\nMIXED=\"a'\nEMPTY=\nLONE=\"\nexport SHELLISH=1\nINLINE=v # not a comment\nDUP=first\nDUP=second\n"
	got, err := ParseDotEnv(".env", []byte(src))
	if err != nil {
		t.Fatalf("ParseDotEnv: %v", err)
	}
	want := []EnvVar{
		{"ANTHROPIC_API_KEY", "sk-ant-1"}, {"QUOTED", "a b"}, {"SINGLE", "x=y"}, {"MIXED", "\"a'"}, {"EMPTY", ""},
		{"LONE", "\""}, {"export SHELLISH", "1"}, {"INLINE", "v # not a comment"}, {"DUP", "first"}, {"DUP", "second"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vars mismatch (-want +got):\n%s", diff)
	}
}

func TestParseDotEnvErrors(t *testing.T) {
	tests := []struct {
		name, src, where string
	}{
		{"no equals", "OK=1\nnot a declaration\n", ".env:2"},
		{"empty name", "\n\n = value\n", ".env:3"},
		{"not utf-8", "KEY=\xff\n", ".env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDotEnv(".env", []byte(tt.src))
			if got := errcode.Code(err); got != errcode.IO {
				t.Errorf("code = %q, want %q (error: %v)", got, errcode.IO, err)
			}
			if got := whereOf(asError(err)); got != tt.where {
				t.Errorf("where = %q, want %q", got, tt.where)
			}
		})
	}
}

func TestReadDotEnv(t *testing.T) {
	dir := t.TempDir()
	if vars, err := ReadDotEnv(dir); err != nil || vars != nil {
		t.Errorf("missing .env = %v, %v; want nothing", vars, err)
	}
	if err := os.Mkdir(filepath.Join(dir, DotEnvFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDotEnv(dir); errcode.Code(err) != errcode.IO {
		t.Errorf(".env folder: code = %q, want %q", errcode.Code(err), errcode.IO)
	}
}

// The process environment always wins; .env fills in names it lacks, the
// first declaration first; only `${VAR}` api keys read it.
func TestWithDotEnv(t *testing.T) {
	process := envOf(map[string]string{"KEY": "from-process", "EMPTY": ""})
	lookup := WithDotEnv(process, []EnvVar{{"KEY", "from-dotenv"}, {"EMPTY", "x"}, {"ONLY", "dot"}, {"ONLY", "later"}})
	for key, want := range map[string]string{"KEY": "from-process", "EMPTY": "", "ONLY": "dot"} {
		if got, ok := lookup(key); !ok || got != want {
			t.Errorf("lookup(%s) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := lookup("MISSING"); ok {
		t.Errorf("lookup(MISSING) found a value")
	}
	if got, ok := WithDotEnv(nil, []EnvVar{{"A", "1"}})("A"); !ok || got != "1" {
		t.Errorf("nil process lookup: %q, %v", got, ok)
	}

	src := "name: d\nversion: '1'\ninference: {endpoint: https://e, model: m, driver: {artifact: d}, api_key: '${ONLY}'}\n"
	m, err := ParseManifest("murmur.yaml", []byte(src), lookup)
	if err != nil || m.Inference.APIKey != "dot" {
		t.Errorf("api_key from .env = %+v, %v", m, err)
	}
}

func FuzzParseDotEnv(f *testing.F) {
	f.Add([]byte("A=1\n# c\nB='2'\n"))
	f.Add([]byte("=x\n"))
	f.Add([]byte("\"\n'=\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vars, err := ParseDotEnv(".env", data)
		if err != nil {
			if errcode.Code(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		for _, v := range vars {
			if v.Key == "" {
				t.Fatalf("accepted an empty name: %+v", vars)
			}
		}
	})
}
