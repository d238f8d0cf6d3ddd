//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompVerdict runs the assembled filter for info in x/net/bpf's
// interpreter on one system call. The interpreter loads 32-bit words big
// endian, so each word of seccomp_data is laid out that way.
func seccompVerdict(t *testing.T, info *arch.Info, spec seccompSpec, name string, args ...uint64) uint32 {
	t.Helper()
	insts, err := seccompAssemble(info, seccompRules(spec))
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatal(err)
	}
	nr, ok := info.SyscallNames[name]
	if !ok {
		t.Fatalf("%s has no %s", info.Name, name)
	}
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[offNr:], uint32(nr))
	binary.BigEndian.PutUint32(data[offArch:], uint32(info.ID))
	for i, a := range args {
		lo, hi := argLoOffset(i), uint32(16+8*i)
		if hi == lo {
			hi += 4
		}
		binary.BigEndian.PutUint32(data[lo:], uint32(a))
		binary.BigEndian.PutUint32(data[hi:], uint32(a>>32))
	}
	v, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(v)
}

func TestSeccompRules(t *testing.T) {
	eacces, enosys := retErrno(unix.EACCES), retErrno(unix.ENOSYS)
	atCWD := uint64(0xffffff9c)
	cases := []struct {
		name  string
		spec  seccompSpec
		call  string
		args  []uint64
		want  uint32
		archs string // "" both, else only this one
	}{
		{"read", seccompSpec{}, "read", nil, retAllow, ""},
		{"execve", seccompSpec{}, "execve", nil, retAllow, ""},
		{"ptrace", seccompSpec{}, "ptrace", nil, retEPERM, ""},
		{"mount", seccompSpec{}, "mount", nil, retEPERM, ""},
		{"umount2", seccompSpec{}, "umount2", nil, retEPERM, ""},
		{"unshare", seccompSpec{}, "unshare", []uint64{unix.CLONE_NEWUSER}, retEPERM, ""},
		{"setns", seccompSpec{}, "setns", nil, retEPERM, ""},
		{"bpf", seccompSpec{}, "bpf", nil, retEPERM, ""},
		{"io_uring_setup", seccompSpec{}, "io_uring_setup", nil, retEPERM, ""},
		{"io_uring_enter", seccompSpec{}, "io_uring_enter", nil, retEPERM, ""},
		{"keyctl", seccompSpec{}, "keyctl", nil, retEPERM, ""},
		{"add_key", seccompSpec{}, "add_key", nil, retEPERM, ""},
		{"request_key", seccompSpec{}, "request_key", nil, retEPERM, ""},
		{"perf_event_open", seccompSpec{}, "perf_event_open", nil, retEPERM, ""},
		{"kexec_load", seccompSpec{}, "kexec_load", nil, retEPERM, ""},
		{"init_module", seccompSpec{}, "init_module", nil, retEPERM, ""},
		{"userfaultfd", seccompSpec{}, "userfaultfd", nil, retEPERM, ""},
		{"process_vm_readv", seccompSpec{}, "process_vm_readv", nil, retEPERM, ""},
		{"clone thread", seccompSpec{}, "clone", []uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}, retAllow, ""},
		{"clone newuser", seccompSpec{}, "clone", []uint64{unix.CLONE_NEWUSER}, retEPERM, ""},
		{"clone newnet", seccompSpec{}, "clone", []uint64{unix.CLONE_NEWNET | uint64(unix.SIGCHLD)}, retEPERM, ""},
		{"clone3", seccompSpec{}, "clone3", nil, enosys, ""},
		{"openat2", seccompSpec{}, "openat2", nil, enosys, ""},
		{"socket inet", seccompSpec{}, "socket", []uint64{unix.AF_INET, unix.SOCK_STREAM}, retAllow, ""},
		{"socket inet6", seccompSpec{}, "socket", []uint64{unix.AF_INET6, unix.SOCK_DGRAM}, retAllow, ""},
		{"socket unix denied", seccompSpec{}, "socket", []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, retEPERM, ""},
		{"socket unix granted", seccompSpec{UnixSockets: true}, "socket", []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, retAllow, ""},
		{"socket netlink", seccompSpec{}, "socket", []uint64{unix.AF_NETLINK}, eacces, ""},
		{"socket packet", seccompSpec{}, "socket", []uint64{unix.AF_PACKET}, eacces, ""},
		{"socket alg", seccompSpec{}, "socket", []uint64{unix.AF_ALG}, retEPERM, ""},
		// The high half of an int argument is ignored by the kernel; a
		// crafted one (here the number of write) changes nothing.
		{"socket unix high garbage", seccompSpec{}, "socket", []uint64{1<<32 | unix.AF_UNIX}, retEPERM, ""},
		{"socketpair", seccompSpec{}, "socketpair", []uint64{unix.AF_UNIX}, retAllow, ""},
		{"fchmod plain", seccompSpec{}, "fchmod", []uint64{3, 0o755}, retAllow, ""},
		{"fchmod setuid", seccompSpec{}, "fchmod", []uint64{3, 0o4755}, retEPERM, ""},
		{"fchmodat setgid", seccompSpec{}, "fchmodat", []uint64{atCWD, 0, 0o2755}, retEPERM, ""},
		{"fchmodat plain", seccompSpec{}, "fchmodat", []uint64{atCWD, 0, 0o700}, retAllow, ""},
		{"fchmodat2 setuid", seccompSpec{}, "fchmodat2", []uint64{atCWD, 0, 0o4700, 0}, retEPERM, ""},
		{"mknodat setuid", seccompSpec{}, "mknodat", []uint64{atCWD, 0, unix.S_IFREG | 0o4755, 0}, retEPERM, ""},
		{"mknodat fifo", seccompSpec{}, "mknodat", []uint64{atCWD, 0, unix.S_IFIFO | 0o644, 0}, retAllow, ""},
		{"openat read garbage mode", seccompSpec{}, "openat", []uint64{atCWD, 0, unix.O_RDONLY | unix.O_CLOEXEC, 0o7777}, retAllow, ""},
		{"openat create", seccompSpec{}, "openat", []uint64{atCWD, 0, unix.O_CREAT | unix.O_WRONLY, 0o755}, retAllow, ""},
		{"openat create setuid", seccompSpec{}, "openat", []uint64{atCWD, 0, unix.O_CREAT | unix.O_WRONLY, 0o4755}, retEPERM, ""},
		{"openat tmpfile setgid", seccompSpec{}, "openat", []uint64{atCWD, 0, unix.O_TMPFILE | unix.O_RDWR, 0o2755}, retEPERM, ""},
		{"personality query", seccompSpec{}, "personality", []uint64{0xffffffff}, retAllow, ""},
		{"personality addr_no_randomize", seccompSpec{}, "personality", []uint64{0x0040000}, retEPERM, ""},
		{"chmod setuid", seccompSpec{}, "chmod", []uint64{0, 0o4755}, retEPERM, "x86_64"},
		{"chmod plain", seccompSpec{}, "chmod", []uint64{0, 0o644}, retAllow, "x86_64"},
		{"open create setuid", seccompSpec{}, "open", []uint64{0, unix.O_CREAT, 0o4755}, retEPERM, "x86_64"},
		{"creat setuid", seccompSpec{}, "creat", []uint64{0, 0o6755}, retEPERM, "x86_64"},
		{"arch_prctl", seccompSpec{}, "arch_prctl", nil, retAllow, "x86_64"},
	}
	for _, info := range []*arch.Info{arch.X86_64, arch.AARCH64} {
		for _, tc := range cases {
			if tc.archs != "" && tc.archs != info.Name {
				continue
			}
			t.Run(info.Name+"/"+tc.name, func(t *testing.T) {
				if got := seccompVerdict(t, info, tc.spec, tc.call, tc.args...); got != tc.want {
					t.Errorf("%s%v = %#x, want %#x", tc.call, tc.args, got, tc.want)
				}
			})
		}
	}
}

// TestSeccompRefusesOtherABIs: an i386 or x32 system call on x86_64 never
// reaches the allowlist.
func TestSeccompRefusesOtherABIs(t *testing.T) {
	insts, err := seccompAssemble(arch.X86_64, seccompRules(seccompSpec{}))
	if err != nil {
		t.Fatal(err)
	}
	vm, _ := bpf.NewVM(insts)
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[offArch:], uint32(arch.I386.ID))
	if v, _ := vm.Run(data); uint32(v) != retEPERM {
		t.Errorf("i386 read: %#x, want EPERM", v)
	}
	binary.BigEndian.PutUint32(data[offArch:], uint32(arch.X86_64.ID))
	binary.BigEndian.PutUint32(data[offNr:], uint32(arch.X32.SeccompMask))
	if v, _ := vm.Run(data); uint32(v) != retErrno(unix.ENOSYS) {
		t.Errorf("x32 read: %#x, want ENOSYS", v)
	}
}
