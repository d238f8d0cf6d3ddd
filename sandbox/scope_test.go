package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestValidateScope(t *testing.T) {
	for scope, ok := range map[string]bool{
		"data": true, ".": true, "a/../b": true, "a/b/": true,
		"/etc": false, "../x": false, "a/../../b": false, "..": false,
	} {
		err := ValidateScope(scope)
		if ok != (err == nil) || (err != nil && errcode.Code(err) != errcode.CapScope) {
			t.Errorf("ValidateScope(%q) = %v, want ok=%v or E-CAP-002", scope, err, ok)
		}
	}
}

// A guest with a filesystem.scope sees only that folder (created if
// missing): not the session's other files, nor another case's session.
func TestScopedGuestSeesOnlyItsScope(t *testing.T) {
	t.Parallel()
	e := newTestEngine(t, Config{})
	m := compileGuest(t, e, "files")
	session, _ := sessionDir(t)
	if err := os.WriteFile(filepath.Join(session, "in.txt"), []byte("outside the scope"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.Run(context.Background(), m, Call{Dir: ScopeDir(session, "data")})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Stdout, &got); err != nil {
		t.Fatalf("guest output %q: %v", out.Stdout, err)
	}
	if in, _ := got["in"].(string); !strings.HasPrefix(in, "error") {
		t.Errorf("guest read the session's in.txt from its scope: %q", in)
	}
	for _, k := range []string{"etc_passwd", "dotdot_rel", "dotdot_abs"} {
		if got[k] != "error" {
			t.Errorf("%s = %v, want error", k, got[k])
		}
	}
	if _, err := os.Stat(filepath.Join(session, "data", "out.txt")); err != nil {
		t.Errorf("the guest's write did not land in its scope: %v", err)
	}
}
