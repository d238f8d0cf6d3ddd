package launch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/process"
	"github.com/murmur-nexus/murmur-eval/session"
)

// WithHostEnv sets the environment a transport: process CLI inherits and
// whose PATH its command is looked up on: murmur-eval's own, as murmur's
// CLI inherits the host's. It returns s.
func (s *Stage) WithHostEnv(env map[string]string) *Stage {
	s.env = env
	return s
}

// processCLI resolves a transport: process capsule's command once per
// run: the codex dialect is refused (E-EVL-017), a command not on PATH is
// E-RUN-006, as murmur's mur run refuses it.
func (s *Stage) processCLI(ctx context.Context, m *capsule.Manifest) (*session.ProcessCLI, error) {
	inf := m.Inference
	if inf.Transport != capsule.TransportProcess {
		return nil, errcode.New(errcode.Internal, "launch: no model provider for transport %q", inf.Transport)
	}
	// Memoised for the run: one look-up, and the same refusal in every row.
	path, err := s.cli.Get(ctx, func(context.Context) (string, error) {
		if process.DialectOf(inf.Command) == process.DialectCodex {
			return "", errcode.New(errcode.ProviderDriver, "inference.command %q selects murmur's codex dialect, which murmur-eval does not serve", inf.Command).
				WithHint("use Claude Code (command: claude), or replay recorded turns with --replay DIR")
		}
		path := inf.Command
		if !strings.Contains(path, "/") {
			path = lookPath(path, s.env["PATH"])
		} else {
			if !filepath.IsAbs(path) {
				path = filepath.Join(m.Dir, path)
			}
			if st, err := os.Stat(path); err != nil || st.IsDir() {
				path = ""
			}
		}
		if path == "" {
			return "", errcode.New(errcode.RunDriverAbsent, "inference.command %q is not on PATH (%s)", inf.Command, s.env["PATH"]).
				WithHint("install it (Claude Code: npm install -g @anthropic-ai/claude-code) or put its folder on PATH")
		}
		return path, nil
	})
	if err != nil {
		return nil, err
	}
	return &session.ProcessCLI{Path: path, Env: envList(s.env)}, nil
}

// envList is env as sorted KEY=value lines.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// setupAgent resolves the CLI of a capsule whose model source left the
// model to it (model is nil).
func (s *Stage) setupAgent(ctx context.Context, m *capsule.Manifest, model inference.Provider) (*session.ProcessCLI, error) {
	if model != nil {
		return nil, nil
	}
	return s.processCLI(ctx, m)
}
