"""Routes through /proc and inherited descriptors that could reach what the
session's grant does not: the cwd and root aliases, a descriptor re-opened
with more rights, a descriptor the evaluator itself held."""

import fcntl
import os

from eclib import ALLOWED, INCONCLUSIVE, REFUSED, errname, proc_control, try_open


def proc_self_cwd_reopen(out):
    # Re-opening the cwd through its /proc alias lands in the session, which
    # is granted; that is no crossing. The crossing is walking up out of it.
    cwd_fd, reopen = try_open("/proc/self/cwd", os.O_RDONLY | os.O_DIRECTORY)
    if cwd_fd is not None:
        os.close(cwd_fd)
    # One ".." per path component of the cwd, plus one: ".." at / stays at /,
    # so the walk always ends at the root however deep the session lies.
    ups = os.getcwd().count("/") + 1
    path = "/proc/self/cwd/" + "../" * ups + "etc/passwd"
    fd, note = try_open(path)
    if fd is None:
        out.set(REFUSED, "walk out through /proc/self/cwd (%d levels up): %s; re-open of the "
                "cwd itself: %s; %s" % (ups, note, reopen, proc_control()))
        return
    got = os.read(fd, 32)
    os.close(fd)
    out.set(ALLOWED, "read %d bytes of /etc/passwd by walking %d levels up /proc/self/cwd; %s"
            % (len(got), ups, proc_control()))


def proc_pid_root_reopen(out):
    path = "/proc/%d/root/etc/passwd" % os.getpid()
    fd, note = try_open(path)
    if fd is None:
        out.set(REFUSED, "%s; %s" % (note, proc_control()))
        return
    got = os.read(fd, 32)
    os.close(fd)
    out.set(ALLOWED, "read %d bytes through %s; %s" % (len(got), path, proc_control()))


def proc_self_fd_reopen(out):
    # /dev/urandom is granted for reading only. Re-opening the descriptor
    # through /proc/self/fd for writing would turn that grant into a write
    # grant; a session file would prove nothing (it is writable anyway).
    base, note = try_open("/dev/urandom")
    if base is None:
        out.set(INCONCLUSIVE, "no read-only base descriptor to upgrade: %s; %s"
                % (note, proc_control()))
        return
    alias = "/proc/self/fd/%d" % base
    fd, upgrade = try_open(alias, os.O_RDWR)
    if fd is not None:
        os.close(fd)
        os.close(base)
        out.set(ALLOWED, "re-opened read-only /dev/urandom for writing through %s; %s"
                % (alias, proc_control()))
        return
    same, same_note = try_open(alias)
    if same is not None:
        os.close(same)
    os.close(base)
    out.set(REFUSED, "write re-open %s; same-mode re-open: %s; %s"
            % (upgrade, same_note, proc_control()))


def inherited_fd_after_exec(out):
    # The test starts murmur-eval holding a host file on descriptor 7. The
    # descriptors are listed with F_GETFD, which needs no /proc.
    limit = min(os.sysconf("SC_OPEN_MAX"), 4096)
    open_fds = []
    for fd in range(3, limit):
        try:
            fcntl.fcntl(fd, fcntl.F_GETFD)
        except OSError:
            continue
        open_fds.append(fd)
    if 7 not in open_fds:
        out.set(REFUSED, "descriptor 7 of the evaluator is not open in the tool (descriptors above "
                "2: %s)" % (open_fds or "none"))
        return
    try:
        head = os.pread(7, 48, 0)
    except OSError as exc:
        head = ("unreadable: %s" % errname(exc)).encode()
    out.set(ALLOWED, "descriptor 7 is open in the tool and reads %r (descriptors above 2: %s)"
            % (head, open_fds))


CASES = {
    "proc-self-cwd-reopen": proc_self_cwd_reopen,
    "proc-pid-root-reopen": proc_pid_root_reopen,
    "proc-self-fd-reopen": proc_self_fd_reopen,
    "inherited-fd-after-exec": inherited_fd_after_exec,
}
