package sandbox

import (
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// ValidateScope checks a filesystem.scope lexically, as murmur does: it
// must be relative and may not climb above the workdir through "..". The
// error is E-CAP-002 in murmur's words.
func ValidateScope(scope string) error {
	bad := func(msg string) error {
		return errcode.New(errcode.CapScope, "invalid filesystem scope '%s': %s", scope, msg).
			WithHint("use a path relative to the session workdir, such as 'data' or '.'")
	}
	if filepath.IsAbs(scope) || strings.HasPrefix(scope, `\`) || (len(scope) > 1 && scope[1] == ':') {
		return bad("scope must be relative to the workdir")
	}
	depth := 0
	for _, part := range strings.Split(filepath.ToSlash(scope), "/") {
		switch part {
		case "", ".":
		case "..":
			if depth == 0 {
				return bad("scope cannot escape the workdir via '..'")
			}
			depth--
		default:
			depth++
		}
	}
	return nil
}

// ScopeDir is the host folder a guest with scope sees as "/": the session
// dir itself for "" or ".". The scope must have passed ValidateScope.
func ScopeDir(sessionDir, scope string) string {
	if scope == "" {
		return sessionDir
	}
	return filepath.Join(sessionDir, filepath.FromSlash(scope))
}
