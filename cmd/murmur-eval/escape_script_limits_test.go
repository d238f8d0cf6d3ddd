package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/reports"
	"github.com/murmur-nexus/murmur-eval/sandbox/component/componenttest"
)

// Issue 33: a script capsule spinning with deadline_seconds: 2 ran for
// murmur-eval's fixed 600 s (until --timeout); murmur stops it at 2 s with
// E-RUN-001 (murmur-cli's tests/limits.rs: a spin loop interrupted at its
// deadline, a memory balloon trapped at its memory cap).

// limitsProject is a script capsule project as murmur's limits tests write
// one: no artifacts, the capabilities body given, capsule.wasm built from
// sandbox/component/testdata's fixture, and one case.
func limitsProject(t *testing.T, fixture, capabilities string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, capsuleManifestFile), "name: capsule\nversion: 0.0.1\ncapabilities:\n"+capabilities)
	if err := os.WriteFile(filepath.Join(dir, "capsule.wasm"), componenttest.Fixture(t, fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "cases.jsonl"), `{"case_id":"limits","task":"Run."}`+"\n")
	if err := os.MkdirAll(filepath.Join(dir, "recordings"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestScriptCapsuleHonoursItsLimits: through the real binary, a spin-loop
// capsule with deadline_seconds: 2 ends in about 2 s, and a memory balloon
// with memory_bytes: 16777216 traps at its cap, each in status error with
// E-RUN-001 and murmur's text, in results.parquet and on stderr. The run's
// --timeout of 60 s is the regression guard: without the limits the spin
// loop ends there instead, in status timeout.
func TestScriptCapsuleHonoursItsLimits(t *testing.T) {
	e2eBinary(t)
	for _, tc := range []struct {
		name, fixture, capabilities, want string
	}{
		{"deadline", "capsule_spin", "  limits:\n    deadline_seconds: 2\n",
			"capsule execution exceeded its 2s deadline and was interrupted; raise capabilities.limits.deadline_seconds in murmur.yaml if the capsule legitimately needs longer",
		},
		// 1 page, 129, then 257 pages (16,842,752 bytes): past 16 MiB.
		{"memory", "capsule_balloon", "  limits:\n    memory_bytes: 16777216\n",
			"capsule execution exceeded its configured resource limits: linear memory growth to 16842752 bytes exceeds capabilities.limits.memory_bytes (16777216)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := limitsProject(t, tc.fixture, tc.capabilities)
			start := time.Now()
			out, r := newFixture(t, dir).run("--timeout", "60s", "--max-error-rate", "1")
			took := time.Since(start)
			if r.code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			row := rowsByCase(t, readParquet(t, filepath.Join(out, reports.ResultsFile)))["limits"]
			if row["status"] != "error" || row["error_code"] != errcode.RunCapsule || row["error_message"] != tc.want {
				t.Errorf("row: status %v, error_code %v, error_message %q; want error, %s, %q", row["status"], row["error_code"], row["error_message"], errcode.RunCapsule, tc.want)
			}
			if want := "error[" + errcode.RunCapsule + "]: " + tc.want; !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
			ms, _ := row["duration_ms"].(float64)
			// Generous above 2 s for a loaded machine, far below --timeout.
			if tc.name == "deadline" && (ms < 1900 || ms > 20000) {
				t.Errorf("the case took %.0f ms, want about 2 s (the run %v)", ms, took)
			}
			t.Logf("%s: case %.0f ms, run %v", tc.name, ms, took.Round(time.Millisecond))
		})
	}
}
