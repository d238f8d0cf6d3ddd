package runfolder

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSessionFolder(t *testing.T) {
	run := t.TempDir()
	byID := filepath.Join(run, SessionsDir, "ses_1")
	linked := filepath.Join(run, SessionsDir, "ses_2")
	for _, d := range []string{byID, linked} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := LinkCase(run, "a/b", "", 1, 2, linked); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		caseID    string
		sessionID string
		want      string
	}{
		{"by its link", "a/b", "ses_other", filepath.Join(run, CasesDir, CaseLinkName("a/b", 1, 2))},
		{"by session id", "c", "ses_1", byID},
		{"neither", "c", "ses_9", ""},
		{"an id that is a path", "c", "../sessions/ses_1", ""},
		{"an empty id", "c", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SessionFolder(run, tt.caseID, "", 1, 2, tt.sessionID)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("SessionFolder = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}
