"""The system calls seccomp must keep denying, each called raw by number.
Arguments are chosen so that a permitted call fails harmlessly (a NULL
pointer, a bad descriptor) instead of doing anything."""

from eclib import grade_denied_syscall, read_small


def io_uring_setup(out):
    # io_uring has bypassed LSM hooks before: reachable, it is a way around
    # Landlock itself. A permitted call gets EFAULT for the NULL params.
    grade_denied_syscall(out, "io_uring_setup", (1, 0))


def userfaultfd(out):
    grade_denied_syscall(out, "userfaultfd", (0,),
                         "(vm.unprivileged_userfaultfd %s: 0 refuses unprivileged callers by itself)"
                         % read_small("/proc/sys/vm/unprivileged_userfaultfd"))


def bpf(out):
    grade_denied_syscall(out, "bpf", (0, 0, 0), "(without CAP_BPF the kernel says EPERM by itself)")


def open_by_handle_at(out):
    # With CAP_DAC_READ_SEARCH this opens any inode by handle, past every
    # path check. AT_FDCWD, NULL handle.
    grade_denied_syscall(out, "open_by_handle_at", (-100, 0, 0),
                         "(without CAP_DAC_READ_SEARCH the kernel says EPERM by itself)")


def perf_event_open(out):
    grade_denied_syscall(out, "perf_event_open", (0, 0, -1, -1, 0),
                         "(kernel.perf_event_paranoid %s)"
                         % read_small("/proc/sys/kernel/perf_event_paranoid"))


def keyctl(out):
    # KEYCTL_GET_KEYRING_ID of the session keyring, no create: any user may
    # normally ask, so EPERM is the filter's.
    grade_denied_syscall(out, "keyctl", (0, -3, 0))


CASES = {
    "syscall-io-uring-setup": io_uring_setup,
    "syscall-userfaultfd": userfaultfd,
    "syscall-bpf": bpf,
    "syscall-open-by-handle-at": open_by_handle_at,
    "syscall-perf-event-open": perf_event_open,
    "syscall-keyctl": keyctl,
}
