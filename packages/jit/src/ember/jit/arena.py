"""A replay's intermediates planned into one preallocated arena per plan (`config.plan_memory`).

NOTE [ The replay's arena ]
After fusion, `plan(graph)` picks the buffers a replay may place in one byte array of its own
instead of a fresh numpy array per result, and gives each an offset:
- Planned are the results of the nodes that can write into memory they are given, each computing
  the same bits as before: a fused group's launch (its flat loop: `launch.launcher`'s `emit` with
  slots; its rows x cols nest: the group's `run(*ts, out=...)`, `run.takes_out`); the GEMMs `mm`
  and `bmm` (`gemm_into`: the kernel's own numpy call, `np.matmul` of the same operands or, for an
  outer product, `np.multiply`, with `out=` the slot: the same BLAS call); `add`, `sub`, `mul` and
  `div` of two tensors of the result's dtype, or of such a tensor and a Python number (the
  kernel's own `out=` path: the same ufunc on the same operands, cast as before, into the slot;
  one IEEE operation per element, so any loop gives the same bits; an `add`, `sub` or `mul` of a
  bias row or table of the trailing shape takes core's row pass, `numba_rows.row_broadcast`, into
  the slot, about twice numpy's speed there); and `clone` (a copy).
  `matmul`, `addmm`, `linear` and their backward reach the plan as these primitives. Only float32
  and float64 CPU results of C-contiguous layout are planned. A writer whose operands are not of
  the shape, strides and dtype the capture saw (a captured backward's incoming gradients) calls the
  kernel instead, which allocates.
- Not planned, so still allocating at every replay: every other op's result (`layer_norm` and its
  backward, softmax and its backward, the losses, embedding and its backward, reductions such as a
  bias gradient's `sum`, `cat`, `copy_`, a Python number minus a tensor, an `out=` of its own...),
  since those kernels make their result inside and their `out=` copies it (`write_out`); unary
  elementwise ops (`relu`, `exp` ...), whose `out=` takes numpy's loop instead of the kernel's
  small-array or Numba one (another speed, for libm functions maybe other bits); results that
  escape (below); anything of another dtype, device or layout.
- A planned buffer never escapes the replay: not an output (nor `.item()`/`.clone()` of one),
  not a `.grad` the plan binds, not a buffer a captured backward keeps or is given gradients
  for, not a value of the plan's checks, nothing an eager call (an optimizer's `step`) receives,
  and no view of such (a view op's result and its operand are one family, planned or not as a
  whole, and live as long as the longest lived member; an op not flagged `view` makes its result
  in new memory, core's rule, which a test checks on the steps' ops under a dispatch hook). A
  replay's outputs are therefore new arrays, never arena memory: an output kept from one replay
  is not overwritten by the next.
  Parameters, their gradients and optimizer state are constants, not results: never planned.
  A plan whose outputs need a history (`through_autograd`) is not planned.
- Liveness: a buffer lives from the node that makes it to the last node that reads it or a
  member of its family (both included: a node's result never shares memory with its operands).
- Placement: greedy by size, largest first, each at the lowest-waste gap (best fit) among the
  buffers whose lifetimes overlap its own; offsets and sizes are multiples of 64 bytes.

The replay takes an arena from the plan's pool after its checks (one is made, all its slot views
with it, when the pool is empty: the first replay, or a replay while another thread or a
re-entrant call holds the plan's) and puts it back before it returns (`DIVERGED` too); an exception loses
it to the garbage collector and the next replay makes another. A capture for other shapes is
another plan, with an arena of its own; the arena lives as long as its plan. `explain()` prints
each plan's arena size. In the GPT step (2 layers, d=128, T=64, batch 16, AdamW) 59.5 MB of
results a step fit 15.7 MB, the most of them alive at one node; 13.4 MB a step still allocate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ember.core.tensor import Tensor, contiguous_strides

__all__ = ["ArenaPlan", "plan", "plannable", "into", "gemm_into", "ALIGN"]

ALIGN = 64
_GEMMS = frozenset({"mm", "bmm"})
_BINARY = frozenset({"add", "sub", "mul", "div"})
# numpy's broadcasting loop runs its inner loop once per row of a bias add (1024 x 256 float32: about twice the
# time of numba_rows' pass); with `out=` the eager kernel takes numpy's path, so a planned one calls the pass
_ROWS = frozenset({"add", "sub", "mul"})
_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


@dataclass
class ArenaPlan:
    """Where each planned buffer lies: `slots[buffer] = (slot number, byte offset)`; `nbytes` the arena's size."""

    nbytes: int = 0
    slots: dict = field(default_factory=dict)
    geometry: list = field(default_factory=list)  # (byte offset, shape, numpy dtype) of each slot
    lives: list = field(default_factory=list)  # (first node, last node) of each slot's buffer and its views
    pool: list = field(default_factory=list)  # free arenas: tuples of slot views
    made: int = 0  # arenas made so far (one, unless replays overlapped or one raised)

    def new(self) -> tuple:
        """A new arena: the shaped view of each slot, then the flat view of each (`arena[k]`, `arena[n + k]`)."""
        self.made += 1
        raw = np.empty(self.nbytes + ALIGN, np.uint8)
        start = -raw.ctypes.data % ALIGN
        shaped = []
        for off, shape, dt in self.geometry:
            n = int(np.prod(shape, dtype=np.int64))
            shaped.append(raw[start + off:start + off + n * dt.itemsize].view(dt).reshape(shape))
        return (*shaped, *[a.reshape(-1) for a in shaped])

    def __repr__(self) -> str:
        return f"ArenaPlan({len(self.slots)} buffers in {self.nbytes} bytes)"


def plannable(g, n) -> str | None:
    """How node `n` of `g` writes its results into given memory: "launch" (a flat fused group's launch),
    "nest" (a fused group's `run(out=...)`), "into" (`into(g, n)`: mm, bmm, add, sub, mul, div, clone), or None."""
    from ember.jit.fusion import FusedOp
    from ember.jit.graph import Alias, OpNode, Ref

    if not isinstance(n, OpNode) or n.bumps:
        return None
    if isinstance(n.op, FusedOp):
        if getattr(n.kernel, "emit", None) is not None and not n.kwargs and all(isinstance(a, Ref) for a in n.args):
            return "launch"
        return "nest" if getattr(n.kernel, "takes_out", False) and not n.kwargs else None
    name = n.op.name
    if len(n.outs) != 1 or n.outs[0] is None or not n.args or not isinstance(n.args[0], (Ref, Alias)):
        return None
    dt = g.buffers[n.outs[0]].dtype
    tensors = [a for a in n.args if isinstance(a, (Ref, Alias))]
    same = all((a.dtype if isinstance(a, Alias) else g.buffers[a.index].dtype) is dt for a in tensors)
    plain = len(n.args) == 2 and all(k == "out" and v is None for k, v in n.kwargs.items())
    if name in _BINARY and plain and same and type(n.args[1]) in (int, float):  # a tensor and a Python number
        return "into"
    if len(tensors) != len(n.args):
        return None
    if name in _GEMMS or name in _BINARY:
        return "into" if plain and same else None
    if name == "clone":
        plain = len(n.args) == 1 and all(k == "memory_format" and v is None for k, v in n.kwargs.items())
        return "into" if plain and same else None
    return None


def into(g, n):
    """`write(*args, o)`: node `n`'s kernel computing into the slot `o` (a numpy array), as a tensor over it; the
    kernel itself (a new array) where the operands are not what the capture saw (NOTE [ The replay's arena ])."""
    from ember.jit.graph import Alias, Ref

    kernel = n.kernel
    geometry = tuple((a.shape, a.strides) if isinstance(a, Alias) else (g.buffers[a.index].shape,
                                                                         g.buffers[a.index].strides)
                     for a in n.args if isinstance(a, (Ref, Alias)))
    name = n.op.name
    if name in _GEMMS:
        return gemm_into(kernel)
    if name == "clone":
        (geo,) = geometry

        def write(x, o):
            if (x._shape, x._strides) == geo and o.dtype == x._dtype.np:
                np.copyto(o, x._np())  # the kernel's C-ordered copy, into the slot
                return Tensor._wrap(o)
            return kernel(x)

        return write
    if len(geometry) == 1:  # a tensor and the Python number the capture saw (the kernel casts it as before)
        (ga,) = geometry

        def write(a, b, o):
            if (a._shape, a._strides) == ga and o.dtype == a._dtype.np:
                return kernel(a, b, out=Tensor._wrap(o))
            return kernel(a, b)

        return write
    (ga, gb) = geometry
    if name in _ROWS and len(gb[0]) < len(ga[0]):
        from ember.core.ops.numba_rows import row_broadcast

        ufunc = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[name]

        def write(a, b, o):  # a bias row (or a position table) against rows: core's row pass, into the slot
            if (a._shape, a._strides) == ga and (b._shape, b._strides) == gb and a._dtype is b._dtype \
                    and o.dtype == a._dtype.np:
                x, y = a._np(), b._np()
                if row_broadcast(name, x, y, o) is None:  # small (NCF's last bias): the kernel's own ufunc, 5 -> 1 us
                    ufunc(x, y, out=o)
                return Tensor._wrap(o)
            return kernel(a, b)

        return write

    def write(a, b, o):  # an IEEE add/sub/mul/div of one dtype: any loop gives the kernel's bits
        if (a._shape, a._strides) == ga and (b._shape, b._strides) == gb and a._dtype is b._dtype \
                and o.dtype == a._dtype.np:
            return kernel(a, b, out=Tensor._wrap(o))  # the kernel's own `out=` path: its ufunc into the slot
        return kernel(a, b)

    return write


def plan(g) -> ArenaPlan:
    """The arena of graph `g` (NOTE [ The replay's arena ]); an empty plan where nothing qualifies."""
    from ember.jit.graph import CallNode, OpNode, _reads

    out = ArenaPlan()
    if g.through_autograd:
        return out
    parent: dict[int, int] = {}

    def root(b: int) -> int:
        while parent.get(b, b) != b:
            b = parent[b]
        return b

    def union(a: int, b: int) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[rb] = ra

    escaping: set[int] = set()
    _reads((g.output, g.end_binds, [c[1] for c in g.checks]), escaping)
    if g.backward is not None:
        _reads((g.backward.saved, g.backward.targets, g.backward.outputs), escaping)
    made: dict[int, int] = {}  # buffer -> the node that makes it
    last: dict[int, int] = {}
    candidates: list[int] = []
    for i, n in enumerate(g.nodes):
        r: set[int] = set()
        _reads(n.reads(), r)
        for b in r:
            last[b] = i
        if isinstance(n, CallNode):  # an eager call may keep what it is given
            escaping |= r
            continue
        if not isinstance(n, OpNode):
            continue
        new = [o for o in n.outs if o is not None and o not in made and g.buffers[o].kind == "op"]
        for o in new:
            made[o] = i
        if n.op.view:  # one storage: the result with every tensor it reads
            for o in new:
                for b in r:
                    union(b, o)
        kind = plannable(g, n)
        if kind is not None and all(_slot_ok(g.buffers[o]) for o in new) and len(new) == len(n.outs):
            candidates += new
    life: dict[int, int] = {}
    bad: set[int] = {root(b) for b in escaping}
    for b, i in last.items():
        rb = root(b)
        life[rb] = max(life.get(rb, -1), i)
    sized = []
    for b in candidates:
        if root(b) in bad:
            continue
        buf = g.buffers[b]
        dt = np.dtype(buf.dtype.np)
        nbytes = int(np.prod(buf.shape, dtype=np.int64)) * dt.itemsize
        if nbytes == 0:
            continue
        end = max(life.get(root(b), made[b]), made[b])
        sized.append((-(-nbytes // ALIGN) * ALIGN, made[b], end, b, tuple(buf.shape), dt))
    placed: list[tuple[int, int, int, int]] = []  # (offset, size, first, last)
    sized.sort(key=lambda s: (-s[0], s[1], s[3]))
    where: dict[int, int] = {}
    for size, first, end, b, _shape, _dt in sized:
        busy = sorted((o, o + s) for o, s, f, e in placed if f <= end and first <= e)
        best, best_gap, at = None, None, 0
        for lo, hi in busy:
            gap = lo - at
            if gap >= size and (best_gap is None or gap < best_gap):
                best, best_gap = at, gap
            at = max(at, hi)
        offset = best if best is not None else at
        placed.append((offset, size, first, end))
        where[b] = offset
        out.nbytes = max(out.nbytes, offset + size)
    for _size, first, end, b, shape, dt in sorted(sized, key=lambda s: s[3]):
        out.slots[b] = (len(out.geometry), where[b])
        out.geometry.append((where[b], shape, dt))
        out.lives.append((first, end))
    return out


def _slot_ok(buf) -> bool:
    """A result a slot can hold: a C-contiguous CPU float32/float64 buffer at offset 0."""
    return (buf.device.type == "cpu" and buf.dtype.np is not None and np.dtype(buf.dtype.np) in _FLOATS
            and buf.offset == 0 and tuple(buf.strides) == contiguous_strides(tuple(buf.shape)))


def gemm_into(kernel):
    """`into(a, b, o)`: `kernel(a, b)` (mm's or bmm's CPU kernel) computed into the slot `o`, as a tensor over it.

    It is the kernel's own numpy call with `out=o` (`np.matmul` of the BLAS-addressable operands; mm's outer
    product `np.multiply`), so the same bits; any other case (a dtype other than the slot's, another shape)
    calls the kernel, which allocates."""
    from ember.core.ops import blas_threads
    from ember.core.ops.linalg import _gemm_operands

    def into(a, b, o):
        dt = a._dtype
        if dt is b._dtype and dt.np is not None and o.dtype == dt.np and len(a._shape) == len(b._shape) == o.ndim:
            sa, sb = a._shape, b._shape
            shape = (*sa[:-1], sb[-1]) if o.ndim == 2 else (sa[0], sa[1], sb[2])
            if shape == o.shape and (o.ndim == 2 or sa[0] == sb[0]):
                if o.ndim == 2 and sa[1] == 1 and sa[0] > 1 and sb[1] > 1:
                    np.multiply(a._np(), b._np(), out=o)
                else:
                    blas_threads.matmul(*_gemm_operands(a, b), out=o)  # eager's thread count: eager's bits
                return Tensor._wrap(o)
        return kernel(a, b)

    return into
