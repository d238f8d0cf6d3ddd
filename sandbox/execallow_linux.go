package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// What a subprocess may execute is computed once per run and file, not per
// call: closures are cached by path and the file's identity (device,
// inode, size, modification time), and the capsule's shell.allow set by
// the PATH it was resolved on (one PATH per run in practice).
type closureCache struct {
	mu    sync.Mutex
	m     map[closureKey]closure
	allow map[string][]LandlockRule // by PATH
}

type closureKey struct {
	path           string
	dev, ino, size uint64
	mtime          int64
}

// closureOf returns path's closure, from the cache when the file has not
// changed.
func (c *closureCache) closureOf(path string) closure {
	key := closureKey{path: path}
	var st syscall.Stat_t
	if syscall.Stat(path, &st) == nil {
		key.dev, key.ino, key.size, key.mtime = uint64(st.Dev), st.Ino, uint64(st.Size), st.Mtim.Nano()
	}
	c.mu.Lock()
	cl, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return cl
	}
	cl = execClosure(path)
	c.mu.Lock()
	c.m[key] = cl
	c.mu.Unlock()
	return cl
}

// landlockRules is p's whole rule set: the session's base rules, the
// closures of p.Path and p.ExecFiles, with CapsuleGrants the capsule's
// shell.allow closures and interpreter_runtime folders, and with
// ExecSystemDirs the system folders executable.
func (s *Spawner) landlockRules(p Proc) []LandlockRule {
	rules := SessionRules(p.SessionDir, p.WorkdirExec)
	for _, f := range append([]string{p.Path}, p.ExecFiles...) {
		rules = append(rules, execRules(s.closures.closureOf(f))...)
	}
	if p.CapsuleGrants {
		rules = append(rules, s.capsuleRules(envValue(p.Env, "PATH"))...)
	}
	if p.ExecSystemDirs {
		for _, d := range systemDirs() {
			rules = append(rules, LandlockRule{Path: d, Access: llReadFile | llReadDir | llExecute})
		}
	}
	return rules
}

// capsuleRules are the capsule's grants for a subprocess whose PATH is
// path: every match of every shell.allow binary on it (as murmur resolves
// them: all matches, canonicalised) with its closure, and the
// interpreter_runtime folders.
func (s *Spawner) capsuleRules(path string) []LandlockRule {
	c := &s.closures
	c.mu.Lock()
	rules, ok := c.allow[path]
	c.mu.Unlock()
	if ok {
		return rules
	}
	seen := map[string]bool{}
	for _, bin := range s.opts.ShellAllow {
		for _, f := range lookPathAll(bin, path) {
			if f = canonical(f); !seen[f] {
				seen[f] = true
				rules = append(rules, execRules(c.closureOf(f))...)
			}
		}
	}
	rules = append(rules, runtimeRules(s.opts.InterpreterRuntime)...)
	c.mu.Lock()
	if c.allow == nil {
		c.allow = map[string][]LandlockRule{}
	}
	c.allow[path] = rules
	c.mu.Unlock()
	return rules
}

// lookPathAll is every executable regular file called bin in the
// absolute folders of path, in order. A bin with a slash is not looked up.
func lookPathAll(bin, path string) []string {
	if bin == "" || strings.ContainsRune(bin, '/') {
		return nil
	}
	var out []string
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, bin)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			out = append(out, p)
		}
	}
	return out
}

// envValue is the last value of key in env ("K=V" entries).
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
