package sandbox

import (
	"errors"
	"slices"
	"strings"
)

// interpreters get "-c <command>"; any other allowlisted binary gets the
// command split into words (murmur-formats.md §5.6).
func isInterpreter(bin string) bool {
	return slices.Contains([]string{"bash", "sh", "zsh", "fish", "dash", "ksh"}, bin)
}

// ShellToolDescription is the description murmur gives the model for a
// shell.allow binary without an artifact of its own (the murmur.yaml it
// stages under tools/<bin>/).
func ShellToolDescription(bin string) string {
	if isInterpreter(bin) {
		return "Run a shell command via " + bin + " in the capsule workdir. The `command` field is passed to " + bin + " via -c."
	}
	return "Run " + bin + " in the capsule workdir. The `command` field is the argument list — omit the binary name itself (pass -s http://example.com, not " + bin + " -s http://example.com)."
}

// ShellToolSchema is the input schema murmur gives such a binary: a
// required string command.
const ShellToolSchema = `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`

// ShellToolVersion and ShellToolRuntime are what the murmur.yaml murmur
// stages for such a binary declares; MURMUR.md lists them.
const (
	ShellToolVersion = "0.0.0"
	ShellToolRuntime = "tool"
)

// ShellArgv is the argv murmur runs for a shell tool call: bin -c command
// for an interpreter, else bin followed by the command's words.
func ShellArgv(bin, command string) ([]string, error) {
	if isInterpreter(bin) {
		return []string{bin, "-c", command}, nil
	}
	words, err := SplitWords(command)
	if err != nil {
		return nil, err
	}
	return append([]string{bin}, words...), nil
}

// SplitWords splits s into words the way a POSIX shell does for quoting
// only: single quotes keep everything, double quotes keep everything but
// backslash escapes of $ ` " \ and newline, a backslash outside quotes
// escapes the next character. No expansion of any kind.
func SplitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// baselineNames are the host variables every subprocess may inherit.
func baselineNames() []string {
	return []string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "TEMP", "TMP", "CARGO_HOME", "RUSTUP_HOME", "TERM"}
}

// SubprocessEnv builds a subprocess environment in murmur's order: the
// environment is cleared; the baseline names set on the host are copied;
// then runtime (the MURMUR_* values, shell tools only); then each
// baselineEnv name set on the host; every credential-like name and every
// strip pattern match is removed; HOME and USERPROFILE are set to home
// last, so nothing can restore the real one. Entries are "K=V", in that
// order, a later duplicate replacing an earlier one.
func SubprocessEnv(host map[string]string, runtime []string, baselineEnv, strip []string, home string) []string {
	var keys []string
	vals := map[string]string{}
	set := func(k, v string) {
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	for _, n := range baselineNames() {
		if v, ok := host[n]; ok {
			set(n, v)
		}
	}
	for _, kv := range runtime {
		if k, v, ok := strings.Cut(kv, "="); ok {
			set(k, v)
		}
	}
	for _, n := range baselineEnv {
		if v, ok := host[n]; ok {
			set(n, v)
		}
	}
	set("HOME", home)
	set("USERPROFILE", home)
	var env []string
	for _, k := range keys {
		if (CredentialLike(k) || matchesAny(strip, k)) && k != "HOME" && k != "USERPROFILE" {
			continue
		}
		env = append(env, k+"="+vals[k])
	}
	return env
}
