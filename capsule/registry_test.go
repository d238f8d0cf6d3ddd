package capsule

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// putStore writes <root>/<name>/<version>/<name>-<version><suffix>.{mur.zip,sha256};
// an empty sidecar argument skips the sidecar.
func putStore(t *testing.T, root, name, version, suffix, zip, sidecar string) {
	t.Helper()
	dir := filepath.Join(root, name, version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, name+"-"+version+suffix)
	if err := os.WriteFile(base+".mur.zip", []byte(zip), 0o644); err != nil {
		t.Fatal(err)
	}
	if sidecar != "" {
		if err := os.WriteFile(base+".sha256", []byte(sidecar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRegistryResolve(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	reg := NewRegistry(project, home)
	ps, gs := ProjectStore(project), GlobalStore(home)
	if diff := cmp.Diff([]string{ps, gs}, reg.Stores); diff != "" {
		t.Fatalf("stores mismatch (-want +got):\n%s", diff)
	}
	putStore(t, gs, "echo", "1.0.0", "", "global", "g1\n")
	putStore(t, ps, "both", "1.0.0", "", "project", "p1")
	putStore(t, gs, "both", "1.0.0", "", "global", "g1")
	putStore(t, ps, "nat", "2.0.0", "", "generic", "gen")
	putStore(t, ps, "nat", "2.0.0", "-linux-x86_64", "variant", "var")
	putStore(t, ps, "half", "1.0.0", "-linux-x86_64", "variant", "") // variant without sidecar
	putStore(t, ps, "half", "1.0.0", "", "generic", "gen")
	putStore(t, ps, "nosum", "1.0.0", "", "zip only", "")
	putStore(t, gs, "nosum", "1.0.0", "", "global", "g2")

	tests := []struct {
		name, version, platform string
		want                    Resolved
	}{
		{"echo", "1.0.0", "", Resolved{Store: gs, ZipPath: "echo-1.0.0.mur.zip", SidecarSHA256: "g1"}},
		{"both", "1.0.0", "", Resolved{Store: ps, ZipPath: "both-1.0.0.mur.zip", SidecarSHA256: "p1"}},
		{"nat", "2.0.0", "linux-x86_64", Resolved{Store: ps, ZipPath: "nat-2.0.0-linux-x86_64.mur.zip", SidecarSHA256: "var"}},
		{"nat", "2.0.0", "darwin-aarch64", Resolved{Store: ps, ZipPath: "nat-2.0.0.mur.zip", SidecarSHA256: "gen"}},
		{"nat", "2.0.0", "", Resolved{Store: ps, ZipPath: "nat-2.0.0.mur.zip", SidecarSHA256: "gen"}},
		{"half", "1.0.0", "linux-x86_64", Resolved{Store: ps, ZipPath: "half-1.0.0.mur.zip", SidecarSHA256: "gen"}},
		{"nosum", "1.0.0", "", Resolved{Store: gs, ZipPath: "nosum-1.0.0.mur.zip", SidecarSHA256: "g2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"@"+tt.version+"/"+tt.platform, func(t *testing.T) {
			got, err := reg.Resolve(tt.name, tt.version, tt.platform)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			want := tt.want
			want.Name, want.Version = tt.name, tt.version
			want.ZipPath = filepath.Join(want.Store, tt.name, tt.version, want.ZipPath)
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("resolved mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegistryResolveErrors(t *testing.T) {
	project := t.TempDir()
	reg := NewRegistry(project, "")
	putStore(t, ProjectStore(project), "blank", "1.0.0", "", "zip", " \n")
	tests := []struct {
		name, version, code string
	}{
		{"absent", "1.0.0", errcode.RegistryNotFound},
		{"blank", "2.0.0", errcode.RegistryNotFound}, // exact version only
		{"blank", "1.0.0", errcode.IO},               // empty sidecar
		{"../etc", "1.0.0", errcode.IO},
		{"echo", "..", errcode.IO},
		{"", "1.0.0", errcode.IO},
	}
	for _, tt := range tests {
		_, err := reg.Resolve(tt.name, tt.version, "linux-x86_64")
		if got := errcode.Code(err); got != tt.code {
			t.Errorf("Resolve(%q, %q): code = %q, want %q (error: %v)", tt.name, tt.version, got, tt.code, err)
		}
	}
	_, err := reg.Resolve("absent", "1.0.0", "")
	if e := asError(err); e == nil || e.Hint == "" {
		t.Errorf("not-found error %v has no hint", err)
	}

	// Only a not-found falls through to the next store.
	home := t.TempDir()
	reg = NewRegistry(project, home)
	putStore(t, GlobalStore(home), "broken", "1.0.0", "", "zip", "good")
	putStore(t, ProjectStore(project), "broken", "1.0.0", "", "zip", "")
	if err := os.Mkdir(filepath.Join(ProjectStore(project), "broken", "1.0.0", "broken-1.0.0.sha256"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Resolve("broken", "1.0.0", ""); errcode.Code(err) != errcode.IO {
		t.Errorf("unreadable project sidecar: code = %q, want %q (error: %v)", errcode.Code(err), errcode.IO, err)
	}
}

func TestPlatformFor(t *testing.T) {
	tests := []struct{ goos, goarch, want string }{
		{"linux", "amd64", "linux-x86_64"},
		{"linux", "arm64", "linux-aarch64"},
		{"darwin", "amd64", "darwin-x86_64"},
		{"darwin", "arm64", "darwin-aarch64"},
		{"windows", "amd64", "unknown"},
		{"linux", "riscv64", "unknown"},
	}
	for _, tt := range tests {
		if got := platformFor(tt.goos, tt.goarch); got != tt.want {
			t.Errorf("platformFor(%s, %s) = %q, want %q", tt.goos, tt.goarch, got, tt.want)
		}
	}
	if CurrentPlatform() == "" {
		t.Errorf("CurrentPlatform() is empty")
	}
}

func TestVerify(t *testing.T) {
	data := []byte("zip bytes")
	sum := SHA256Hex(data)
	tests := []struct {
		name, sidecar, lock, code string
	}{
		{"sidecar matches, no lock", sum, "", ""},
		{"sidecar and lock match", sum, sum, ""},
		{"bytes differ from sidecar", sumA, "", errcode.RegistryIntegrity},
		{"uppercase sidecar", upper(sum), "", errcode.RegistryIntegrity},
		{"lock differs from sidecar", sum, sumA, errcode.RegistryIntegrity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify("echo", "1.0.0", data, tt.sidecar, tt.lock)
			if got := errcode.Code(err); got != tt.code {
				t.Errorf("code = %q, want %q (error: %v)", got, tt.code, err)
			}
		})
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func TestResolveAll(t *testing.T) {
	project := t.TempDir()
	store := ProjectStore(project)
	putStore(t, store, "echo", "1.1.0", "", "echo", "e")
	putStore(t, store, "drv", "0.3.0", "", "drv", "d")
	m := &Manifest{Artifacts: []ArtifactDecl{
		{Name: "echo", Version: "1.0.0", Runtime: RuntimeTool},
		{Name: "notes", Version: "local", Runtime: RuntimeSkill, Source: "notes.md", LocalSource: true},
		{Name: "drv", Version: "0.3.0", Runtime: RuntimeDriver},
	}}
	reg := NewRegistry(project, "")
	lock := &Lock{Path: "murmur.lock", LockVersion: 1, Artifacts: []LockEntry{
		{Name: "drv", ResolvedVersion: "0.3.0", SHA256: "d"},
		{Name: "echo", ResolvedVersion: "1.1.0", SHA256: "e"},
	}}
	got, err := ResolveAll(m, lock, reg, "linux-x86_64")
	if err != nil {
		t.Fatalf("ResolveAll: %v", err)
	}
	want := []Pinned{
		{Name: "echo", Version: "1.1.0", Runtime: RuntimeTool, LockSHA256: "e", Resolved: &Resolved{
			Name: "echo", Version: "1.1.0", Store: store, ZipPath: filepath.Join(store, "echo", "1.1.0", "echo-1.1.0.mur.zip"), SidecarSHA256: "e"}},
		{Name: "drv", Version: "0.3.0", Runtime: RuntimeDriver, LockSHA256: "d", Resolved: &Resolved{
			Name: "drv", Version: "0.3.0", Store: store, ZipPath: filepath.Join(store, "drv", "0.3.0", "drv-0.3.0.mur.zip"), SidecarSHA256: "d"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pins mismatch (-want +got):\n%s", diff)
	}

	// Without a lock the manifest's versions are used: echo@1.0.0 is
	// missing, reported as murmur's staging does (E-REG-001, the first one),
	// at the entry's position in the manifest.
	m.Artifacts[0].where = "murmur.yaml:3:5"
	m.Artifacts = append(m.Artifacts, ArtifactDecl{Name: "ghost", Version: "9.0.0"})
	_, err = ResolveAll(m, nil, reg, "linux-x86_64")
	if got := errcode.Code(err); got != errcode.RegistryNotFound {
		t.Fatalf("code = %q, want %q (error: %v)", got, errcode.RegistryNotFound, err)
	}
	if got := whereOf(asError(err)); got != "murmur.yaml:3:5" {
		t.Errorf("where = %q, want murmur.yaml:3:5", got)
	}
	if h := asError(err).Hint; !strings.Contains(h, "mur install") || !strings.Contains(h, "ghost@9.0.0") {
		t.Errorf("hint = %q, want `mur install` and the other missing artifact", h)
	}

	// A locked project needs an entry for every registry artifact.
	_, err = ResolveAll(m, lock, reg, "linux-x86_64")
	if got := errcode.Code(err); got != errcode.RunLock {
		t.Errorf("code = %q, want %q (error: %v)", got, errcode.RunLock, err)
	}
}
