package capsule

import "strings"

// pathElementProblem says why s cannot be one path element, "" when it can.
// An artifact's name is a folder name: the session's tools/<name>/ (a local
// skill's skill.md lands there) and the registry's <root>/<name>/. murmur
// does not check it (murmur-formats.md §1.3), so a local skill named
// ../../x was written outside the session. murmur-eval refuses, with
// E-MAN-003 at parse time, any name that is not one ordinary element (the
// registry lookup refuses such names and versions again, checkRef).
func pathElementProblem(s string) string {
	switch {
	case s == "":
		return "is empty"
	case s == "." || s == "..":
		return "is a relative folder, not a name"
	case strings.ContainsAny(s, `/\`):
		return "contains a path separator ('/' or '\\')"
	case strings.ContainsRune(s, 0):
		return "contains a NUL byte"
	}
	return ""
}
