package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

func TestFingerprintAndChanged(t *testing.T) {
	a := map[string]string{"manifest": "m1", "dataset": "d1", "epochs": "3"}
	b := map[string]string{"epochs": "3", "dataset": "d1", "manifest": "m1"}
	if Fingerprint(a) != Fingerprint(b) {
		t.Error("same parts in another order give another hash")
	}
	c := map[string]string{"manifest": "m2", "dataset": "d1", "lock": "l"}
	if Fingerprint(a) == Fingerprint(c) {
		t.Error("different parts give the same hash")
	}
	if diff := cmp.Diff([]string{"epochs", "lock", "manifest"}, Changed(a, c)); diff != "" {
		t.Errorf("Changed (-want +got):\n%s", diff)
	}
	// A value cannot spill into the next name.
	if Fingerprint(map[string]string{"a": "b\nc"}) == Fingerprint(map[string]string{"a": "b", "c": ""}) {
		t.Error("ambiguous encoding")
	}
}

func TestRunFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := Run{RunID: "run_1", ConfigSHA256: "abc", Config: map[string]string{"dataset": "d"}}
	if err := WriteRun(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := ReadRun(t.TempDir()); err == nil {
		t.Error("ReadRun of an empty folder succeeded")
	}
	// A run.json past MaxRunFileBytes (a folder from elsewhere) is refused
	// before it is decoded.
	big := t.TempDir()
	pad := `{"run_id": "run_1", "pad": "` + strings.Repeat("x", MaxRunFileBytes) + `"}`
	if err := os.WriteFile(filepath.Join(big, RunFile), []byte(pad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRun(big); !errcode.Is(err, errcode.IO) || !strings.Contains(err.Error(), "over 1048576 bytes") {
		t.Errorf("ReadRun of an oversized run.json: %v, want E-IO naming the bound", err)
	}
}
