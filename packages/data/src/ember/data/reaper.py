"""The reaper of one multi-process DataLoader iterator (NOTE [ DataLoader worker protocol ], A dead
parent): a tiny process, run by path and importing nothing of ember, that outlives a main process
killed outright.

It reads the workers' pids from its standard input, one a line. `done` means the main process shut
its workers down itself. The end of input without `done` means the main process died (the kernel
closed its end of the pipe): the reaper kills the workers, whatever they are doing (a worker stuck
in native code that holds the GIL cannot run its own watchdog), and unlinks every shared-memory
segment under the loader's prefix.
"""

from __future__ import annotations

import os
import signal
import sys

SHM_DIR = "/dev/shm"


def reap(prefix: str, pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # already gone
    head = prefix.lstrip("/")
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return  # no /dev/shm to list (not Linux): the workers' own cleanup is all there is
    for name in names:
        if name.startswith(head):
            try:
                os.unlink(os.path.join(SHM_DIR, name))
            except FileNotFoundError:
                pass


def main(argv: list[str]) -> int:
    prefix, pids = argv[1], []
    for line in sys.stdin:
        word = line.strip()
        if word == "done":
            return 0
        if word.isdigit():
            pids.append(int(word))
    reap(prefix, pids)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
