// Command files is a test tool that probes what filesystem the sandbox gives
// it: it reads /in.txt, writes /out.txt and /sub/nested.txt, lists "/", and
// tries to reach the host through absolute paths, ".." and symlinks. It
// prints a JSON object describing what happened.
package main

import (
	"encoding/json"
	"os"
)

func readErr(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "error"
	}
	return "read:" + string(b[:min(len(b), 32)])
}

func main() {
	r := map[string]any{}
	if b, err := os.ReadFile("/in.txt"); err == nil {
		r["in"] = string(b)
	} else {
		r["in"] = "error: " + err.Error()
	}
	r["write"] = "ok"
	if err := os.WriteFile("/out.txt", []byte("written by guest"), 0o644); err != nil {
		r["write"] = err.Error()
	}
	if err := os.MkdirAll("/sub", 0o755); err == nil {
		if err := os.WriteFile("/sub/nested.txt", []byte("nested"), 0o644); err != nil {
			r["write"] = err.Error()
		}
	}
	var names []string
	if ents, err := os.ReadDir("/"); err == nil {
		for _, e := range ents {
			names = append(names, e.Name())
		}
	}
	r["root"] = names
	r["etc_passwd"] = readErr("/etc/passwd")
	r["dotdot_rel"] = readErr("../../../../../../etc/passwd")
	r["dotdot_abs"] = readErr("/../../../../etc/passwd")
	r["symlink_abs_create"] = "ok"
	if err := os.Symlink("/etc/passwd", "/abs-link"); err != nil {
		r["symlink_abs_create"] = "error"
	}
	r["symlink_abs_read"] = readErr("/abs-link")
	r["symlink_rel_create"] = "ok"
	if err := os.Symlink("../../../../../../../../etc/passwd", "/rel-link"); err != nil {
		r["symlink_rel_create"] = "error"
	}
	r["symlink_rel_read"] = readErr("/rel-link")
	r["hardlink_create"] = "ok"
	if err := os.Link("../../../../../../../../etc/passwd", "/hard-link"); err != nil {
		r["hardlink_create"] = "error"
	}
	r["hardlink_read"] = readErr("/hard-link")
	json.NewEncoder(os.Stdout).Encode(r)
}
