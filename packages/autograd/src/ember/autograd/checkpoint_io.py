"""What ember's three checkpoint formats share: the one load error, the limits checked before
anything is allocated, and atomic saves whose killed temporaries the next save removes.

NOTE [ Load errors ]
Whatever the format (ember's, PyTorch's zip, safetensors), a file that cannot be loaded raises
`CheckpointError`, whose message is `load: <file>: <record>: <what is wrong>`. It subclasses
both `pickle.UnpicklingError` (what `torch.load(weights_only=True)` raises) and `RuntimeError`
(what PyTorch's zip reader and its `setStorage` check raise), so ported code catching either
keeps working. No raw `KeyError`, `struct.error`, `zipfile.BadZipFile` or `RecursionError`
escapes a loader: each loader validates what it reads and turns any remaining failure into a
`CheckpointError` naming the record it was reading. Errors of the caller's own code (a
`map_location` callable) pass through unchanged (`CallerError` carries them out of the guard).
Tensors are built by the geometry gate (NOTE [ The geometry gate ] in `ember.core.geometry`);
nesting deeper than `MAX_DEPTH` containers is refused.
"""

from __future__ import annotations

import os
import pickle
import re
import socket
import tempfile
from collections.abc import Callable
from typing import BinaryIO

from ember.core.ops._util import named_as

__all__ = ["CheckpointError", "CorruptArchiveError", "CallerError", "MAX_DEPTH", "check_depth", "atomic_write",
           "remove_stale_temporaries"]

MAX_DEPTH = 100


class CheckpointError(pickle.UnpicklingError, RuntimeError):
    """A checkpoint that cannot be loaded: the message names the file, the record and the problem."""


@named_as("RuntimeError")
class CorruptArchiveError(CheckpointError):
    """A zip checkpoint whose archive cannot be read (truncated, corrupted): PyTorch's RuntimeError in print, with
    the words of its reader (miniz's)."""


@named_as("UnpicklingError", module="_pickle")
class UnsafeGlobalError(CheckpointError):
    """A weights-only load refusing a global the file names: PyTorch's `_pickle.UnpicklingError` in print."""


class CallerError(Exception):
    """Carries an exception of the caller's own code (e.g. `map_location`) through a loader's guard."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def reraise(e: Exception, name: str, record: str):
    """Turn an exception raised while reading `record` of `name` into the one load error."""
    if isinstance(e, CheckpointError):
        raise e
    if isinstance(e, CallerError):
        raise e.error.with_traceback(e.error.__traceback__) from None
    if isinstance(e, RecursionError):
        raise CheckpointError(f"load: {name}: {record}: nesting too deep (more than {MAX_DEPTH} levels)") from None
    detail = str(e) or ("unexpected end of data" if isinstance(e, EOFError) else "no detail")
    raise CheckpointError(f"load: {name}: {record}: {type(e).__name__}: {detail}") from e


def check_depth(obj, name: str, record: str, limit: int = MAX_DEPTH) -> None:
    """Refuse containers nested deeper than `limit` (walked iteratively; shared and cyclic
    references are visited once)."""
    seen: set[int] = set()
    stack = [(obj, 0)]
    while stack:
        o, depth = stack.pop()
        if isinstance(o, dict):
            children = list(o.keys()) + list(o.values())
        elif isinstance(o, list | tuple | set | frozenset):
            children = o
        else:
            continue
        if id(o) in seen:
            continue
        seen.add(id(o))
        if depth >= limit:
            raise CheckpointError(f"load: {name}: {record}: containers nested deeper than {limit} levels")
        stack.extend((c, depth + 1) for c in children)


# --- atomic saves ------------------------------------------------------------------------
# A save writes `.<target>.ember-tmp.<host>.<pid>.<random>` next to the target, then renames it
# over the target. A process killed mid-save leaves that file; the next save into the folder
# removes every such file of this host whose pid is no longer alive (a file of a live process,
# or of another host sharing the folder, may be a save in progress and is left alone).
_TMP_MARK = ".ember-tmp."
_TMP_RE = re.compile(r"^\..*\.ember-tmp\.(?P<host>[A-Za-z0-9-]+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+$", re.DOTALL)


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname()) or "host"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_stale_temporaries(directory: str) -> list[str]:
    """Delete the temporaries that saves killed on this host left in `directory`; return their names."""
    host, removed = _host(), []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for n in names:
        m = _TMP_RE.match(n) if _TMP_MARK in n else None
        if m is None or m["host"] != host or _pid_alive(int(m["pid"])):
            continue
        try:
            os.unlink(os.path.join(directory, n))
            removed.append(n)
        except OSError:
            pass
    return removed


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> None:
    """Run `write(file)` on a temporary next to `path`, fsync it and rename it over `path`: a crash
    leaves the old file; a kill leaves a temporary that the next save into the folder removes."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):  # PyTorch's check and words, the folder as the caller spelled it
        raise RuntimeError(f"Parent directory {os.path.dirname(path)} does not exist.")
    remove_stale_temporaries(directory)
    prefix = f".{os.path.basename(path)}{_TMP_MARK}{_host()}.{os.getpid()}."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=prefix)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
