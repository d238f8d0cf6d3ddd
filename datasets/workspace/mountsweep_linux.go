//go:build linux

package workspace

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// overlayProbe checks that this process can mount overlays in layers (a
// harness-private folder): root, in the private mount namespace token
// names, and the kernel mounts one (a small one is mounted, written and
// unmounted). Stale mounts under runDir, left in this namespace, are
// detached first.
func overlayProbe(runDir, layers, token string) error {
	switch {
	case os.Geteuid() != 0:
		return errors.New("murmur-eval is not root")
	case !InPrivateMountNS(token):
		return errors.New("murmur-eval is not in a mount namespace of its own (it enters one at start when root; the kernel refused, or it was started another way)")
	}
	sweepMounts(runDir)
	if err := os.RemoveAll(layers); err != nil {
		return err
	}
	if err := os.Mkdir(layers, 0o700); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(layers, "probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, d := range []string{"lower", "upper", "work", "merged"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return err
		}
	}
	merged := filepath.Join(dir, "merged")
	if err := mountOverlay(filepath.Join(dir, "lower"), filepath.Join(dir, "upper"), filepath.Join(dir, "work"), merged); err != nil {
		return err
	}
	err = os.WriteFile(filepath.Join(merged, "probe"), nil, 0o600)
	return errors.Join(err, unmount(merged))
}

// sweepMounts detaches every mount under dir listed in this process's
// mount table (a run killed outside a private namespace of its own).
func sweepMounts(dir string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		p := unescapeMountPath(fields[4])
		if p != dir && strings.HasPrefix(p, dir+"/") {
			points = append(points, p)
		}
	}
	// Deepest first.
	slices.SortFunc(points, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, p := range points {
		_ = unix.Unmount(p, unix.UMOUNT_NOFOLLOW|unix.MNT_DETACH)
	}
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, c := range s[i+1 : i+4] {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + byte(c-'0')
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
