package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// cleanPath checks a note path from the model: relative, "/"-separated, no
// ".." and not the notes folder itself. It returns the cleaned path.
func cleanPath(p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return "", errors.New(`"path" is required, e.g. "todo.md"`)
	case strings.HasPrefix(p, "/"):
		return "", fmt.Errorf("path %q is absolute; give a path relative to notes/", p)
	case strings.ContainsAny(p, "\\\x00"):
		return "", fmt.Errorf(`path %q contains a backslash or NUL; use "/" between folders`, p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", fmt.Errorf("path %q contains '..'; notes stay inside notes/", p)
		}
	}
	clean := path.Clean(p)
	if clean == "." {
		return "", fmt.Errorf("path %q names the notes folder, not a note", p)
	}
	return clean, nil
}

func write(dir string, req request) toolResult {
	name, err := cleanPath(req.Path)
	if err != nil {
		return failed(err.Error())
	}
	if req.Content == nil {
		return failed(`"content" is required for "write"`)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return broken(err)
	}
	// os.Root also refuses symlinks that lead out of the notes folder.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return broken(err)
	}
	defer root.Close()
	if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
		return broken(err)
	}
	if err := root.WriteFile(name, []byte(*req.Content), 0o644); err != nil {
		return broken(err)
	}
	msg := fmt.Sprintf("wrote %d bytes to notes/%s", len(*req.Content), name)
	return toolResult{Status: "passed", Summary: msg, Data: msg}
}

func read(dir string, req request) toolResult {
	name, err := cleanPath(req.Path)
	if err != nil {
		return failed(err.Error())
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return failed(fmt.Sprintf("no note at notes/%s (no notes written yet)", name))
	} else if err != nil {
		return broken(err)
	}
	defer root.Close()
	b, err := root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return failed(fmt.Sprintf("no note at notes/%s", name))
	} else if err != nil {
		return failed(fmt.Sprintf("cannot read notes/%s: %v", name, err))
	}
	return toolResult{Status: "passed", Summary: fmt.Sprintf("read %d bytes from notes/%s", len(b), name), Data: string(b)}
}

func list(dir string) toolResult {
	var names []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			names = append(names, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return broken(err)
	}
	if len(names) == 0 {
		return toolResult{Status: "passed", Summary: "no notes yet", Data: "no notes yet"}
	}
	sort.Strings(names)
	summary := fmt.Sprintf("%d notes", len(names))
	if len(names) == 1 {
		summary = "1 note"
	}
	return toolResult{Status: "passed", Summary: summary, Data: strings.Join(names, "\n")}
}
