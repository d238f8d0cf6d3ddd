// Command escape is a test tool that tries to leave its folder through the
// links a shell tool could have planted there (see TestGuestCannotLeave),
// and checks that links and files inside the folder still work. argv[1] is
// the host path of a folder outside the guest's. It prints a JSON object:
// attempt name -> "ok", "ok:<data>" or "err:<ERRNO>".
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	outside := os.Args[1]
	host := "/hostroot" + outside // through "hostroot -> /"
	r := map[string]string{}
	try := func(k string, f func() (string, error)) {
		s, err := f()
		if err != nil {
			r[k] = "err:" + errName(err)
			return
		}
		r[k] = "ok" + s
	}
	read := func(p string) func() (string, error) {
		return func() (string, error) {
			b, err := os.ReadFile(p)
			return ":" + string(b[:min(len(b), 40)]), err
		}
	}
	write := func(p string) func() (string, error) {
		return func() (string, error) { return "", os.WriteFile(p, []byte("guest"), 0o644) }
	}
	list := func(p string) func() (string, error) {
		return func() (string, error) {
			ents, err := os.ReadDir(p)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			return ":" + strings.Join(names, ","), err
		}
	}
	stat := func(p string) func() (string, error) {
		return func() (string, error) { _, err := os.Stat(p); return "", err }
	}
	do := func(err error) func() (string, error) { return func() (string, error) { return "", err } }

	// Reads through links and paths that leave the folder.
	try("read_host_secret", read(host+"/secret.txt"))
	try("read_host_shadow", read("/hostroot/etc/shadow"))
	try("read_host_passwd", read("/hostroot/etc/passwd"))
	try("read_abs", read("/abs"))
	try("read_abs_passwd", read("/abspasswd"))
	try("read_rel", read("/rel"))
	try("read_rel_passwd", read("/relpasswd"))
	try("read_sub_escape", read("/sub/esc/secret.txt"))
	try("read_out", read("/out/secret.txt"))
	try("read_outrel", read("/outrel/secret.txt"))
	try("read_loop", read("/loop1"))
	try("stat_abs", stat("/abs"))
	try("stat_host_etc", stat("/hostroot/etc"))
	try("list_hostroot", list("/hostroot"))
	try("list_host", list(host))
	try("list_out", list("/out"))
	try("list_outrel", list("/outrel"))
	try("list_sub_escape", list("/sub/esc"))

	// Writes, creations and changes through them.
	try("write_abs", write("/abs"))
	try("write_rel", write("/rel"))
	try("write_out_new", write("/out/created.txt"))
	try("write_outrel_new", write("/outrel/created.txt"))
	try("write_host_new", write(host+"/created.txt"))
	try("write_dangle", write("/dangle"))
	try("write_dangle_rel", write("/danglerel"))
	try("append_abs", func() (string, error) {
		f, err := os.OpenFile("/abs", os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return "", err
		}
		defer f.Close()
		_, err = f.WriteString("guest")
		return "", err
	})
	try("truncate_abs", do(os.Truncate("/abs", 0)))
	try("chtimes_abs", do(os.Chtimes("/abs", time.Unix(1, 0), time.Unix(1, 0))))
	try("chtimes_out", do(os.Chtimes("/out/secret.txt", time.Unix(1, 0), time.Unix(1, 0))))
	try("mkdir_out", do(os.Mkdir("/out/newdir", 0o755)))
	try("mkdir_host", do(os.Mkdir(host+"/newdir", 0o755)))
	try("mkdirall_out", do(os.MkdirAll("/outrel/a/b", 0o755)))
	try("own_create", write("/mine.txt"))
	try("rename_into_out", do(os.Rename("/mine.txt", "/out/moved.txt")))
	try("rename_from_out", do(os.Rename("/out/secret.txt", "/stolen.txt")))
	try("rename_from_host", do(os.Rename(host+"/secret.txt", "/stolen2.txt")))
	try("link_from_out", do(os.Link("/out/secret.txt", "/hardlink.txt")))
	try("link_into_out", do(os.Link("/mine.txt", "/out/hardlink.txt")))
	try("remove_out", do(os.Remove("/out/secret.txt")))
	try("remove_host", do(os.Remove(host+"/secret.txt")))
	try("symlink_create", do(os.Symlink("sub/file", "/newlink")))
	try("fifo_read", read("/fifo"))
	try("fifo_write", write("/fifo"))

	// What must keep working inside the folder.
	try("read_inside", read("/inside"))
	try("read_insidedir", read("/insidedir/file"))
	try("read_sub_up", read("/sub/up"))
	try("read_chain", read("/chain1"))
	try("lstat_abs", func() (string, error) { _, err := os.Lstat("/abs"); return "", err })
	try("readlink_abs", func() (string, error) { s, err := os.Readlink("/abs"); return ":" + s, err })
	try("list_insidedir", list("/insidedir"))
	try("write_inside", func() (string, error) {
		if err := os.WriteFile("/inside", []byte("rewritten through inside"), 0o644); err != nil {
			return "", err
		}
		return read("/sub/file")()
	})
	deep := "/deep" + strings.Repeat("/d", 100)
	try("read_deep", read(deep+"/file"))
	try("write_deep", func() (string, error) {
		if err := os.WriteFile(deep+"/new.txt", []byte("deep"), 0o644); err != nil {
			return "", err
		}
		return read(deep + "/new.txt")()
	})
	r["own_ops"] = "ok"
	if stage, err := ownOps(); stage != "" {
		r["own_ops"] = fmt.Sprintf("failed at %s: %v", stage, err)
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

// ownOps exercises a guest's ordinary file work in its own folder: mkdir,
// write, seek, append, truncate, rename, times, readdir, unlink, rmdir. It
// returns the stage that failed, or "".
func ownOps() (string, error) {
	if err := os.MkdirAll("/work/a", 0o755); err != nil {
		return "mkdir", err
	}
	f, err := os.OpenFile("/work/a/f.txt", os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "create", err
	}
	if _, err := f.WriteString("0123456789"); err != nil {
		return "write", err
	}
	if _, err := f.Seek(3, io.SeekStart); err != nil {
		return "seek", err
	}
	b := make([]byte, 4)
	if _, err := io.ReadFull(f, b); err != nil || string(b) != "3456" {
		return "read after seek " + string(b), err
	}
	if _, err := f.WriteAt([]byte("AB"), 0); err != nil {
		return "pwrite", err
	}
	if err := f.Truncate(8); err != nil {
		return "ftruncate", err
	}
	f.Close()
	a, err := os.OpenFile("/work/a/f.txt", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return "open append", err
	}
	if _, err := a.WriteString("+"); err != nil {
		return "append", err
	}
	a.Close()
	if got, err := os.ReadFile("/work/a/f.txt"); err != nil || string(got) != "AB234567+" {
		return "content " + string(got), err
	}
	if err := os.Truncate("/work/a/f.txt", 2); err != nil {
		return "truncate", err
	}
	if err := os.Chtimes("/work/a/f.txt", time.Unix(1000, 0), time.Unix(2000, 0)); err != nil {
		return "chtimes", err
	}
	if fi, err := os.Stat("/work/a/f.txt"); err != nil || fi.Size() != 2 || fi.ModTime().Unix() != 2000 {
		return "stat", err
	}
	if err := os.Rename("/work/a/f.txt", "/work/g.txt"); err != nil {
		return "rename", err
	}
	if err := os.Link("/work/g.txt", "/work/h.txt"); err != nil {
		return "link", err
	}
	ents, err := os.ReadDir("/work")
	if err != nil {
		return "readdir", err
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a", "g.txt", "h.txt"}) {
		return "readdir " + strings.Join(names, ","), errors.New("wrong listing")
	}
	if err := os.Remove("/work/g.txt"); err != nil {
		return "unlink", err
	}
	if err := os.Remove("/work/a"); err != nil {
		return "rmdir", err
	}
	if err := os.RemoveAll("/work"); err != nil {
		return "removeall", err
	}
	if _, err := os.Stat("/work"); !errors.Is(err, os.ErrNotExist) {
		return "still there", err
	}
	return "", nil
}

// errName names the errno inside err.
func errName(err error) string {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return "other:" + err.Error()
	}
	for _, n := range []struct {
		e    syscall.Errno
		name string
	}{
		{syscall.EPERM, "EPERM"}, {syscall.EACCES, "EACCES"}, {syscall.ENOENT, "ENOENT"},
		{syscall.ELOOP, "ELOOP"}, {syscall.EISDIR, "EISDIR"}, {syscall.ENOTDIR, "ENOTDIR"},
		{syscall.EEXIST, "EEXIST"}, {syscall.ENOSYS, "ENOSYS"}, {syscall.EBADF, "EBADF"},
		{syscall.EINVAL, "EINVAL"}, {syscall.EXDEV, "EXDEV"}, {syscall.ENXIO, "ENXIO"},
		{syscall.ENOTEMPTY, "ENOTEMPTY"}, {syscall.EIO, "EIO"},
	} {
		if en == n.e {
			return n.name
		}
	}
	return "errno " + en.Error()
}
