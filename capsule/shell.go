package capsule

import (
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"
)

// Shell is capabilities.shell; a declared block has at least one binary.
type Shell struct {
	Allow []string
	// StripEnv are patterns (*X*, *X, X*, exact) removed from the shell's
	// environment; nil when absent.
	StripEnv []string
	// BaselineEnv are exact host variable names copied into the shell's
	// environment (murmur's code reads them as names; its docs say globs).
	BaselineEnv        []string
	InterpreterRuntime []InterpreterGrant
	StagedRuntime      []StagedGrant
}

// InterpreterGrant widens an allowlisted binary's filesystem scope to host
// directories its interpreter needs (shell.interpreter_runtime, W-SEC-009).
type InterpreterGrant struct {
	Binary string // in Shell.Allow
	Dirs   []InterpreterDir
}

// InterpreterDir is one granted host directory; ListDir is always written.
type InterpreterDir struct {
	Path    string // absolute
	ListDir bool
}

// StagedGrant binds a pinned runtime tree into a sealed capsule's root
// (shell.staged_runtime; needs a sealed floor at staging, E-CAP-004).
type StagedGrant struct {
	Binary     string // in Shell.Allow, with no InterpreterGrant
	SourcePath string // absolute; existence is checked at launch
	Pin        string // trimmed
}

type rawShell struct {
	node                      *yaml.Node
	allow, stripEnv, baseline []string
	interpreters              []rawInterpreter
	staged                    []rawStaged
}

type rawInterpreter struct {
	node     *yaml.Node
	binary   scalar
	dirsNode *yaml.Node
	dirs     []rawInterpreterDir
}

type rawInterpreterDir struct {
	node    *yaml.Node
	path    scalar
	listDir optBool
}

type rawStaged struct {
	node                    *yaml.Node
	binary, sourcePath, pin scalar
}

func decodeShell(m *mapping) (*rawShell, error) {
	var errs fieldErrs
	sh := &rawShell{node: m.node}
	sh.allow = errs.strs(m, "allow")
	sh.stripEnv = errs.strs(m, "strip_env")
	sh.baseline = errs.strs(m, "baseline_env")
	for i, item := range errs.seq(m, "interpreter_runtime") {
		field := fmt.Sprintf("%s.interpreter_runtime[%d]", m.field, i)
		g, err := m.d.mapping(item, field, "struct RawInterpreterRuntimeGrant")
		if errs.add(err) {
			break
		}
		ri := rawInterpreter{node: g.node, binary: errs.str(g, "binary")}
		dirs := errs.seq(g, "dirs")
		ri.dirsNode, _ = g.get("dirs")
		for j, dn := range dirs {
			dm, err := m.d.mapping(dn, fmt.Sprintf("%s.dirs[%d]", field, j), "struct RawInterpreterRuntimeDir")
			if errs.add(err) {
				break
			}
			ri.dirs = append(ri.dirs, rawInterpreterDir{node: dm.node, path: errs.str(dm, "path"), listDir: errs.boolean(dm, "list_dir")})
		}
		sh.interpreters = append(sh.interpreters, ri)
	}
	for i, item := range errs.seq(m, "staged_runtime") {
		g, err := m.d.mapping(item, fmt.Sprintf("%s.staged_runtime[%d]", m.field, i), "struct RawStagedRuntimeGrant")
		if errs.add(err) {
			break
		}
		sh.staged = append(sh.staged, rawStaged{node: g.node,
			binary: errs.str(g, "binary"), sourcePath: errs.str(g, "source_path"), pin: errs.str(g, "pin")})
	}
	return sh, errs.first
}

// lowerShell applies murmur's shell rules in its order: a non-empty allow,
// then each interpreter_runtime grant, then each staged_runtime grant.
func lowerShell(d *decoder, r *rawCapabilities, sh *rawShell) (Shell, error) {
	invalid := func(n *yaml.Node, field, format string, args ...any) error {
		return capInvalid(d, r, n, field, format, args...)
	}
	if len(sh.allow) == 0 {
		return Shell{}, invalid(sh.node, "capabilities.shell.allow", "must contain at least one binary")
	}
	s := Shell{Allow: sh.allow, StripEnv: sh.stripEnv, BaselineEnv: sh.baseline}
	for i, g := range sh.interpreters {
		base := fmt.Sprintf("capabilities.shell.interpreter_runtime[%d]", i)
		if g.binary.blank() {
			return s, invalid(orNode(g.binary.node, g.node), base+".binary", "must name a binary")
		}
		bin := g.binary.text
		if !slices.Contains(sh.allow, bin) {
			return s, invalid(g.binary.node, base+".binary", "'%s' is not in capabilities.shell.allow — interpreter_runtime can only narrow filesystem access for an already-allowlisted binary, never grant exec", bin)
		}
		if len(g.dirs) == 0 {
			return s, invalid(orNode(g.dirsNode, g.node), base+".dirs", "must name at least one directory")
		}
		grant := InterpreterGrant{Binary: bin}
		for j, dir := range g.dirs {
			dbase := fmt.Sprintf("%s.dirs[%d]", base, j)
			switch {
			case dir.path.blank():
				return s, invalid(orNode(dir.path.node, dir.node), dbase+".path", "must name a host directory")
			case dir.path.text[0] != '/':
				return s, invalid(dir.path.node, dbase+".path", "'%s' must be an absolute host path (start with '/') — these are filesystem paths outside the workdir", dir.path.text)
			case !dir.listDir.set:
				return s, invalid(dir.node, dbase+".list_dir", "'%s' must set list_dir explicitly to true or false — enumerability is never inferred", dir.path.text)
			}
			grant.Dirs = append(grant.Dirs, InterpreterDir{Path: dir.path.text, ListDir: dir.listDir.val})
		}
		s.InterpreterRuntime = append(s.InterpreterRuntime, grant)
	}
	for i, g := range sh.staged {
		base := fmt.Sprintf("capabilities.shell.staged_runtime[%d]", i)
		if g.binary.blank() {
			return s, invalid(orNode(g.binary.node, g.node), base+".binary", "must name a binary")
		}
		bin := g.binary.text
		if !slices.Contains(sh.allow, bin) {
			return s, invalid(g.binary.node, base+".binary", "'%s' is not in capabilities.shell.allow — staged_runtime can only stage the runtime tree behind an already-allowlisted binary, never grant exec", bin)
		}
		if slices.ContainsFunc(s.InterpreterRuntime, func(ig InterpreterGrant) bool { return ig.Binary == bin }) {
			return s, invalid(g.binary.node, base+".binary", "'%s' also has a capabilities.shell.interpreter_runtime grant — the two are mutually exclusive per binary: staged_runtime bind-mounts the runtime tree into the capsule's own root, which is what makes widening the capsule's host filesystem scope unnecessary rather than something to add to it. Remove the interpreter_runtime grant for '%s'", bin, bin)
		}
		if g.sourcePath.blank() {
			return s, invalid(orNode(g.sourcePath.node, g.node), base+".source_path", "must name the host directory holding the pinned runtime tree")
		}
		src := g.sourcePath.text
		if src[0] != '/' {
			return s, invalid(g.sourcePath.node, base+".source_path", "'%s' must be an absolute host path (start with '/') — staged-runtime sources are host filesystem paths outside the workdir", src)
		}
		if g.pin.blank() {
			return s, invalid(orNode(g.pin.node, g.node), base+".pin", "'%s' must declare a non-empty pin identifying which build this tree is — it is never inferred, because it is the value a human compares across two hosts to confirm the same runtime shipped to both", src)
		}
		s.StagedRuntime = append(s.StagedRuntime, StagedGrant{Binary: bin, SourcePath: src, Pin: g.pin.trimmed()})
	}
	return s, nil
}
