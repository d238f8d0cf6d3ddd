"""Shared helpers of the escape-conformance probes.

The probes run inside a murmur-eval session as the shell tool `python3`,
under whatever the sandbox applies to it. Each case function gets an
Outcome and fills it in; ecprobe.py writes it to the session folder. Every
helper names errno values symbolically, because a refusal is only worth
something when it says which mechanism produced it.
"""

import ctypes
import errno
import os
import platform

# Where the verdict goes, relative to the session folder (the tool's cwd).
VERDICT_FILE = "conformance-verdict.txt"

# Verdict words, shared with the Go test that grades them.
REFUSED = "REFUSED"
ALLOWED = "ALLOWED"
SUCCESS = "SUCCESS"
CONTAINED = "CONTAINED"
UNCONTAINED = "UNCONTAINED"
INCONCLUSIVE = "INCONCLUSIVE"


class Outcome:
    """What one case concluded. Starts INCONCLUSIVE: silence is never a pass."""

    def __init__(self):
        self.verdict = INCONCLUSIVE
        self.detail = "the case function returned without a verdict"

    def set(self, verdict, detail):
        self.verdict = verdict
        self.detail = str(detail)

    def write(self):
        line = " ".join(self.detail.split())
        with open(VERDICT_FILE, "w") as fh:
            fh.write("VERDICT=%s\nDETAIL=%s\n" % (self.verdict, line))
        print("verdict %s: %s" % (self.verdict, line))


def errname(exc):
    """EACCES(13) for an OSError, the exception's type otherwise."""
    code = getattr(exc, "errno", None)
    if code is None:
        return "%s: %s" % (type(exc).__name__, exc)
    return "%s(%d)" % (errno.errorcode.get(code, "E?"), code)


def try_open(path, flags=os.O_RDONLY):
    """(fd, note) on success, (None, note) on failure; never raises."""
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return None, "open %s: %s" % (path, errname(exc))
    return fd, "open %s: ok" % path


def read_small(path):
    """The first line of a small file, or "unreadable"; for sysctls."""
    fd, _ = try_open(path)
    if fd is None:
        return "unreadable"
    try:
        return os.read(fd, 64).decode("ascii", "replace").strip()
    finally:
        os.close(fd)


def proc_control():
    """Whether /proc as a whole is reachable, so that a refused /proc route
    can be told apart from a /proc the sandbox does not grant at all."""
    fd, note = try_open("/proc/self/status")
    if fd is None:
        return "control: /proc itself refused (%s)" % note
    os.close(fd)
    return "control: /proc itself readable"


# System call numbers, per machine. Any other machine is INCONCLUSIVE: a
# guessed number would test some other call and report it with confidence.
_SYSCALLS = {
    "x86_64": {"keyctl": 250, "perf_event_open": 298, "open_by_handle_at": 304,
               "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425},
    "aarch64": {"keyctl": 219, "perf_event_open": 241, "open_by_handle_at": 265,
                "bpf": 280, "userfaultfd": 282, "io_uring_setup": 425},
}


def raw_syscall(name, *args):
    """Calls a system call by number through libc's syscall(), so that no
    libc wrapper can answer without entering the kernel.
    Returns (ret, err, note); ret is None when the number is unknown."""
    numbers = _SYSCALLS.get(platform.machine(), {})
    if name not in numbers:
        return None, 0, "no syscall number for %s on %s" % (name, platform.machine())
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    ctypes.set_errno(0)
    ret = libc.syscall(ctypes.c_long(numbers[name]), *[ctypes.c_long(a) for a in args])
    err = ctypes.get_errno()
    return ret, err, "%s nr=%d ret=%d errno=%s" % (
        name, numbers[name], ret, errno.errorcode.get(err, err) if err else 0)


def grade_denied_syscall(out, name, args, context=""):
    """A call on seccomp's deny list: EPERM is the filter's answer, ENOSYS
    proves nothing either way, anything else reached the kernel's code."""
    ret, err, note = raw_syscall(name, *args)
    if ret is None:
        out.set(INCONCLUSIVE, note)
    elif ret == -1 and err == errno.EPERM:
        out.set(REFUSED, "%s: refused with EPERM, the seccomp filter's answer; %s; euid %d %s"
                % (name, note, os.geteuid(), context))
    elif ret == -1 and err == errno.ENOSYS:
        out.set(INCONCLUSIVE, "%s: ENOSYS, this kernel lacks the call; %s %s" % (name, note, context))
    else:
        # A descriptor the call may have returned dies with the probe.
        out.set(ALLOWED, "%s: the call reached the kernel's implementation; %s %s"
                % (name, note, context))
