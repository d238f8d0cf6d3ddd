package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// checkCall is the workdir guard of p while it runs: dir (the session, or
// its overlay's upper layer) measured against p's workdir_max_bytes and
// workdir_max_files, with the deleted files the call's processes (pids)
// hold added in. A nil pids checks the folder alone.
func checkCall(dir string, p Proc, pids func() ([]int, error)) error {
	r := p.Resources
	if r.WorkdirMaxBytes == 0 && r.WorkdirMaxFiles == 0 {
		return nil
	}
	var held Held
	if pids != nil {
		list, err := pids()
		if err == nil {
			held, err = heldFiles(list, sessionDevs(p.SessionDir, p.Layer), []string{p.SessionDir, p.Layer})
		}
		if err != nil {
			return errcode.Wrap(errcode.RunWorkdirSize, err, "the files a tool holds open cannot be measured against the session's bounds (capabilities.resources.workdir_max_bytes)").
				WithHint("run murmur-eval as root, or as the user the tools run as")
		}
	}
	return checkUsage(dir, r, held)
}

// sessionDevs are the devices of the session folder and of its overlay's
// upper layer: a file opened through an overlay reports the overlay's
// device or the upper file system's.
func sessionDevs(dirs ...string) []uint64 {
	var devs []uint64
	for _, d := range dirs {
		var st unix.Stat_t
		if d != "" && unix.Stat(d, &st) == nil {
			devs = append(devs, st.Dev)
		}
	}
	return devs
}

// callPIDs lists root and every process below it, for checkCall. The tool
// is PID 1 of its own PID namespace, where every orphan is reparented to
// it, so its descendants are the whole namespace.
func callPIDs(root int) func() ([]int, error) {
	return func() ([]int, error) { return descendants(root) }
}

// descendants is root and its descendants, found through each thread's
// /proc/<pid>/task/<tid>/children. A process that ended meanwhile is left
// out (the walk is a snapshot, repeated every tick); root gone is none.
func descendants(root int) ([]int, error) {
	out := []int{}
	buf := make([]byte, 0, 256)
	seen := map[int]bool{}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		dir := "/proc/" + strconv.Itoa(pid) + "/task"
		tids, err := readDirNames(dir)
		if err != nil {
			if gone(err) {
				continue
			}
			return nil, err
		}
		out = append(out, pid)
		for _, tid := range tids {
			b, err := readProcFile(dir+"/"+tid+"/children", buf)
			if err != nil {
				if gone(err) {
					continue
				}
				return nil, err
			}
			for _, f := range bytes.Fields(b) {
				if c, err := strconv.Atoi(string(f)); err == nil {
					queue = append(queue, c)
				}
			}
		}
	}
	return out, nil
}

// fileKey names a file across processes.
type fileKey struct{ dev, ino uint64 }

// heldFiles sums the deleted regular files (st_nlink 0) that pids have
// open (/proc/<pid>/fd) or mapped (/proc/<pid>/maps, then map_files) on
// one of devs, or under one of roots by the kernel's name for them. A
// file memfd_create made is on no such device and is memory, not disk.
// Descriptors that close and processes that end while it reads are
// skipped; a process whose descriptors cannot be read is an error.
func heldFiles(pids []int, devs []uint64, roots []string) (Held, error) {
	var h Held
	seen := map[fileKey]bool{}
	buf := make([]byte, 0, 8<<10)
	add := func(path string, st *unix.Stat_t) {
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 0 {
			return
		}
		k := fileKey{st.Dev, st.Ino}
		if seen[k] || !onSession(path, st.Dev, devs, roots) {
			return
		}
		seen[k] = true
		h.Files++
		h.Bytes += uint64(max(st.Blocks, 0)) * 512
	}
	for _, pid := range pids {
		proc := "/proc/" + strconv.Itoa(pid)
		fds, err := readDirNames(proc + "/fd")
		if err != nil {
			if gone(err) {
				continue
			}
			return h, err
		}
		for _, fd := range fds {
			var st unix.Stat_t
			path := proc + "/fd/" + fd
			if unix.Stat(path, &st) == nil {
				add(path, &st)
			}
		}
		// A file mapped, then closed and unlinked, keeps its blocks and
		// can still grow through the mapping (a sparse file's pages).
		maps, err := readProcFile(proc+"/maps", buf)
		if err != nil {
			continue
		}
		buf = maps
		for line := range bytes.Lines(maps) {
			if !bytes.HasSuffix(line, []byte(" (deleted)\n")) {
				continue
			}
			f := strings.Fields(string(line))
			if len(f) < 6 || f[4] == "0" {
				continue
			}
			var st unix.Stat_t
			path := proc + "/map_files/" + f[0]
			// map_files needs CAP_SYS_ADMIN: without it mappings go uncounted.
			if unix.Stat(path, &st) == nil {
				add(path, &st)
			}
		}
	}
	return h, nil
}

// onSession says whether a deleted file (link: its /proc link) was on the
// session's device, or named below one of roots when it was deleted.
func onSession(link string, dev uint64, devs []uint64, roots []string) bool {
	for _, d := range devs {
		if d == dev {
			return true
		}
	}
	target, err := os.Readlink(link)
	if err != nil {
		return false
	}
	for _, r := range roots {
		if r != "" && strings.HasPrefix(target, r+"/") {
			return true
		}
	}
	return false
}

// readDirNames lists a /proc folder. Raw system calls: os.Open's set-up
// of a file (fcntl, the poller) was a third of a tick's process scan.
func readDirNames(dir string) ([]string, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	var names []string
	var buf [4 << 10]byte
	for {
		n, err := unix.Getdents(fd, buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "getdents", Path: dir, Err: err}
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// readProcFile reads a /proc file whole into buf's storage, with raw
// system calls (see readDirNames).
func readProcFile(path string, buf []byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// gone reports an error of a process or descriptor that no longer exists.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH)
}
