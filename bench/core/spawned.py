"""A spawned child (``bench.core.procs``): ``python -m bench.core.spawned PAYLOAD CHANNEL PARENT``.

PAYLOAD: a pickle file of the parent's ``sys.path`` and the pickled work; CHANNEL: the pipe to the
parent, ``f<fd>`` (POSIX) or ``h<handle>`` (Windows); PARENT: the parent's pid (for whoever looks
at the process list). The work is unpickled (a spawned gate child sets its process up again
here: threads pinned, mode selected), ``READY`` is sent, then the work runs and its exit code is
the child's. A child that cannot unpickle its work exits ``CANNOT_START`` with the traceback on
stderr, which the parent reports.
"""

from __future__ import annotations

import os
import pickle
import sys
import traceback


def _channel(text: str) -> int:
    if text.startswith("h"):  # pragma: no cover - Windows
        import msvcrt

        return msvcrt.open_osfhandle(int(text[1:]), os.O_WRONLY)
    return int(text[1:])


def main(argv: list[str]) -> int:
    from bench.core import procs

    payload, channel = argv[0], argv[1]
    procs._attach(_channel(channel))
    try:
        with open(payload, "rb") as f:
            outer = pickle.load(f)
        sys.path[:] = [*outer["path"], *(p for p in sys.path if p not in outer["path"])]
        body = pickle.loads(outer["body"])
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        return procs.CANNOT_START
    procs.send(procs.READY)
    return procs.run_body(body)


if __name__ == "__main__":
    code = main(sys.argv[1:])
    os._exit(code)  # as a forked child ends: no interpreter teardown (MindSpore's can hang)
