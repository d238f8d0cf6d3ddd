package resolve_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/datasets"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/stages"
	"github.com/murmur-nexus/murmur-eval/stages/resolve"
	"github.com/murmur-nexus/murmur-eval/stages/staging"
	"github.com/murmur-nexus/murmur-eval/stages/verify"
)

const guideYAML = "name: guide\nversion: 1.0.0\nruntime: skill\n"

// project is a capsule folder with a store, and the run's output folder.
type project struct {
	dir, out string
}

func newProject(t *testing.T, manifest string) project {
	t.Helper()
	if !strings.Contains(manifest, "inference:") {
		// An agent capsule: without the block it is a script capsule, whose
		// component Resolve looks for (script_test.go).
		manifest += "inference: {endpoint: https://e, model: m, driver: {artifact: d}}\n"
	}
	p := project{dir: filepath.Join(t.TempDir(), "capsule"), out: t.TempDir()}
	write(t, filepath.Join(p.dir, capsule.ManifestFile), manifest)
	return p
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// publish puts zipBytes in the project store as name@version with an
// honest sidecar and returns the zip's path.
func (p project) publish(t *testing.T, zipBytes []byte, name, version string) string {
	t.Helper()
	am := &capsule.ArtifactManifest{Name: name, Version: version, Runtime: "skill", Implementation: "wasm"}
	path, err := capsule.Publish(capsule.ProjectStore(p.dir), zipBytes, am)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// archive builds a .mur.zip from name/content pairs, in order.
func archive(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err == nil {
			_, err = w.Write([]byte(entries[i+1]))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bombArchive is a skill whose skill.md inflates to 600 MiB of zeros from
// about 600 KiB, with honest headers: murmur's 500 MiB ceiling refuses it.
// The deflate stream is built from one flushed 1 MiB block repeated, which
// decodes to zeros wherever it sits, so building it costs no compression.
func bombArchive(t *testing.T) []byte {
	t.Helper()
	const mib, n = 1 << 20, 600
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestSpeed)
	zeros := make([]byte, mib)
	_, _ = fw.Write(zeros)
	_ = fw.Flush()
	head := bytes.Clone(buf.Bytes())
	buf.Reset()
	_, _ = fw.Write(zeros)
	_ = fw.Flush()
	block := bytes.Clone(buf.Bytes())
	buf.Reset()
	_ = fw.Close()
	tail := buf.Bytes()
	stream := append(append(head, bytes.Repeat(block, n-1)...), tail...)
	crc := uint32(0)
	for range n {
		crc = crc32.Update(crc, crc32.IEEETable, zeros)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	w, _ := zw.Create(capsule.ManifestFile)
	_, _ = w.Write([]byte(guideYAML))
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "skill.md", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(stream)), UncompressedSize64: n * mib})
	if err == nil {
		_, err = w.Write(stream)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// graph is resolve, verify and stage as the run wires them.
func (p project) graph(t *testing.T, env map[string]string) (*pipeline.Graph, staging.Stage) {
	t.Helper()
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	st := staging.New()
	rt := stages.NewRuntime()
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	ver := verify.New(verify.Options{RunDir: p.out, Runtime: rt})
	g, err := pipeline.NewGraph(
		pipeline.Node{Decl: resolve.Decl, Stage: resolve.New(resolve.Options{Dir: p.dir, LookupEnv: lookup, Platform: capsule.CurrentPlatform()})},
		pipeline.Node{Decl: verify.Decl, Stage: ver},
		pipeline.Node{Decl: staging.Decl, Stage: st},
	)
	if err != nil {
		t.Fatal(err)
	}
	return g, st
}

// run prepares the graph and runs one case through it.
func (p project) run(t *testing.T, g *pipeline.Graph, id string) *pipeline.Case {
	t.Helper()
	_, _ = g.Prepare(context.Background())
	c := &pipeline.Case{ID: id, Input: datasets.Case{ID: id, Task: "do it"}, Epoch: 1, SessionID: "ses_" + id,
		SessionDir: filepath.Join(p.out, "sessions", "ses_"+id)}
	g.Execute(context.Background(), c)
	return c
}

// A refused capsule fails every case at the stage that found the problem,
// with murmur's code, before anything is written for any session.
func TestRefusedCapsulesWriteNothing(t *testing.T) {
	good := archive(t, capsule.ManifestFile, guideYAML, "skill.md", "# Guide")
	withGuide := "name: c\nversion: '1'\nartifacts:\n  - {name: guide, version: 1.0.0, runtime: skill}\n"
	tests := []struct {
		name, manifest string
		setup          func(t *testing.T, p project)
		env            map[string]string
		stage, code    string
	}{
		{"tampered zip", withGuide, func(t *testing.T, p project) {
			path := p.publish(t, good, "guide", "1.0.0")
			write(t, path, string(append(bytes.Clone(good), 0)))
		}, nil, verify.Name, errcode.RegistryIntegrity},
		{"sidecar disagrees with the lock", withGuide, func(t *testing.T, p project) {
			p.publish(t, good, "guide", "1.0.0")
			write(t, capsule.LockPath(p.dir), "lock_version: 1\nartifacts:\n- {name: guide, resolved_version: 1.0.0, sha256: {wasm: "+capsule.SHA256Hex([]byte("other"))+"}}\n")
		}, nil, verify.Name, errcode.RegistryIntegrity},
		{"zip-slip entry", withGuide, func(t *testing.T, p project) {
			p.publish(t, archive(t, capsule.ManifestFile, guideYAML, "skill.md", "# Guide", "../../../evil.md", "x"), "guide", "1.0.0")
		}, nil, verify.Name, errcode.IO},
		{"zip bomb", withGuide, func(t *testing.T, p project) {
			p.publish(t, bombArchive(t), "guide", "1.0.0")
		}, nil, verify.Name, errcode.IO},
		{"not installed", withGuide, func(t *testing.T, p project) {}, nil, resolve.Name, errcode.RegistryNotFound},
		{"lock without the artifact", withGuide, func(t *testing.T, p project) {
			p.publish(t, good, "guide", "1.0.0")
			write(t, capsule.LockPath(p.dir), "lock_version: 1\nartifacts: []\n")
		}, nil, resolve.Name, errcode.RunLock},
		{"unsupported lock", withGuide, func(t *testing.T, p project) {
			p.publish(t, good, "guide", "1.0.0")
			write(t, capsule.LockPath(p.dir), "lock_version: 2\nartifacts: []\n")
		}, nil, resolve.Name, errcode.RunLock},
		{"bad .env line", withGuide, func(t *testing.T, p project) {
			write(t, filepath.Join(p.dir, ".env"), "KEY=1\nexport\n")
		}, nil, resolve.Name, errcode.IO},
		{"api key variable unset", "name: c\nversion: '1'\ninference: {endpoint: https://e, model: m, driver: {artifact: d}, api_key: '${KEY}'}\n",
			func(t *testing.T, p project) {}, nil, resolve.Name, errcode.ManifestInvalid},
		{"manifest shape", "name: c\nversion: '1'\nlifecycle: {after_task: never}\n", func(t *testing.T, p project) {}, nil, resolve.Name, errcode.ManifestSyntax},
		{"manifest without a name", "version: '1'\n", func(t *testing.T, p project) {}, nil, resolve.Name, errcode.ManifestMissingField},
		{"local skill missing", "name: c\nversion: '1'\nartifacts: [{name: notes, runtime: skill, source: notes.md}]\n",
			func(t *testing.T, p project) {}, nil, resolve.Name, errcode.IONotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, tt.manifest)
			tt.setup(t, p)
			_, lockErr := os.Stat(capsule.LockPath(p.dir))
			g, st := p.graph(t, tt.env)
			for _, id := range []string{"a", "b"} {
				c := p.run(t, g, id)
				v := pipeline.Judge(c)
				if v.Code != tt.code || v.Stage != tt.stage {
					t.Errorf("case %s: %s at %q, want %s at %q (error: %v)", id, v.Code, v.Stage, tt.code, tt.stage, v.Err)
				}
				if r, _ := c.Stage(staging.Name); r.Outcome != pipeline.Skipped {
					t.Errorf("case %s: stage outcome %v, want skipped", id, r.Outcome)
				}
			}
			for _, dir := range []string{filepath.Join(p.out, "sessions"), filepath.Join(p.out, ".staged")} {
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("%s has %d entries, want none", dir, len(entries))
				}
			}
			if _, err := os.Stat(capsule.LockPath(p.dir)); os.IsNotExist(lockErr) && !os.IsNotExist(err) {
				t.Errorf("a refused capsule wrote murmur.lock")
			}
			if written, _ := st.Lock(); written {
				t.Errorf("Lock() reports a write")
			}
		})
	}
}
