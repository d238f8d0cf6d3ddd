package cgroup

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// devOf is the device number of the file system holding path.
func devOf(path string) (uint64, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, false
	}
	return st.Dev, true
}

// diskOf returns "MAJ:MIN" of the disk of device dev, and false when it is
// no block device the throttle could name: major 0 (tmpfs, overlayfs,
// btrfs and NFS use anonymous device numbers) or a number /sys/dev/block
// does not list. Both io.max and v1's blkio.throttle refuse a partition
// (ENODEV), so a partition is named by its disk.
func diskOf(dev uint64) (string, bool) {
	major, minor := unix.Major(dev), unix.Minor(dev)
	if major == 0 {
		return "", false
	}
	name := fmt.Sprintf("%d:%d", major, minor)
	sys := "/sys/dev/block/" + name
	if _, err := os.Lstat(sys); err != nil {
		return "", false
	}
	if _, err := os.Stat(sys + "/partition"); err == nil {
		// The link resolves into the partition's folder, inside its disk's.
		b, err := os.ReadFile(sys + "/../dev")
		if err != nil {
			return "", false
		}
		name = strings.TrimSpace(string(b))
	}
	return name, true
}
