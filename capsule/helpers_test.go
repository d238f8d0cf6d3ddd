package capsule

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// asError returns the first *errcode.Error in err's chain, or nil.
func asError(err error) *errcode.Error {
	var e *errcode.Error
	errors.As(err, &e)
	return e
}

func whereOf(e *errcode.Error) string {
	if e == nil {
		return "<no errcode.Error>"
	}
	return e.Where
}

// manifestOpts compares parsed manifests by their exported fields only
// (ArtifactDecl keeps its source position unexported).
var manifestOpts = cmp.Options{cmpopts.IgnoreUnexported(ArtifactDecl{}, Manifest{})}

// defaultCaps is an absent capabilities block: murmur's limits and resources.
func defaultCaps() Capabilities {
	return Capabilities{Limits: defaultLimits(), Resources: defaultResources()}
}

// flowCase is a refusal of a one-line flow value: the manifest is prefix
// followed by value on its last line, and the error must point at the first
// occurrence of at inside value.
type flowCase struct {
	name, value, code, at string
}

// checkFlowErrors parses prefix+value for each case and checks the code and
// the line:col the error points at.
func checkFlowErrors(t *testing.T, prefix string, tests []flowCase) {
	t.Helper()
	line := strings.Count(prefix, "\n") + 1
	col := len(prefix) - strings.LastIndex(prefix, "\n")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseManifest("murmur.yaml", []byte(prefix+tt.value+"\n"), envOf(nil))
			if err == nil {
				t.Fatalf("ParseManifest = %+v, want error %s", m, tt.code)
			}
			if got := errcode.Code(err); got != tt.code {
				t.Errorf("code = %s, want %s (error: %v)", got, tt.code, err)
			}
			i := strings.Index(tt.value, tt.at)
			if i < 0 {
				t.Fatalf("bad test: %q not in %q", tt.at, tt.value)
			}
			want := fmt.Sprintf("murmur.yaml:%d:%d", line, col+i)
			if got := whereOf(asError(err)); got != want {
				t.Errorf("where = %q, want %q (error: %v)", got, want, err)
			}
		})
	}
}
