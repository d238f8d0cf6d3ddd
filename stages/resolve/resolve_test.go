package resolve_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
)

// A project as murmur users have them: a registry skill, a local skill,
// no lock yet. Every case gets both skills; the first success writes the
// lock, once, and the next run is pinned by it.
func TestStagedRunWritesTheLockOnce(t *testing.T) {
	p := newProject(t, "name: c\nversion: '1'\nartifacts:\n"+
		"  - {name: guide, version: 1.0.0, runtime: skill}\n"+
		"  - {name: notes, runtime: skill, source: skills/notes}\n")
	write(t, filepath.Join(p.dir, "skills", "notes", "SKILL.md"), "# Notes")
	good := archive(t, capsule.ManifestFile, guideYAML, "skill.md", "# Guide")
	p.publish(t, good, "guide", "1.0.0")

	g, st := p.graph(t, nil)
	if _, err := g.Prepare(context.Background()); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	var wg sync.WaitGroup
	for _, id := range []string{"a", "b", "c", "d"} {
		wg.Go(func() {
			c := p.run(t, g, id)
			if v := pipeline.Judge(c); v.Err != nil {
				t.Errorf("case %s: %v", id, v.Err)
				return
			}
			for _, f := range []string{"tools/guide/skill.md", "tools/guide/murmur.yaml", "tools/notes/skill.md", "task.md"} {
				if _, err := os.Stat(filepath.Join(c.SessionDir, f)); err != nil {
					t.Errorf("case %s: %v", id, err)
				}
			}
			if _, err := os.Stat(filepath.Join(c.SessionDir, "tools", "notes", capsule.ManifestFile)); err == nil {
				t.Errorf("case %s: a local skill got a murmur.yaml (murmur writes none)", id)
			}
		})
	}
	wg.Wait()
	if written, err := st.Lock(); !written || err != nil {
		t.Fatalf("Lock() = %v, %v; want written", written, err)
	}
	lock, err := capsule.ReadLock(capsule.LockPath(p.dir))
	if err != nil {
		t.Fatalf("ReadLock: %v", err)
	}
	want := []capsule.LockEntry{{Name: "guide", ResolvedVersion: "1.0.0", SHA256: capsule.SHA256Hex(good)}}
	if diff := cmp.Diff(want, lock.Artifacts); diff != "" {
		t.Errorf("lock mismatch (-want +got):\n%s", diff)
	}

	// The next run is pinned: a rebuilt guide with a fresh sidecar is not
	// the build the lock holds.
	p.publish(t, archive(t, capsule.ManifestFile, guideYAML, "skill.md", "# Guide, rebuilt"), "guide", "1.0.0")
	p.out = t.TempDir()
	g2, st2 := p.graph(t, nil)
	c := p.run(t, g2, "e")
	if v := pipeline.Judge(c); v.Code != errcode.RegistryIntegrity {
		t.Errorf("rebuilt artifact under a lock: %s, want %s (error: %v)", v.Code, errcode.RegistryIntegrity, v.Err)
	}
	if written, _ := st2.Lock(); written {
		t.Errorf("an existing lock was rewritten")
	}
}

// The lock's resolved_version, not the manifest's, is what gets staged.
func TestLockPinsTheVersion(t *testing.T) {
	p := newProject(t, "name: c\nversion: '1'\nartifacts: [{name: guide, version: 1.0.0, runtime: skill}]\n")
	v2 := archive(t, capsule.ManifestFile, "name: guide\nversion: 2.0.0\nruntime: skill\n", "skill.md", "v2")
	p.publish(t, archive(t, capsule.ManifestFile, guideYAML, "skill.md", "v1"), "guide", "1.0.0")
	p.publish(t, v2, "guide", "2.0.0")
	write(t, capsule.LockPath(p.dir), "lock_version: 1\nartifacts:\n- name: guide\n  resolved_version: 2.0.0\n  sha256: {wasm: "+capsule.SHA256Hex(v2)+"}\n")
	g, _ := p.graph(t, nil)
	c := p.run(t, g, "a")
	if v := pipeline.Judge(c); v.Err != nil {
		t.Fatalf("case: %v", v.Err)
	}
	got, _ := os.ReadFile(filepath.Join(c.SessionDir, "tools", "guide", "skill.md"))
	if string(got) != "v2" {
		t.Errorf("staged skill.md = %q, want the locked v2", got)
	}
}

// .env fills in the api key's variable; the process environment wins.
func TestDotEnvForTheAPIKey(t *testing.T) {
	manifest := "name: c\nversion: '1'\ninference: {endpoint: https://e, model: m, driver: {artifact: d}, api_key: '${KEY}'}\n"
	for _, tt := range []struct {
		name, dotenv string
		env          map[string]string
		want         string
	}{
		{"from .env", "# local\nKEY='from-dotenv'\n", nil, "from-dotenv"},
		{"process wins", "KEY=from-dotenv\n", map[string]string{"KEY": "from-process"}, "from-process"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, manifest)
			write(t, filepath.Join(p.dir, ".env"), tt.dotenv)
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			c := &pipeline.Case{}
			err := resolve.New(resolve.Options{Dir: p.dir, LookupEnv: lookup}).Run(context.Background(), c)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if got := mustCapsule(t, c).Manifest.Inference.APIKey; got != tt.want {
				t.Errorf("APIKey = %q, want %q", got, tt.want)
			}
		})
	}
}

// MURMUR_MAX_ARTIFACT_DECOMPRESSED_BYTES reaches every pin.
func TestCeilingFromTheEnvironment(t *testing.T) {
	p := newProject(t, "name: c\nversion: '1'\nartifacts: [{name: guide, version: 1.0.0, runtime: skill}]\n")
	p.publish(t, archive(t, capsule.ManifestFile, guideYAML, "skill.md", "# Guide"), "guide", "1.0.0")
	lookup := func(k string) (string, bool) {
		return "4096", k == capsule.MaxEntryBytesEnv
	}
	c := &pipeline.Case{}
	if err := resolve.New(resolve.Options{Dir: p.dir, LookupEnv: lookup}).Run(context.Background(), c); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	if got := mustCapsule(t, c).Pins[0].Resolved.MaxEntryBytes; got != 4096 {
		t.Errorf("MaxEntryBytes = %d, want 4096", got)
	}
}

// mustCapsule is the case's Resolve result.
func mustCapsule(t *testing.T, c *pipeline.Case) *resolve.Capsule {
	t.Helper()
	cp, err := pipeline.ResultOf(c, resolve.Result)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}
