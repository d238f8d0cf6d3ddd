package session

import (
	"strings"

	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// appendedLogs are the session files murmur-eval appends to by name
// during a case (docs/sandbox.md, "Host-side file access"), besides the
// trace, which it holds open and Close checks; logs/hook-<name>.log,
// where the case has hooks, are found in logs/.
func appendedLogs() []string {
	return []string{"logs/bootstrap.log", "logs/components.jsonl", "out/compaction-summaries.jsonl"}
}

// maxLogEntries bounds the listing of logs/ for hook logs: a tool may
// fill the folder.
const maxLogEntries = 4096

// unplantLogs removes what a tool planted at the names of the logs
// murmur-eval appended to (a link, a FIFO, a folder, a hard link), so no
// kept session presents one as murmur-eval's, and records each as a
// session_file_replaced event: a note about the session, not the model's
// failure. It runs before the trace is closed, once no tool runs; hooks
// says the case has hooks, whose logs are looked for too.
func unplantLogs(dir string, tr *trace.Writer, hooks bool) error {
	// The usual case, nothing planted, costs a few lstat calls and a
	// listing of logs/, not a Root's walk of each name (BENCHMARKS.md).
	logs := appendedLogs()
	if hooks {
		logs = append(logs, "logs/hook-*.log")
	}
	if sessionfs.Intact(dir, []string{"logs", "out"}, logs) {
		return nil
	}
	r, err := sessionfs.Open(dir)
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	note := func(n, found string, err error) error {
		if found != "" {
			if werr := tr.SessionFileReplaced(trace.SessionFileReplaced{Path: n, Found: found}); err == nil {
				err = werr
			}
		}
		return err
	}
	for _, d := range []string{"logs", "out"} {
		found, err := r.UnplantFolder(d)
		if err := note(d, found, err); err != nil {
			return err
		}
	}
	names := appendedLogs()
	if hooks {
		des, _ := r.ReadDir("logs", maxLogEntries) // logs/ is a real folder now, or absent
		for _, de := range des {
			if n := de.Name(); strings.HasPrefix(n, "hook-") && strings.HasSuffix(n, ".log") {
				names = append(names, "logs/"+n)
			}
		}
	}
	for _, n := range names {
		found, err := r.Unplant(n)
		if err := note(n, found, err); err != nil {
			return err
		}
	}
	return nil
}
