package capsule

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

const capsPrefix = "name: d\nversion: '1'\ncapabilities: "

// §1.4: each sub-block's defaults and values.
func TestCapabilityFields(t *testing.T) {
	tests := []struct {
		name, block string
		want        func(c *Capabilities)
	}{
		{"empty block", "{}", func(c *Capabilities) {}},
		{"null block", "~", func(c *Capabilities) {}},
		{"network declared empty reaches nothing", "{network: {}}", func(c *Capabilities) {
			c.Network, c.Declared = &NetworkGrant{Allow: []string{}}, []string{"network"}
		}},
		{"network null is absent", "{network: ~}", func(c *Capabilities) {}},
		{"network entries and unix sockets", "{network: {allow: ['https://a.example', 'b.example:8080'], unix_sockets: true}}", func(c *Capabilities) {
			c.Network = &NetworkGrant{Allow: []string{"https://a.example", "b.example:8080"}, UnixSockets: true}
			c.Declared = []string{"network"}
		}},
		{"filesystem scope trimmed", "{filesystem: {scope: ' out/data ', workdir_exec: false}}", func(c *Capabilities) {
			c.Filesystem, c.Declared = Filesystem{Scope: "out/data"}, []string{"filesystem"}
		}},
		{"filesystem blank scope is absent", "{filesystem: {scope: '  ', workdir_exec: true}}", func(c *Capabilities) {
			c.Filesystem, c.Declared = Filesystem{WorkdirExec: true}, []string{"filesystem"}
		}},
		{"spawn", "{spawn: {allow: [git]}}", func(c *Capabilities) {
			c.Spawn.Allow, c.Declared = []string{"git"}, []string{"spawn"}
		}},
		{"env may be empty", "{env: {allow: []}}", func(c *Capabilities) {
			c.Env.Allow, c.Declared = []string{}, []string{"env"}
		}},
		{"shell lists", "{shell: {allow: [bash], strip_env: [], baseline_env: [HOME]}}", func(c *Capabilities) {
			c.Shell = Shell{Allow: []string{"bash"}, StripEnv: []string{}, BaselineEnv: []string{"HOME"}}
			c.Declared = []string{"shell"}
		}},
		{"limits", "{limits: {memory_bytes: 0x100000, table_elements: 5, instances: 2, deadline_seconds: 9}}", func(c *Capabilities) {
			c.Limits = Limits{MemoryBytes: 1 << 20, TableElements: 5, Instances: 2, DeadlineSeconds: 9, DeadlineDeclared: true}
			c.Declared = []string{"limits"}
		}},
		{"resources", "{resources: {max_processes: 1, max_open_files: 2, max_file_size_bytes: 3, cpu_seconds: 4, memory_bytes: 5, " +
			"cgroup_memory_bytes: 6, cgroup_pids_max: 7, cgroup_cpu_percent: 8, cgroup_io_bytes_per_sec: 9, workdir_max_bytes: 10}}", func(c *Capabilities) {
			c.Resources = Resources{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0} // WorkdirMaxFiles is not a manifest field
			c.Declared = []string{"resources"}
		}},
		{"containment sealed", "{containment: sealed}", func(c *Capabilities) {
			c.Containment, c.Declared = ContainmentSealed, []string{"containment"}
		}},
		{"blank containment is absent", "{containment: ' '}", func(c *Capabilities) {}},
		{"declared in murmur's order", "{containment: advisory, resources: {}, limits: {}, env: {}, spawn: {}, shell: {allow: [sh]}, filesystem: {}, network: {}}", func(c *Capabilities) {
			c.Containment, c.Network = ContainmentAdvisory, &NetworkGrant{Allow: []string{}}
			c.Shell.Allow = []string{"sh"}
			c.Declared = []string{"network", "filesystem", "shell", "spawn", "env", "limits", "resources", "containment"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseYAML(t, capsPrefix+tt.block+"\n")
			if err != nil {
				t.Fatalf("ParseManifest: %v", err)
			}
			want := defaultCaps()
			tt.want(&want)
			if diff := cmp.Diff(want, m.Capabilities); diff != "" {
				t.Errorf("capabilities mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCapabilityDefaults(t *testing.T) {
	want := Resources{MaxProcesses: 128, MaxOpenFiles: 1024, MaxFileSizeBytes: 4294967296, CPUSeconds: 3600,
		MemoryBytes: 2147483648, CgroupMemoryBytes: 4294967296, CgroupPidsMax: 256, CgroupCPUPercent: 200,
		CgroupIOBytesPerSec: 104857600, WorkdirMaxBytes: 10737418240}
	if diff := cmp.Diff(want, defaultResources()); diff != "" {
		t.Errorf("resource defaults mismatch (-want +got):\n%s", diff)
	}
	wantLimits := Limits{MemoryBytes: 536870912, TableElements: 100000, Instances: 1000, DeadlineSeconds: 600}
	if diff := cmp.Diff(wantLimits, defaultLimits()); diff != "" {
		t.Errorf("limit defaults mismatch (-want +got):\n%s", diff)
	}
}

// §1.4: every refusal, with its code and position.
func TestCapabilityErrors(t *testing.T) {
	const py = "{shell: {allow: [python3], interpreter_runtime: "
	const st = "{shell: {allow: [bash, python3], staged_runtime: "
	tests := []flowCase{
		{"block is a list", "[shell]", errcode.ManifestSyntax, "["},
		{"containment unknown", "{containment: Sealed}", errcode.ManifestInvalid, "Sealed"},
		{"network allow is a string", "{network: {allow: x}}", errcode.ManifestSyntax, "x}"},
		{"unix_sockets quoted", "{network: {unix_sockets: 'true'}}", errcode.ManifestSyntax, "'true'"},
		{"workdir_exec yes", "{filesystem: {workdir_exec: yes}}", errcode.ManifestSyntax, "yes"},
		{"scope is a list", "{filesystem: {scope: [a]}}", errcode.ManifestSyntax, "[a]"},
		{"spawn allow holds a map", "{spawn: {allow: [{a: b}]}}", errcode.ManifestSyntax, "{a:"},
		{"shell without allow", "{shell: {strip_env: [X]}}", errcode.ManifestInvalid, "{strip"},
		{"shell allow empty", "{shell: {allow: []}}", errcode.ManifestInvalid, "{allow"},
		{"interpreter grants not a list", py + "{binary: python3}}}", errcode.ManifestSyntax, "{binary"},
		{"interpreter binary missing", py + "[{dirs: [{path: /usr/lib, list_dir: true}]}]}}", errcode.ManifestInvalid, "{dirs"},
		{"interpreter binary not allowed", py + "[{binary: python, dirs: [{path: /usr/lib, list_dir: true}]}]}}", errcode.ManifestInvalid, "python,"},
		{"interpreter dirs missing", py + "[{binary: python3}]}}", errcode.ManifestInvalid, "{binary"},
		{"interpreter dirs empty", py + "[{binary: python3, dirs: []}]}}", errcode.ManifestInvalid, "[]"},
		{"interpreter dir is a string", py + "[{binary: python3, dirs: [/usr/lib]}]}}", errcode.ManifestSyntax, "/usr"},
		{"interpreter path blank", py + "[{binary: python3, dirs: [{path: ' ', list_dir: true}]}]}}", errcode.ManifestInvalid, "' '"},
		{"interpreter path relative", py + "[{binary: python3, dirs: [{path: lib, list_dir: true}]}]}}", errcode.ManifestInvalid, "lib,"},
		{"interpreter list_dir not written", py + "[{binary: python3, dirs: [{path: /usr/lib}]}]}}", errcode.ManifestInvalid, "{path"},
		{"interpreter list_dir quoted", py + "[{binary: python3, dirs: [{path: /usr/lib, list_dir: 'no'}]}]}}", errcode.ManifestSyntax, "'no'"},
		{"staged binary missing", st + "[{source_path: /opt/b, pin: '1'}]}}", errcode.ManifestInvalid, "{source"},
		{"staged binary not allowed", st + "[{binary: zsh, source_path: /opt/b, pin: '1'}]}}", errcode.ManifestInvalid, "zsh"},
		{"staged binary also interpreted", st + "[{binary: python3, source_path: /opt/p, pin: '1'}], interpreter_runtime: [{binary: python3, dirs: [{path: /l, list_dir: true}]}]}}",
			errcode.ManifestInvalid, "python3, source"},
		{"staged source missing", st + "[{binary: bash, pin: '1'}]}}", errcode.ManifestInvalid, "{binary"},
		{"staged source relative", st + "[{binary: bash, source_path: opt/b, pin: '1'}]}}", errcode.ManifestInvalid, "opt/b"},
		{"staged pin missing", st + "[{binary: bash, source_path: /opt/b}]}}", errcode.ManifestInvalid, "{binary"},
		{"staged pin blank", st + "[{binary: bash, source_path: /opt/b, pin: '  '}]}}", errcode.ManifestInvalid, "'  '"},
		{"limit negative", "{limits: {memory_bytes: -1}}", errcode.ManifestSyntax, "-1"},
		{"limit is a float", "{limits: {instances: 1.5}}", errcode.ManifestSyntax, "1.5"},
		{"cpu percent overflows u32", "{resources: {cgroup_cpu_percent: 4294967296}}", errcode.ManifestSyntax, "4294967296"},
		{"resource quoted", "{resources: {cpu_seconds: '60'}}", errcode.ManifestSyntax, "'60'"},
	}
	for _, f := range limitFields {
		tests = append(tests, flowCase{"limits." + f.key + " zero", "{limits: {" + f.key + ": 0}}", errcode.ManifestInvalid, "0}"})
	}
	for _, f := range resourceFields {
		tests = append(tests, flowCase{"resources." + f.key + " zero", "{resources: {" + f.key + ": 0}}", errcode.ManifestInvalid, "0}"})
	}
	checkFlowErrors(t, capsPrefix, tests)
}
