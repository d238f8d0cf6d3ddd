package capsule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Conformance tests named after murmur's integration tests
// (crates/murmur-cli/tests/<file>.rs::<function>); the table in
// docs/murmur-compatibility.md lists every row.

// run.rs::run_without_no_env_file_flag_loads_dotenv_and_resolves_manifest: a project's .env
// resolves ${VAR} in murmur.yaml; a name neither the process nor .env sets
// is E-MAN-003.
func TestMurmur_run_without_no_env_file_flag_loads_dotenv_and_resolves_manifest(t *testing.T) {
	dir := t.TempDir()
	src := "name: d\nversion: '1'\ninference: {endpoint: https://e, model: m, driver: {artifact: d}, api_key: '${FROM_DOTENV}'}\n"
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	none := func(string) (string, bool) { return "", false }
	if _, err := LoadProjectManifest(dir, none); !errcode.Is(err, errcode.ManifestInvalid) {
		t.Fatalf("unset ${FROM_DOTENV}: %v, want %s", err, errcode.ManifestInvalid)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("FROM_DOTENV=secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadProjectManifest(dir, none)
	if err != nil || m.Inference.APIKey != "secret" {
		t.Fatalf("with .env: %+v, %v", m, err)
	}
}

// limits.rs::zero_memory_bytes_is_rejected_at_manifest_parse_time.
func TestMurmur_zero_memory_bytes_is_rejected_at_manifest_parse_time(t *testing.T) {
	src := "name: d\nversion: '1'\ncapabilities:\n  limits:\n    memory_bytes: 0\n"
	_, err := ParseManifest("murmur.yaml", []byte(src), nil)
	if !errcode.Is(err, errcode.ManifestInvalid) {
		t.Fatalf("err = %v, want %s", err, errcode.ManifestInvalid)
	}
	for _, want := range []string{"capabilities.limits.memory_bytes", "must be greater than zero"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

// containment.rs::an_unknown_manifest_containment_value_fails_at_parse_time: E-MAN-003
// naming the accepted set.
func TestMurmur_an_unknown_manifest_containment_value_fails_at_parse_time(t *testing.T) {
	src := "name: d\nversion: '1'\ncapabilities:\n  containment: strict\n"
	_, err := ParseManifest("murmur.yaml", []byte(src), nil)
	if !errcode.Is(err, errcode.ManifestInvalid) {
		t.Fatalf("err = %v, want %s", err, errcode.ManifestInvalid)
	}
	for _, want := range []string{"advisory", "scoped", "sealed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
}

// run.rs::run_missing_artifact_fails_before_launch_with_clear_error:
// murmur's `mur run` pre-flight says E-RUN-008; murmur-eval reports the
// first missing artifact as `mur eval run`'s staging does, E-REG-001 at its
// manifest entry, the others in the hint (RATIONALE.md "Why is a missing
// artifact E-REG-001 and not E-RUN-008?").
func TestMurmur_run_missing_artifact_fails_before_launch_with_clear_error(t *testing.T) {
	project := t.TempDir()
	m := &Manifest{Artifacts: []ArtifactDecl{{Name: "ghost", Version: "9.0.0", Runtime: RuntimeTool}, {Name: "wraith", Version: "1.0.0", Runtime: RuntimeTool}}}
	_, err := ResolveAll(m, nil, NewRegistry(project, ""), "linux-x86_64")
	if !errcode.Is(err, errcode.RegistryNotFound) {
		t.Fatalf("ResolveAll = %v, want %s", err, errcode.RegistryNotFound)
	}
	if !strings.Contains(err.Error(), "ghost") || !strings.Contains(asError(err).Hint, "wraith@1.0.0") {
		t.Errorf("error %q (hint %q) does not name both missing artifacts", err, asError(err).Hint)
	}
}

// run.rs::run_round_trip_writes_lock_and_uses_existing_lock_on_second_run,
// the resolution half: the lock's resolved_version wins over the manifest's.
func TestMurmur_run_round_trip_uses_existing_lock_pin(t *testing.T) {
	project := t.TempDir()
	putStore(t, ProjectStore(project), "echo", "1.1.0", "", "echo", "e")
	m := &Manifest{Artifacts: []ArtifactDecl{{Name: "echo", Version: "1.0.0", Runtime: RuntimeTool}}}
	lock := &Lock{Path: "murmur.lock", LockVersion: 1, Artifacts: []LockEntry{{Name: "echo", ResolvedVersion: "1.1.0", SHA256: "e"}}}
	pins, err := ResolveAll(m, lock, NewRegistry(project, ""), "linux-x86_64")
	if err != nil || len(pins) != 1 || pins[0].Version != "1.1.0" {
		t.Fatalf("pins = %+v, %v; want echo@1.1.0 from the lock", pins, err)
	}
}

// skill_local_source.rs::local_source_directory_path_finds_skill_md_case_insensitively:
// a folder source is searched for SKILL.MD in any case (staging installs
// it as tools/<name>/skill.md; stages/launch serves it).
func TestMurmur_local_source_directory_path_finds_skill_md_case_insensitively(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "skills", "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "skills", "mine", "SKILL.MD"), []byte("# Mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadLocalSkill(dir, ArtifactDecl{Name: "mine", Version: "local", Runtime: RuntimeSkill, Source: "./skills/mine", LocalSource: true})
	if err != nil || string(s.Text) != "# Mine\n" {
		t.Fatalf("ReadLocalSkill = %+v, %v", s, err)
	}
}

// run.rs::run_round_trip_writes_lock_and_uses_existing_lock_on_second_run,
// the writing half: the lock is written on the first run, as serde_yaml
// writes murmur's (list items at the key's indent, ambiguous strings
// single-quoted), so a lock moves between the two tools without a diff;
// an existing lock is kept.
func TestMurmur_run_round_trip_writes_lock_and_uses_existing_lock_on_second_run(t *testing.T) {
	lock := &Lock{Path: LockPath(t.TempDir()), LockVersion: 1, Artifacts: []LockEntry{
		{Name: "calc", ResolvedVersion: "0.1.0", SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{Name: "murmur-driver-anthropic", ResolvedVersion: "1.10", SHA256: "1234"},
	}}
	if written, err := WriteLock(lock); err != nil || !written {
		t.Fatalf("WriteLock = %v, %v", written, err)
	}
	got, err := os.ReadFile(lock.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := "lock_version: 1\nartifacts:\n" +
		"- name: calc\n  resolved_version: 0.1.0\n  sha256:\n    wasm: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n" +
		"- name: murmur-driver-anthropic\n  resolved_version: '1.10'\n  sha256:\n    wasm: '1234'\n"
	if string(got) != want {
		t.Errorf("murmur.lock:\n%s\nwant:\n%s", got, want)
	}
	empty := &Lock{Path: LockPath(t.TempDir()), LockVersion: 1}
	if b, _ := empty.Marshal(); string(b) != "lock_version: 1\nartifacts: []\n" {
		t.Errorf("empty lock %q", b)
	}
	if written, _ := WriteLock(&Lock{Path: lock.Path, LockVersion: 1}); written {
		t.Error("an existing lock was rewritten")
	}
}
