"""Entry point of the escape-conformance probes: python3 ecprobe.py CASE [ARG...].

The cases are murmur's escape-conformance suite (the same ids and verdict
rules), written for murmur-eval's end-to-end test. The probe always writes
conformance-verdict.txt in its working directory, the session folder, unless
it is killed; a missing file is read as INCONCLUSIVE, never as a pass.
"""

import sys
import traceback

sys.dont_write_bytecode = True  # nothing in the session but what the cases write

import ec_fs  # noqa: E402
import ec_net  # noqa: E402
import ec_proc  # noqa: E402
import ec_res  # noqa: E402
import ec_sys  # noqa: E402
import os  # noqa: E402

from eclib import INCONCLUSIVE, SUCCESS, Outcome  # noqa: E402


def preflight(out):
    """Not one of murmur's cases: proves a probe can run and report at all,
    so that a broken harness is not read as 28 results."""
    out.set(SUCCESS, "python3 runs as uid %d in %s" % (os.getuid(), os.getcwd()))


CASES = {"preflight": preflight}
for module in (ec_fs, ec_proc, ec_net, ec_sys, ec_res):
    CASES.update(module.CASES)


def main(argv):
    out = Outcome()
    if len(argv) < 2 or argv[1] not in CASES:
        out.set(INCONCLUSIVE, "unknown case %r; known: %s" % (argv[1:2], sorted(CASES)))
    else:
        try:
            CASES[argv[1]](out, *argv[2:])
        except Exception:
            out.set(INCONCLUSIVE, "the probe raised: " + traceback.format_exc())
    out.write()


if __name__ == "__main__":
    main(sys.argv)
