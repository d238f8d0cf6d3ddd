package contain

import (
	"slices"
	"strings"

	"github.com/murmur-nexus/murmur-eval/sandbox"
	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// noteDropped appends one warning line to the session's logs/bootstrap.log
// for each variable left out of a guest's environment because its value
// held one of the run's secrets (sandbox.Secrets.Filter): the variable and
// what the secret is, never the value. Nothing is written when nothing was
// dropped, the usual case. The line is a note for whoever reads the kept
// session: the case runs on, without the variable.
func noteDropped(sessionDir string, dropped []sandbox.Dropped) {
	if len(dropped) == 0 || sessionDir == "" {
		return
	}
	var b strings.Builder
	var seen []string
	for _, d := range dropped {
		if slices.Contains(seen, d.Name) {
			continue
		}
		seen = append(seen, d.Name)
		b.WriteString("[murmur-eval] warning: " + d.Name + " left out of the tools' environment: its value holds " +
			d.Source + " (a credential of the run; only the driver gets the API key)\n")
	}
	// A note: a session folder that cannot take it still runs.
	_ = sessionfs.AppendFile(sessionDir, "logs/bootstrap.log", []byte(b.String()), 0o644)
}
