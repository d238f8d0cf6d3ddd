"""Filesystem boundary cases: host files, links, renames, device nodes and
executables, seen from a session folder that is the tool's only grant."""

import errno
import os
import stat
import subprocess

from eclib import (ALLOWED, INCONCLUSIVE, REFUSED, SUCCESS, errname, read_small,
                   try_open)


def read_etc_shadow(out):
    fd, note = try_open("/etc/shadow")
    # /etc/shadow is closed to non-root users anyway; /etc/passwd is open to
    # everyone, so only the sandbox can refuse it. Its result says whether the
    # refusal above was the sandbox or plain file modes.
    pfd, pnote = try_open("/etc/passwd")
    if pfd is not None:
        os.close(pfd)
        control = "control /etc/passwd readable: no file mediation here"
    else:
        control = "control refused too (%s): file access is mediated" % pnote
    if fd is None:
        out.set(REFUSED, "%s; %s" % (note, control))
        return
    got = os.read(fd, 32)
    os.close(fd)
    out.set(ALLOWED, "read %d bytes of /etc/shadow; %s" % (len(got), control))


def write_outside_workdir(out, outside):
    # `outside` is a world-writable folder of the host's, so file modes
    # allow the create and only the sandbox can say no.
    target = os.path.join(outside, "written-%d" % os.getpid())
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as exc:
        out.set(REFUSED, "create %s: %s" % (target, errname(exc)))
        return
    os.write(fd, b"outside\n")
    os.close(fd)
    out.set(ALLOWED, "created %s outside the session" % target)


def stat_outside_workdir(out):
    # Landlock does not mediate metadata queries; scoped promises nothing
    # more, so success is the expected answer and not a finding.
    try:
        st = os.stat("/etc/shadow")
    except OSError as exc:
        out.set(REFUSED, "stat /etc/shadow: %s (Landlock does not mediate stat: unexpected)"
                % errname(exc))
        return
    out.set(SUCCESS, "stat /etc/shadow: mode %o, uid %d, size %d: metadata is visible, "
            "as the scoped class documents" % (st.st_mode, st.st_uid, st.st_size))


def symlink_escape(out):
    link = "ec-link-to-passwd"
    try:
        os.symlink("/etc/passwd", link)
    except FileExistsError:
        pass
    except OSError as exc:
        out.set(INCONCLUSIVE, "the link itself could not be made (%s); nothing was read through it"
                % errname(exc))
        return
    fd, note = try_open(link)
    if fd is None:
        out.set(REFUSED, "link made; reading through it: %s" % note)
        return
    got = os.read(fd, 32)
    os.close(fd)
    out.set(ALLOWED, "read %d bytes of /etc/passwd through a link in the session" % len(got))


def hardlink_escape(out):
    # A hard link would name the host inode itself, beyond any later path
    # check. EXDEV means another file system: the link could never have been
    # made here, whatever the sandbox does.
    hardened = read_small("/proc/sys/fs/protected_hardlinks")
    name = "ec-hardlink-passwd"
    try:
        os.link("/etc/passwd", name)
    except OSError as exc:
        if exc.errno == errno.EXDEV:
            out.set(INCONCLUSIVE, "link /etc/passwd: EXDEV: the session is on another file system "
                    "than /etc, so the premise cannot be reached (protected_hardlinks %s)" % hardened)
        else:
            out.set(REFUSED, "link /etc/passwd: %s (protected_hardlinks %s: with 1, EPERM can be "
                    "that setting as well as the sandbox)" % (errname(exc), hardened))
        return
    fd, note = try_open(name)
    if fd is None:
        out.set(REFUSED, "the link was made but cannot be read: %s" % note)
        return
    got = os.read(fd, 32)
    os.close(fd)
    out.set(ALLOWED, "hard-linked /etc/passwd into the session and read %d bytes" % len(got))


def rename_across_boundary(out, outside):
    source = "ec-rename-me"
    with open(source, "w") as fh:
        fh.write("moving out\n")
    target = os.path.join(outside, "renamed-%d" % os.getpid())
    try:
        os.rename(source, target)
    except OSError as exc:
        if exc.errno == errno.EXDEV:
            out.set(INCONCLUSIVE, "rename to %s: EXDEV: another file system, so the premise "
                    "cannot be reached" % target)
        else:
            out.set(REFUSED, "rename to %s: %s" % (target, errname(exc)))
        return
    out.set(ALLOWED, "moved a session file to %s, outside the session" % target)


def mknod_block_device(out):
    # Major 8, minor 0: the first SCSI/SATA disk. EACCES is Landlock (no
    # block-device right on the session); EPERM is a missing CAP_MKNOD.
    node = "ec-disk"
    try:
        os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(8, 0))
    except OSError as exc:
        why = {errno.EACCES: "Landlock withholds device nodes",
               errno.EPERM: "no CAP_MKNOD (or seccomp)"}.get(exc.errno, "other")
        out.set(REFUSED, "mknod block 8:0: %s: %s; euid %d" % (errname(exc), why, os.geteuid()))
        return
    fd, note = try_open(node)
    if fd is None:
        out.set(ALLOWED, "a block device node was created in the session (opening it: %s)" % note)
        return
    got = os.read(fd, 512)
    os.close(fd)
    out.set(ALLOWED, "created block device 8:0 in the session and read %d raw bytes" % len(got))


def exec_renamed_binary(out):
    # The setup copied a system binary the capsule does not allowlist into
    # the session as ./bash, a name the allowlist does hold.
    target = "./bash"
    if not os.path.exists(target):
        out.set(INCONCLUSIVE, "./bash was not staged; nothing was tried")
        return
    try:
        run = subprocess.run([target, "--version"], capture_output=True, timeout=20)
    except PermissionError as exc:
        out.set(REFUSED, "exec ./bash (a copy of another binary): %s" % errname(exc))
        return
    except subprocess.TimeoutExpired:
        out.set(INCONCLUSIVE, "exec ./bash neither ran nor failed within 20 s")
        return
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            out.set(INCONCLUSIVE, "exec ./bash: ENOENT: a staging problem, not a result")
        else:
            out.set(REFUSED, "exec ./bash: %s" % errname(exc))
        return
    out.set(ALLOWED, "exec ./bash ran: exit %d, output %r" % (run.returncode, (run.stdout + run.stderr)[:80]))


CASES = {
    "read-etc-shadow": read_etc_shadow,
    "write-outside-workdir": write_outside_workdir,
    "stat-outside-workdir": stat_outside_workdir,
    "symlink-escape": symlink_escape,
    "hardlink-escape": hardlink_escape,
    "rename-across-boundary": rename_across_boundary,
    "mknod-block-device-in-workdir": mknod_block_device,
    "exec-renamed-disallowed-binary": exec_renamed_binary,
}
