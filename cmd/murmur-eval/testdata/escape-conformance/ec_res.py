"""Resource exhaustion: denial of service, never an escape. Each case runs
under the test's tight resources block and is bounded itself, a few times
past the ceiling it tests, so that a ceiling that does not hold costs this
machine little."""

import os
import resource
import signal
import time

from eclib import CONTAINED, UNCONTAINED, errname

# The tight block's figures, as the test's manifest declares them.
PIDS_MAX = 32
MEMORY_MAX = 256 << 20
FILE_MAX = 10 << 20
WORKDIR_MAX = 50 << 20

# murmur's line: a tree refused only past 200 live children was not bounded
# by a pids.max of 32.
FORK_LINE = 200


def fork_bomb(out):
    children = []
    refused = None
    for _ in range(FORK_LINE):
        try:
            pid = os.fork()
        except OSError as exc:
            refused = errname(exc)
            break
        if pid == 0:
            # Hold a process slot; never fork again, so the count is exact.
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
    nproc = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    if refused is None:
        out.set(UNCONTAINED, "%d children forked and alive at once, none refused; the declared "
                "cgroup_pids_max is %d (RLIMIT_NPROC %s)" % (len(children), PIDS_MAX, nproc))
        return
    # RLIMIT_NPROC is the other thing that refuses a fork. Far above the
    # stopping point, it cannot have been what refused this one.
    if nproc != resource.RLIM_INFINITY and nproc > len(children) + 64:
        who = "the cgroup's pids.max (RLIMIT_NPROC %d is far above)" % nproc
    else:
        who = "possibly RLIMIT_NPROC (%s), not only the cgroup" % nproc
    out.set(CONTAINED, "fork refused with %s after %d live children: %s" % (refused, len(children), who))


def memory_hog(out):
    # Graded by the test on the shell tool's exit code: the cgroup's OOM
    # kill is a SIGKILL (137), which leaves no verdict file. Reaching four
    # times the ceiling alive is the uncontained answer.
    held = []
    total = 0
    block = 16 << 20
    while total < 4 * MEMORY_MAX:
        # Filled with ones, not zeros: every page is written, and an
        # untouched page would be charged to nobody.
        held.append(b"\x01" * block)
        total += block
    out.set(UNCONTAINED, "holds %d MiB, touched, alive; the declared cgroup_memory_bytes is %d MiB"
            % (total >> 20, MEMORY_MAX >> 20))


def disk_filler_per_file(out):
    # Ignored, SIGXFSZ becomes EFBIG on the write that crosses the limit:
    # the same decision, but the probe lives to say where it fell.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    chunk = b"\0" * (1 << 20)
    written = 0
    try:
        with open("ec-one-big-file", "wb") as fh:
            # 32 MiB: past the per-file ceiling, short of workdir_max_bytes,
            # so that only the per-file limit is under test.
            for _ in range(32):
                fh.write(chunk)
                fh.flush()
                written += len(chunk)
    except OSError as exc:
        out.set(CONTAINED, "write refused with %s at %d bytes; max_file_size_bytes is %d"
                % (errname(exc), written, FILE_MAX))
        return
    out.set(UNCONTAINED, "wrote %d bytes to one file; max_file_size_bytes is %d" % (written, FILE_MAX))


def disk_filler_aggregate(out):
    # Many files, each under the per-file ceiling, together far past
    # workdir_max_bytes. Graded by the test on the case's end (E-RUN-013);
    # the pauses leave the periodic guard several looks at the growth.
    chunk = b"\0" * (1 << 20)
    written = 0
    for i in range(30):
        try:
            with open("ec-fill-%02d" % i, "wb") as fh:
                for _ in range(9):
                    fh.write(chunk)
                    written += len(chunk)
        except OSError as exc:
            out.set(CONTAINED, "write refused with %s after %d MiB" % (errname(exc), written >> 20))
            return
        time.sleep(0.3)
    out.set(UNCONTAINED, "wrote %d MiB in 30 files of 9 MiB, alive; workdir_max_bytes is %d MiB"
            % (written >> 20, WORKDIR_MAX >> 20))


def fd_exhauster(out):
    # Graded against the ceiling the process itself reads back, which must
    # be far below the usual 1024.
    ceiling = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    held = []
    try:
        for _ in range(4096):
            held.append(os.open("ecprobe.py", os.O_RDONLY))
    except OSError as exc:
        count = len(held)
        for fd in held:
            os.close(fd)
        if count <= ceiling < 512:
            out.set(CONTAINED, "open refused with %s after %d descriptors; RLIMIT_NOFILE %d"
                    % (errname(exc), count, ceiling))
        else:
            out.set(UNCONTAINED, "open refused with %s only after %d descriptors; RLIMIT_NOFILE %d"
                    % (errname(exc), count, ceiling))
        return
    for fd in held:
        os.close(fd)
    out.set(UNCONTAINED, "opened 4096 descriptors without EMFILE")


CASES = {
    "resource-fork-bomb": fork_bomb,
    "resource-disk-filler-per-file": disk_filler_per_file,
    "resource-disk-filler-aggregate": disk_filler_aggregate,
    "resource-memory-hog": memory_hog,
    "resource-fd-exhauster": fd_exhauster,
}
