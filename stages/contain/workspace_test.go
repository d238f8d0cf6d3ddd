package contain

import (
	"context"
	"testing"

	"github.com/murmur-nexus/murmur-eval/datasets/workspace"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
)

// TestWorkdirLimitCountsWhatTheCaseAdds: a case with a workspace gets the
// base's size on top of workdir_max_bytes, saturating; one without, the
// capsule's own limit.
func TestWorkdirLimitCountsWhatTheCaseAdds(t *testing.T) {
	tests := []struct {
		name  string
		limit string
		base  uint64 // 0: no workspace
		want  uint64
	}{
		{"no workspace", "1000", 0, 1000},
		{"workspace", "1000", 5000, 6000},
		{"saturates", "18446744073709551615", 5000, ^uint64(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := caseFor(t, base+"capabilities: {resources: {workdir_max_bytes: "+tt.limit+"}}\n")
			if tt.base > 0 {
				pipeline.Store(c, staging.Result, &staging.Staged{Workspace: &staging.Workspace{Base: &workspace.Base{Bytes: tt.base}}})
			}
			if err := New(nil).Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			if got := policyOf(c).Resources.WorkdirMaxBytes; got != tt.want {
				t.Errorf("workdir_max_bytes %d, want %d", got, tt.want)
			}
		})
	}
}
