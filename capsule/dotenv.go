package capsule

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// DotEnvFile is the file in the project directory whose variables murmur
// loads before parsing the manifest (`mur eval run` always reads
// <project dir>/.env).
const DotEnvFile = ".env"

// EnvVar is one KEY=VALUE declaration of a .env file.
type EnvVar struct {
	Key, Value string
}

// ReadDotEnv reads the .env file in dir. A missing file declares nothing.
// See ParseDotEnv.
func ReadDotEnv(dir string) ([]EnvVar, error) {
	path := filepath.Join(dir, DotEnvFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.IO, err, "failed to read .env at %s", path)
	}
	return ParseDotEnv(path, data)
}

// ParseDotEnv parses .env bytes read from path with murmur's rules: each
// line is trimmed; blank lines and lines starting with # are skipped; the
// rest split at the first '=' into a trimmed key and value; a value wrapped
// in matching double or single quotes loses them. There are no escapes, no
// `export`, no inline comments and no expansion. Errors are E-IO-003 at
// path:line.
func ParseDotEnv(path string, data []byte) ([]EnvVar, error) {
	if !utf8.Valid(data) {
		return nil, errcode.New(errcode.IO, "failed to read .env at %s: stream did not contain valid UTF-8", path).At(path)
	}
	var vars []EnvVar
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		invalid := func(msg string) error {
			return errcode.New(errcode.IO, "invalid .env entry at line %d: %s", i+1, msg).
				At(path + ":" + strconv.Itoa(i+1)).
				WithHint("write one KEY=VALUE per line; lines starting with # are comments")
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, invalid("expected KEY=VALUE")
		}
		if key = strings.TrimSpace(key); key == "" {
			return nil, invalid("empty variable name")
		}
		vars = append(vars, EnvVar{Key: key, Value: unquote(strings.TrimSpace(value))})
	}
	return vars, nil
}

// unquote strips one pair of matching quotes. Unlike murmur, a value that is
// a lone quote character is kept as it is (murmur's slice would panic).
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// WithDotEnv returns a lookup that answers from the process environment
// first and from the .env declarations only for names the process does not
// set: murmur never overrides the environment with .env, and the first
// declaration of a name wins.
func WithDotEnv(lookupEnv func(string) (string, bool), vars []EnvVar) func(string) (string, bool) {
	dot := make(map[string]string, len(vars))
	for _, v := range vars {
		if _, seen := dot[v.Key]; !seen {
			dot[v.Key] = v.Value
		}
	}
	return func(key string) (string, bool) {
		if lookupEnv != nil {
			if v, ok := lookupEnv(key); ok {
				return v, true
			}
		}
		v, ok := dot[key]
		return v, ok
	}
}

// LoadProjectManifest reads the capsule manifest of the project in dir the
// way `mur eval run` does: the project's .env is read first and used, under
// lookupEnv (the process environment, which always wins), to resolve
// `${VAR}` in inference.api_key. Every reader of a project's manifest calls
// this, so they cannot drift apart.
func LoadProjectManifest(dir string, lookupEnv func(string) (string, bool)) (*Manifest, error) {
	dotenv, err := ReadDotEnv(dir)
	if err != nil {
		return nil, err
	}
	return LoadManifest(filepath.Join(dir, ManifestFile), WithDotEnv(lookupEnv, dotenv))
}
