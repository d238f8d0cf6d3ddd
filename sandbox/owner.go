package sandbox

import (
	"os"

	"github.com/murmur-nexus/murmur-eval/sandbox/sessionfs"
)

// handOver makes the session's folders writable by the subprocess's
// unprivileged uid: each directory under dir is chowned to uid, except the
// staged tools/ tree, by descriptor (sessionfs.ChownDirs), so a link the
// tool swapped in never turns the chown on a host folder. Files stay as
// they are: the files the harness wrote (trace.jsonl, the tools' hard
// links shared with other cases) remain the evaluator's and read-only to
// the tool; only task.md, written 0600, is given to the tool so that it,
// and no other user of the host, can read its task. With layer (an
// overlaid session's upper layer) only the folders the case created or
// copied up are looked at: the base's were given to uid once per run.
func handOver(dir, layer string, uid int) error {
	if uid == os.Getuid() {
		return nil
	}
	var err error
	if layer != "" {
		err = sessionfs.ChownLayerDirs(dir, layer, uid, uid, "tools")
	} else {
		err = sessionfs.ChownDirs(dir, uid, uid, "tools")
	}
	if err != nil {
		return err
	}
	r, err := sessionfs.Open(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.GiveFile("task.md", uid, uid)
}
