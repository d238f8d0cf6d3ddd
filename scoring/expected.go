package scoring

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// The keys of an expected object murmur-eval reads (docs/expected.md).
const (
	keyResultEquals   = "result_equals"
	keyResultContains = "result_contains"
	keyResultMatches  = "result_matches"
	keyResultJSON     = "result_json"
	keyFiles          = "files"
	keyCheck          = "check"
	keyRubric         = "rubric"
)

// Expected-output scorer types; a file scorer is named "file:<path>".
const (
	TypeResultEquals   = keyResultEquals
	TypeResultContains = keyResultContains
	TypeResultMatches  = keyResultMatches
	TypeResultJSON     = keyResultJSON
	TypeFile           = "file"
	TypeCheck          = keyCheck
)

func knownKeys() []string {
	return []string{keyResultEquals, keyResultContains, keyResultMatches, keyResultJSON, keyFiles, keyCheck, keyRubric}
}

// Expected is the part of a dataset line's "expected" field murmur-eval
// scores. Each set field is one scorer (each file one scorer).
type Expected struct {
	ResultEquals   *string
	ResultContains []string
	ResultMatches  *regexp.Regexp
	ResultJSON     map[string]json.RawMessage // nil when not asked for
	Files          []FileExpectation          // sorted by path
	Check          *CheckSpec
	// Rubric is the case's own judge scorer (expected.rubric), named
	// llm_judge: scored after the others, by the run's judge model.
	Rubric *ScorerSpec
}

// FileExpectation is what one file under the session folder should be.
type FileExpectation struct {
	Path     string // slash-separated, relative to the session folder, never escaping it
	Exists   bool   // false: the file must not exist
	Contains []string
	SHA256   string // lowercase hex, "" when not checked
}

// CheckSpec is a command run in the session folder after the loop.
type CheckSpec struct {
	Argv    []string
	Timeout time.Duration // 0: the run's --check-timeout
}

// ParseExpected reads a dataset line's "expected" value. murmur leaves the
// field unused, so datasets hold anything there: a value that is not a JSON
// object, or an object with none of murmur-eval's keys, is not for
// murmur-eval and yields ok=false (the caller may warn). An object with at
// least one known key is murmur-eval's, and an unknown key or a bad value in
// it is an error (E-EVAL-001, without a location: the caller adds file:line).
func ParseExpected(raw json.RawMessage) (e *Expected, ok bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil, false, nil
	}
	known := knownKeys()
	if !slices.ContainsFunc(known, func(k string) bool { _, has := fields[k]; return has }) {
		return nil, false, nil
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e = &Expected{}
	for _, k := range keys {
		if err := e.set(k, fields[k]); err != nil {
			return nil, true, err
		}
	}
	return e, true, nil
}

func (e *Expected) set(key string, v json.RawMessage) error {
	bad := func(format string, args ...any) error {
		return errcode.New(errcode.EvalDataset, "expected.%s: %s", key, fmt.Sprintf(format, args...)).
			WithHint("see docs/expected.md for the expected field's schema")
	}
	switch key {
	case keyResultEquals:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return bad("want a string")
		}
		e.ResultEquals = &s
	case keyResultContains:
		list, err := stringOrList(v)
		if err != nil {
			return bad("%v", err)
		}
		e.ResultContains = list
	case keyResultMatches:
		var s string
		if json.Unmarshal(v, &s) != nil {
			return bad("want a string (a regular expression)")
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return bad("%v", err)
		}
		e.ResultMatches = re
	case keyResultJSON:
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil || m == nil {
			return bad("want an object of the fields the answer must hold")
		}
		e.ResultJSON = m
	case keyFiles:
		files, err := parseFiles(v)
		if err != nil {
			return bad("%v", err)
		}
		e.Files = files
	case keyCheck:
		c, err := parseCheck(v)
		if err != nil {
			return bad("%v", err)
		}
		e.Check = c
	case keyRubric:
		spec, err := parseRubric(v)
		if err != nil {
			return bad("%v", err)
		}
		e.Rubric = spec
	default:
		return bad("unknown key (murmur-eval reads %s)", strings.Join(knownKeys(), ", "))
	}
	return nil
}

// stringOrList reads "text" or a non-empty ["a", "b"].
func stringOrList(v json.RawMessage) ([]string, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return []string{s}, nil
	}
	var list []string
	if json.Unmarshal(v, &list) != nil || len(list) == 0 {
		return nil, fmt.Errorf("want a string or a non-empty list of strings")
	}
	return list, nil
}

// parseFiles reads {"path": true | false | {"exists", "contains", "sha256"}}.
func parseFiles(v json.RawMessage) ([]FileExpectation, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil || m == nil {
		return nil, fmt.Errorf("want an object mapping each path to true, false or {\"contains\", \"sha256\"}")
	}
	var out []FileExpectation
	for path, spec := range m {
		if _, err := sessionfs.CheckName(path); err != nil || strings.Contains(path, `\`) {
			return nil, fmt.Errorf("path %q: want a relative path inside the session folder", path)
		}
		f := FileExpectation{Path: filepath.ToSlash(filepath.Clean(filepath.FromSlash(path))), Exists: true}
		if json.Unmarshal(spec, &f.Exists) != nil {
			var o struct {
				Exists   *bool           `json:"exists"`
				Contains json.RawMessage `json:"contains"`
				SHA256   string          `json:"sha256"`
			}
			dec := json.NewDecoder(bytes.NewReader(spec))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&o); err != nil || spec[0] != '{' {
				return nil, fmt.Errorf("path %q: want true, false or an object with exists, contains, sha256", path)
			}
			if o.Exists != nil {
				f.Exists = *o.Exists
			}
			if o.Contains != nil {
				list, err := stringOrList(o.Contains)
				if err != nil {
					return nil, fmt.Errorf("path %q: contains: %v", path, err)
				}
				f.Contains = list
			}
			if o.SHA256 != "" {
				if b, err := hex.DecodeString(o.SHA256); err != nil || len(b) != 32 {
					return nil, fmt.Errorf("path %q: sha256 %q is not 64 hex digits", path, o.SHA256)
				}
				f.SHA256 = strings.ToLower(o.SHA256)
			}
			if !f.Exists && (f.Contains != nil || f.SHA256 != "") {
				return nil, fmt.Errorf("path %q: a file that must not exist has nothing to contain", path)
			}
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b FileExpectation) int { return strings.Compare(a.Path, b.Path) })
	for i := 1; i < len(out); i++ {
		if out[i].Path == out[i-1].Path {
			return nil, fmt.Errorf("path %q is named twice", out[i].Path)
		}
	}
	return out, nil
}

// parseCheck reads "shell command", ["argv", ...] or
// {"command": either, "timeout_seconds": N}.
func parseCheck(v json.RawMessage) (*CheckSpec, error) {
	var o struct {
		Command json.RawMessage `json:"command"`
		Timeout *float64        `json:"timeout_seconds"`
	}
	c := &CheckSpec{}
	cmd := v
	if bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) {
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil || o.Command == nil {
			return nil, fmt.Errorf("want {\"command\": ..., \"timeout_seconds\": N}")
		}
		if o.Timeout != nil {
			if *o.Timeout <= 0 || *o.Timeout > 24*3600 {
				return nil, fmt.Errorf("timeout_seconds %v: want more than 0 and at most a day", *o.Timeout)
			}
			c.Timeout = time.Duration(*o.Timeout * float64(time.Second))
		}
		cmd = o.Command
	}
	var shell string
	if json.Unmarshal(cmd, &shell) == nil {
		if strings.TrimSpace(shell) == "" {
			return nil, fmt.Errorf("the command is empty")
		}
		c.Argv = []string{"sh", "-c", shell}
		return c, nil
	}
	if json.Unmarshal(cmd, &c.Argv) != nil || len(c.Argv) == 0 || c.Argv[0] == "" {
		return nil, fmt.Errorf("want a shell command string or a non-empty list of arguments")
	}
	return c, nil
}

// Names returns the scorer names e yields, in scoring order.
func (e *Expected) Names() []string {
	if e == nil {
		return nil
	}
	var names []string
	if e.ResultEquals != nil {
		names = append(names, TypeResultEquals)
	}
	if e.ResultContains != nil {
		names = append(names, TypeResultContains)
	}
	if e.ResultMatches != nil {
		names = append(names, TypeResultMatches)
	}
	if e.ResultJSON != nil {
		names = append(names, TypeResultJSON)
	}
	for _, f := range e.Files {
		names = append(names, fileScorerName(f.Path))
	}
	if e.Check != nil {
		names = append(names, TypeCheck)
	}
	if e.Rubric != nil {
		names = append(names, e.Rubric.Name)
	}
	return names
}

func fileScorerName(path string) string { return TypeFile + ":" + path }
