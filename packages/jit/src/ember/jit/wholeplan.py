"""Runs of a plan's kernel calls emitted as one generated Numba function (`config.whole_plan`).

NOTE [ The whole plan as one function ]
A replay calls each kernel from Python. Where consecutive nodes of a plan can all run inside Numba,
`runs(graph, ...)` gathers them into one *run*, emitted as one `@njit(cache=True, nogil=True)`
function over numpy arrays that the replay calls once. Inside a run:
- every buffer is a 1-D C-contiguous *root* array and an element offset, shape and strides over it
  (its geometry, fixed at capture: `Graph._fixed_geometry`); a root is an arena slot's flat view, an
  array the run allocates (`np.empty`, a result that is not planned) or a C-contiguous buffer from
  outside the run (`t._np()` of an input, a constant or an earlier result);
- a view (`Graph._inline_views`) is bookkeeping only: a new offset, shape and strides over its operand's root;
- a fused group's flat loop or rows x cols nest calls its generated kernel with the arrays the launch
  would pass (`launch.launcher`, `fusion._fused_node`: `run.whole`);
- `mm` of float32/float64 operands is Numba's `np.dot` into the result (`numba_gemm.gemm`: one cached
  function per operand layout, shared by every run, so a run's compile does not build `np.dot` again:
  the MLP's first step on an empty cache 6.7-7.2 -> 5.2 s), which calls scipy's BLAS
  `sgemm`/`dgemm` where eager calls numpy's `matmul` (both OpenBLAS: the same bits, measured on the
  plans' shapes; their thread counts are matched, `_match_blas_threads`); an operand that is neither C-
  nor F-contiguous is copied first (Numba's `np.dot` of another layout is a scalar loop, not BLAS), as
  eager's `_blas` copies one BLAS cannot address; an outer product is `np.multiply`, as eager's;
- `add`, `sub`, `mul`, `div` of two tensors of the result's dtype are the ufunc into the result (one
  IEEE operation an element: any loop gives eager's bits).
Anything else (a meta step or a validation to run, a write, a call, a guard, any other kernel, a
buffer of another geometry) ends the run; a run of fewer than two kernels stays as it was. After
the call the replay wraps only the run's buffers that later nodes, outputs or `.grad` bindings read.
Each function is compiled when the plan is generated, for the argument types the plan's geometry fixes
(`_signature`); a run Numba cannot compile is dropped there, its nodes keep their own lines.
The function's source is written to the cache directory under a hash of itself (as fused kernels,
NOTE [ Fused kernels and their disk cache ] in ember.jit.codegen), so a second process loads it
compiled. Its arguments are every array it reads (scalars of fused groups too), never module
globals, so one source serves every plan of the same structure.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass, field

import numpy as np

from ember.core.tensor import contiguous_strides
from ember.jit import codegen

__all__ = ["Run", "runs"]

_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
_UFUNCS = {"add": "np.add", "sub": "np.subtract", "mul": "np.multiply", "div": "np.divide"}


@dataclass
class Run:
    """Nodes `start` to `end` (exclusive) of a plan as one Numba function; `emit` writes the replay's lines."""

    start: int
    end: int
    lines: list = field(default_factory=list)  # the function's body
    params: list = field(default_factory=list)  # (parameter, ("ext", buffer) | ("slot", k) | ("sv", array))
    roots: dict = field(default_factory=dict)  # root variable -> ("ext" | "new", buffer) | ("slot", k)
    loc: dict = field(default_factory=dict)  # buffer -> (root, offset, shape, strides, numpy dtype)
    kernels: int = 0
    fns: dict = field(default_factory=dict)  # kernel global -> (module, attribute)


def _c(shape, strides) -> bool:
    return tuple(strides) == contiguous_strides(tuple(shape))


def _f2(shape, strides) -> bool:
    return len(shape) == 2 and tuple(strides) == (1, shape[0])


class _Builder:
    """Appends nodes to runs (NOTE [ The whole plan as one function ]); `names`: the buffers the replay names."""

    def __init__(self, g, fixed: set, inlined: set, settled: set, slots: dict, names: dict):
        self.g, self.fixed, self.inlined, self.settled = g, fixed, inlined, settled
        self.slots, self.names = slots, names

    def new(self, start: int) -> Run:
        return Run(start, start)

    # --- buffers as arrays -------------------------------------------------------------------------
    def _ext(self, r: Run, b: int) -> bool:
        """Buffer `b` from outside the run as a root: a C-contiguous buffer of fixed geometry."""
        if b in r.loc:
            return True
        buf = self.g.buffers[b]
        if b not in self.fixed or b not in self.names or buf.dtype.np is None or \
                np.dtype(buf.dtype.np) not in _FLOATS or buf.device.type != "cpu" or 0 in buf.shape or not buf.shape:
            return False
        name = f"x{b}"
        if _c(buf.shape, buf.strides):
            flat = f"{name}.reshape(-1)"
        elif _f2(buf.shape, buf.strides):  # a transposed matrix (its transpose is C-contiguous)
            flat = f"{name}.T.reshape(-1)"
        else:
            return False
        r.params.append((name, ("ext", b)))
        r.lines.append(f"    r{b} = {flat}")
        r.roots[f"r{b}"] = ("ext", b)
        r.loc[b] = (f"r{b}", 0, tuple(buf.shape), tuple(buf.strides), np.dtype(buf.dtype.np))
        return True

    def _arr(self, r: Run, b: int, blas: bool = False) -> str:
        root, off, shape, strides, _ = r.loc[b]
        n = int(np.prod(shape, dtype=np.int64))
        if _c(shape, strides):
            return f"{root}[{off}:{off + n}].reshape({shape!r})"
        if _f2(shape, strides):
            return f"{root}[{off}:{off + n}].reshape({(shape[1], shape[0])!r}).T"
        isz = r.loc[b][4].itemsize
        v = f"as_strided({root}[{off}:], {shape!r}, {tuple(s * isz for s in strides)!r})"
        return f"np.ascontiguousarray({v})" if blas else v

    def _flat(self, r: Run, b: int) -> str:
        root, off, shape, strides, _ = r.loc[b]
        n = int(np.prod(shape, dtype=np.int64))
        if _c(shape, strides):
            return f"{root}[{off}:{off + n}]"
        return f"np.ascontiguousarray({self._arr(r, b)}).reshape(-1)"

    def _out(self, r: Run, b: int, flat_size: int | None = None) -> str | None:
        """A root for result `b` (its slot, else a new array of `flat_size` or its size): the variable; None where
        `b` cannot be one."""
        buf = self.g.buffers[b]
        if buf.dtype.np is None or np.dtype(buf.dtype.np) not in _FLOATS or b in r.loc or buf.device.type != "cpu" \
                or 0 in buf.shape or buf.offset != 0 or not _c(buf.shape, buf.strides):
            return None  # a result eager lays out otherwise (a ufunc of F-ordered operands): views follow its strides
        dt = np.dtype(buf.dtype.np)
        n = int(np.prod(buf.shape, dtype=np.int64)) if flat_size is None else flat_size
        root = f"r{b}"
        if b in self.slots:
            k = self.slots[b][0]
            r.params.append((f"s{k}", ("slot", k)))
            r.lines.append(f"    {root} = s{k}")
            r.roots[root] = ("slot", k)
        else:
            r.lines.append(f"    {root} = np.empty({n}, np.{dt.name})")
            r.roots[root] = ("new", b)
        r.loc[b] = (root, 0, tuple(buf.shape), contiguous_strides(tuple(buf.shape)), dt)
        return root

    def _kernel(self, r: Run, kern) -> str:
        py = kern.py_func
        name = f"k{len(r.fns)}"
        r.fns[name] = (py.__module__, py.__name__)
        return name

    # --- nodes -------------------------------------------------------------------------------------
    def add(self, r: Run, i: int, n) -> bool:
        """Append node `i` to run `r`; False (and `r` unchanged in meaning) where it cannot run inside Numba."""
        from ember.jit.fusion import FusedOp
        from ember.jit.graph import OpNode, Ref

        if not isinstance(n, OpNode) or n.bumps or n.op.mutates:
            return False
        saved = (len(r.lines), len(r.params), dict(r.roots), dict(r.loc), dict(r.fns), r.kernels)
        ok = False
        if id(n) in self.inlined:
            ok = self._view(r, n)
        elif (n.op.check is None or id(n) in self.settled) and all(isinstance(a, Ref) for a in n.args) and \
                all(o is not None and o not in self.names for o in n.outs):
            if isinstance(n.op, FusedOp):
                ok = not n.kwargs and self._fused(r, n)
            elif n.op.name == "mm" and all(k == "out" and v is None for k, v in n.kwargs.items()):
                ok = self._mm(r, n)
            elif n.op.name in _UFUNCS and all(k == "out" and v is None for k, v in n.kwargs.items()):
                ok = self._binary(r, n)
            if ok:
                r.kernels += 1
        if not ok:
            del r.lines[saved[0]:], r.params[saved[1]:]
            r.roots, r.loc, r.fns, r.kernels = saved[2], saved[3], saved[4], saved[5]
            return False
        r.end = i + 1
        return True

    def _view(self, r: Run, n) -> bool:
        src = n.args[0].index
        if not self._ext(r, src):
            return False
        res = self.g.buffers[n.outs[0]]
        root, off, _, _, dt = r.loc[src]
        if len(res.shape) == 0:
            return False
        r.loc[res.index] = (root, off + res.offset - self.g.buffers[src].offset, tuple(res.shape),
                            tuple(res.strides), dt)
        return True

    def _fused(self, r: Run, n) -> bool:
        w = getattr(n.kernel, "whole", None)
        if w is None or not all(self._ext(r, a.index) for a in n.args):
            return False
        if w[0] == "flat":
            _, kern, size, npdt, shape, broadcast, sv = w
            outs = [self._out(r, o) for o in n.outs]
            if None in outs:
                return False
            ins = [self._arr(r, a.index) if bc else self._flat(r, a.index) for a, bc in zip(n.args, broadcast)]
            if any(not _c(r.loc[a.index][2], r.loc[a.index][3]) or r.loc[a.index][2] != shape
                   for a, bc in zip(n.args, broadcast) if not bc):
                return False
            call = [str(size), *outs, *ins]
        else:
            _, kern, dims, dt, shape, prep, sv, size, red_len = w
            written = n.outs[:-1] if red_len is not None else n.outs
            outs = [self._out(r, o, size) for o in written]
            acc = [self._out(r, n.outs[-1], red_len)] if red_len is not None else []  # after the scalars
            if None in outs + acc:
                return False
            ins = []
            for a, p in zip(n.args, prep):
                if p is None:
                    ins.append(self._arr(r, a.index))
                elif isinstance(p[1], int):  # `length` values from the operand's first (fusion._classify)
                    root, off = r.loc[a.index][:2]
                    ins.append(f"{root}[{off}:{off + p[1]}]")
                else:  # a slice of rows a stride apart: left to the launch
                    return False
            call = [str(d) for d in dims] + outs + ins
        k = self._kernel(r, kern)
        svn = f"sv{len(r.params)}"
        r.params.append((svn, ("sv", sv)))
        r.lines.append(f"    {k}({', '.join(call + [svn] + (acc if w[0] == 'nest' else []))})  # {n.op.name}")
        return True

    def _mm(self, r: Run, n) -> bool:
        a, b = (x.index for x in n.args)
        if not _HAS_NUMBA_BLAS or not (self._ext(r, a) and self._ext(r, b)):
            return False
        (o,) = n.outs
        la, lb = r.loc[a], r.loc[b]
        if len(la[2]) != 2 or len(lb[2]) != 2 or la[4] != lb[4] or la[2][1] != lb[2][0]:
            return False
        root = self._out(r, o)
        if root is None or r.loc[o][4] != la[4]:
            return False
        m, k = la[2]
        nn = lb[2][1]
        res = f"{root}.reshape(({m}, {nn}))"
        if k == 1 and m > 1 and nn > 1:  # eager's outer product: a multiply
            r.lines.append(f"    np.multiply({self._arr(r, a)}, {self._arr(r, b)}, {res})  # mm (outer)")
        else:
            xa = self._arr(r, a, blas=True)
            xb = self._arr(r, b, blas=True)
            r.lines.append(f"    gemm({xa}, {xb}, {res})  # mm")
        return True

    def _binary(self, r: Run, n) -> bool:
        if len(n.args) != 2:
            return False
        a, b = (x.index for x in n.args)
        if not (self._ext(r, a) and self._ext(r, b)):
            return False
        (o,) = n.outs
        try:
            if np.broadcast_shapes(r.loc[a][2], r.loc[b][2]) != tuple(self.g.buffers[o].shape):
                return False
        except ValueError:
            return False
        root = self._out(r, o)
        if root is None or not (r.loc[a][4] == r.loc[b][4] == r.loc[o][4]):
            return False
        r.lines.append(f"    {_UFUNCS[n.op.name]}({self._arr(r, a)}, {self._arr(r, b)}, "
                       f"{self._arr(r, o)})  # {n.op.name}")
        return True


def runs(g, fixed: set, inlined, settled: set, slots: dict, names: dict) -> list[Run]:
    """The runs of `g`'s nodes that run inside Numba, each of two kernels or more (NOTE [ The whole plan as one
    function ]); `names` holds the buffers named before the nodes (inputs, constants)."""
    bld = _Builder(g, fixed, {id(x) for x in inlined}, settled, slots, dict(names))
    out: list[Run] = []
    cur = None

    def close(r: Run | None) -> None:
        if r is None:
            return
        if r.kernels >= 2:
            out.append(r)
        for n in g.nodes[r.start:r.end]:  # what a later run reads of these, the replay has named
            bld.names.update({o: f"v{o}" for o in n.outs if o is not None})

    for i, n in enumerate(g.nodes):
        if cur is not None and bld.add(cur, i, n):
            continue
        close(cur)
        cur = bld.new(i)
        if not bld.add(cur, i, n):
            cur = None
            bld.names.update({o: f"v{o}" for o in getattr(n, "outs", ()) if o is not None})
    close(cur)
    return out


def emit(r: Run, g, names: dict, later: set, obj, wrap_name: str, slot_base: int) -> list[str] | None:
    """The replay's lines for run `r`: one call of its function, then the tensors of the run's buffers in `later`
    (read after it) named `v<buffer>` in `names`. `obj(value, prefix)` puts a value in the replay's globals.
    None where Numba cannot compile the run: the replay keeps its nodes' own lines."""
    produced = [b for b in r.loc if r.roots.get(r.loc[b][0]) != ("ext", b)]
    escape = [b for b in produced if b in later]
    new_roots = sorted({r.loc[b][0] for b in escape if r.roots[r.loc[b][0]][0] == "new"})
    ret = "(" + "".join(f"{x}, " for x in new_roots) + ")" if new_roots else "0"
    fn = _function(r, ret)
    try:  # compiled now, for the types the plan fixes, so a run Numba cannot type is never emitted
        fn.compile(_signature(r, g))
    except Exception:  # noqa: BLE001 (any of Numba's errors: the run is left to the per-node lines)
        return None
    args = []
    for _p, (kind, v) in r.params:
        args.append(f"{names[v]}._np()" if kind == "ext" else f"_A[{slot_base + v}]" if kind == "slot"
                    else obj(v, "w"))
    call = f"{obj(fn, 'W')}({', '.join(args)})"
    lines = [f"    _r = {call}  # nodes {r.start}-{r.end - 1}: one Numba function, {r.kernels} kernels"
             if new_roots else f"    {call}  # nodes {r.start}-{r.end - 1}: one Numba function, {r.kernels} kernels"]
    tensor = {}
    for j, root in enumerate(new_roots):
        tensor[root] = f"_t{root}"
        lines.append(f"    _t{root} = {wrap_name}(_r[{j}])")
    for b in escape:
        root, off, shape, strides, _ = r.loc[b]
        kind, v = r.roots[root]
        if root not in tensor:
            tensor[root] = f"_t{root}"
            src = names[v] if kind == "ext" else f"{wrap_name}(_A[{slot_base + v}])"
            lines.append(f"    _t{root} = {src}")
        t = tensor[root]
        names[b] = f"v{b}"
        lines.append(f"    v{b} = _make({t}._storage, {t}._offset + {off}, {shape!r}, {strides!r}, "
                     f"{obj(g.buffers[b].dtype, 'd')})")
    if new_roots:
        lines.append("    del _r")
    return lines


_loaded: dict = {}


def _signature(r: Run, g) -> tuple:
    """The Numba types of run `r`'s arguments at a replay: each as `numba.typeof` types the array it gets."""
    import numba

    types = []
    for _p, (kind, v) in r.params:
        if kind == "ext":  # a stand-in of the buffer's geometry over one element (its flags, never read)
            b = g.buffers[v]
            dt = np.dtype(b.dtype.np)
            a = np.lib.stride_tricks.as_strided(np.empty(1, dt), b.shape, tuple(s * dt.itemsize for s in b.strides))
            types.append(numba.typeof(a))
        elif kind == "slot":
            types.append(numba.types.Array(numba.from_dtype(g.arena.geometry[v][2]), 1, "C"))
        else:
            types.append(numba.typeof(v))
    return tuple(types)


def _function(r: Run, ret: str):
    """Run `r`'s compiled function (written to the cache directory by a hash of its source, imported from there)."""
    params = [p for p, _ in r.params]
    src = ("import sys\nimport numba\nimport numpy as np\nfrom numpy.lib.stride_tricks import as_strided\n\n"
           + "from ember.jit.numba_gemm import gemm\n"
           + "".join(f"{k} = getattr(sys.modules[{m!r}], {a!r})\n" for k, (m, a) in r.fns.items())
           + "\n\n@numba.njit(cache=True, nogil=True, error_model='numpy', no_cfunc_wrapper=True)\n"
           + f"def run({', '.join(params)}):\n" + "".join(line + "\n" for line in r.lines)
           + f"    return {ret}\n")
    sha = hashlib.sha256(src.encode()).hexdigest()[:24]
    fn = _loaded.get(sha)
    if fn is None:
        _match_blas_threads()
        fn = _loaded[sha] = codegen.import_source(src, f"ember_plan_{sha}").run
        fn.source = src
    return fn


# Numba's `np.dot` calls scipy's BLAS: without scipy a `mm` ends a run (it stays eager's call)
_HAS_NUMBA_BLAS = importlib.util.find_spec("scipy") is not None


def _match_blas_threads() -> None:
    """Load scipy's BLAS (Numba's `np.dot` calls it) and give it the thread count numpy's BLAS has: loaded after a
    thread limit was set (`torch.set_num_threads`, threadpoolctl), it would run its default count."""
    try:
        import scipy.linalg.cython_blas  # noqa: F401
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return
    ctl = ThreadpoolController()
    blas = [c for c in ctl.lib_controllers if c.user_api == "blas"]
    mine = [c for c in blas if "numpy" in c.filepath]
    if mine:
        n = mine[0].num_threads
        for c in blas:
            if c.num_threads != n:
                c.set_num_threads(n)
