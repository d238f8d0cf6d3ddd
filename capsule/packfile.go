package capsule

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// ArchiveSuffix ends every artifact archive's file name.
const ArchiveSuffix = ".mur.zip"

// SidecarPath returns the .sha256 sidecar's path for an archive path:
// echo-1.0.0.mur.zip has echo-1.0.0.sha256, as in a store.
func SidecarPath(archive string) string {
	return strings.TrimSuffix(archive, ArchiveSuffix) + ".sha256"
}

// WriteArchive writes p's zip to out, which must end in .mur.zip (E-IO-003,
// as `mur build` requires), and its sidecar beside it (lowercase hex SHA-256
// and a newline), each through a synced temporary file and a rename. It
// returns the sidecar's path.
func WriteArchive(p *Packed, out string) (string, error) {
	if !strings.HasSuffix(out, ArchiveSuffix) || filepath.Base(out) == ArchiveSuffix {
		return "", errcode.New(errcode.IO, "output path '%s' must end with %s", out, ArchiveSuffix).
			WithHint("name the archive like %s-%s%s", p.Manifest.Name, p.Manifest.Version, ArchiveSuffix)
	}
	dir := filepath.Dir(out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", errcode.Wrap(errcode.IO, err, "failed to create %s", dir)
	}
	if err := writeAtomic(dir, filepath.Base(out), p.Zip); err != nil {
		return "", err
	}
	sidecar := SidecarPath(out)
	if err := writeAtomic(dir, filepath.Base(sidecar), []byte(SHA256Hex(p.Zip)+"\n")); err != nil {
		return "", err
	}
	return sidecar, nil
}

// isExcluded reports whether path is one of the excluded files.
func isExcluded(path string, exclude []string) bool {
	if len(exclude) == 0 {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(exclude, func(x string) bool {
		ax, err := filepath.Abs(x)
		return err == nil && ax == abs
	})
}

// buildLints returns `mur build`'s W-BLD-002 and W-BLD-003 for the packed
// entry names.
func buildLints(am *ArtifactManifest, names []string) []string {
	var out []string
	var roots []string
	for _, n := range names {
		if strings.HasSuffix(n, ".wasm") && !strings.Contains(n, "/") {
			roots = append(roots, n)
		}
	}
	if slices.Contains(roots, "capsule.wasm") && len(roots) > 1 {
		out = append(out, fmt.Sprintf("W-BLD-002: capsule.wasm shadows the other root .wasm files (%s); only capsule.wasm is loaded",
			strings.Join(slices.DeleteFunc(slices.Clone(roots), func(r string) bool { return r == "capsule.wasm" }), ", ")))
	}
	if p := am.Packaging(); p == ExecutionWasm || p == ExecutionNative {
		for _, n := range names {
			base := n[strings.LastIndex(n, "/")+1:]
			if base == "Cargo.toml" || base == "Cargo.lock" || strings.HasSuffix(n, ".rs") ||
				n == "target" || strings.HasPrefix(n, "target/") {
				out = append(out, fmt.Sprintf("W-BLD-003: %s artifact packs build input '%s'; ship the built payload only", p, n))
			}
		}
	}
	return out
}
