"""Generated CUDA kernels for fused elementwise groups: the CUDA twin of `ember.jit.codegen`.

NOTE [ Fused kernels on CUDA ]
`kernel_source` writes the group that `codegen.kernel_source` gets (dtype, operand kinds, steps,
outputs) as one `numba.cuda` kernel: a grid-stride loop, one thread per element, one line per step
from the same table, `codegen.EXPR` (never ember.jit.vmath's CPU forms: they are not device
functions, and CUDA's `math.exp`, `math.tanh` are libdevice's). A few entries are swapped for the
formulas ember.core's CUDA kernels use, so a fused kernel gives what eager CUDA gives and never
raises in the simulator, whose `math` is Python's: log, sqrt, asin ... outside their domain give
NaN (or -inf/inf at a pole) through a guard, sigmoid and silu take exp of a non-positive argument only.
One difference from eager remains on a GPU: NVVM contracts a multiply whose result an add takes into one
FMA (Numba-CUDA offers no switch for it), rounded once where eager's two kernels round twice, so
`x * a + b` can differ by an ulp (the simulator rounds as eager; the CPU kernel does not contract).

A tensor operand comes as the flat typed device array of its storage and its element offset (a
C-contiguous one is read at `a[off + i]`, a broadcast one at `a[off]`, once); scalars come as
arguments of the group's dtype; results are new contiguous tensors from the caching allocator, and
the launch queues on the current stream, as ember.core's launchers do (`launch_util`).

The source is written beside the CPU kernels (`<cache dir>/ember_cuda_fused_<sha>.py`, see NOTE [ Fused
kernels and their disk cache ]) and imported from there, so Numba-CUDA's `cache=True` keeps each
compiled kernel for the next process on a GPU (the simulator compiles and caches nothing). `ptx_cases`
gives `python -m ember.core.cuda.ptx_check --cases ember.jit.cuda_codegen` a kernel of every op.
"""

from __future__ import annotations

import hashlib
import math

from ember.jit import codegen

__all__ = ["EXPR", "kernel_source", "load", "runner", "ptx_group", "ptx_cases"]


def _guarded(name: str, domain: str, outside: str) -> str:
    """`codegen.EXPR[name]` where `domain` holds, else `outside` (libdevice's value; the simulator would raise)."""
    return f"{codegen.EXPR[name]} if {domain} else {outside}"


_POLE0 = "(-INF if x == ZERO else NAN)"
# op name -> expression over `x` (and `y`); `ONE`, `ZERO`, `INF`, `NAN` are constants of the group's dtype
EXPR = {
    **codegen.EXPR,
    "log": _guarded("log", "x > ZERO", _POLE0), "log2": _guarded("log2", "x > ZERO", _POLE0),
    "log10": _guarded("log10", "x > ZERO", _POLE0),
    "log1p": _guarded("log1p", "x > -ONE", "(-INF if x == -ONE else NAN)"),
    "sqrt": _guarded("sqrt", "x >= ZERO", "NAN"), "rsqrt": _guarded("rsqrt", "x >= ZERO", "NAN"),
    "asin": _guarded("asin", "x >= -ONE and x <= ONE", "NAN"),
    "acos": _guarded("acos", "x >= -ONE and x <= ONE", "NAN"),
    "acosh": _guarded("acosh", "x >= ONE", "NAN"),
    "atanh": _guarded("atanh", "x > -ONE and x < ONE", "(x * INF if x == ONE or x == -ONE else NAN)"),
    "sigmoid": _guarded("sigmoid", "x >= ZERO", "math.exp(x) / (ONE + math.exp(x))"),
    "silu": _guarded("silu", "x >= ZERO", "x * math.exp(x) / (ONE + math.exp(x))"),
}

_kernels: dict[str, object] = {}  # sha -> this process's loaded kernel


def kernel_source(dtype: str, kinds: str, n_scalar: int, steps: tuple, outs: tuple) -> str:
    """The module source of a group's CUDA kernel; `kinds`, `steps` and `outs` as for `codegen.kernel_source`
    ("a" an input read at `off + i`, "b" one broadcast value). Parameters: the element count, the outputs,
    then each input's flat array and element offset, then the scalars."""
    n_in = len(kinds)
    params = ", ".join(["n"] + [f"o{m}" for m in range(len(outs))]
                       + [f"a{j}, off{j}" for j in range(n_in)] + [f"s{j}" for j in range(n_scalar)])
    pre = [f"    a{j}i = a{j}[off{j}]" for j in range(n_in) if kinds[j] == "b"]
    body = [f"a{j}i = a{j}[off{j} + i]" for j in range(n_in) if kinds[j] == "a"]
    body += codegen.step_lines(EXPR, steps) + [f"o{m}[i] = t{k}" for m, k in enumerate(outs)] + ["i += step"]
    return ("import math\n\nimport numpy as np\nfrom numba import cuda\n\n"
            f"ONE = np.{dtype}(1.0)\nZERO = np.{dtype}(0.0)\nINF = np.{dtype}(np.inf)\nNAN = np.{dtype}(np.nan)\n"
            f"\n\n@cuda.jit(cache=True)\ndef kernel({params}):\n" + "".join(p + "\n" for p in pre)
            + "    i = cuda.grid(1)\n    step = cuda.gridsize(1)\n    while i < n:\n"
            + "".join(f"        {line}\n" for line in body))


def load(source: str):
    """The `cuda.jit` kernel of `source`, imported from its file in the cache directory; it compiles at its
    first launch (or loads from Numba-CUDA's cache)."""
    sha = hashlib.sha256(source.encode()).hexdigest()[:24]
    kern = _kernels.get(sha)
    if kern is None:
        kern = _kernels[sha] = codegen.import_source(source, f"ember_cuda_fused_{sha}").kernel
    return kern


def runner(dtype, device, shape: tuple, kinds: str, scalars: list, steps: tuple, outs: tuple):
    """The replay function of a fused group on `device`: takes the input tensors, returns the `outs` results
    (new contiguous tensors of `shape` and ember dtype `dtype`), after one launch on the current stream."""
    from ember.core.cuda import launch_util as lu

    kern = load(kernel_source(dtype.np.name, kinds, len(scalars), steps, outs))
    size = math.prod(shape)
    sv = [dtype.np.type(s) for s in scalars]  # cast as eager's numpy casts a Python number for dtype's arrays

    def run(*ts):
        res = [lu.empty(shape, dtype, device) for _ in outs]
        if size:
            args = [size, *(lu.typed(r) for r in res)]
            for t in ts:
                args += [lu.typed(t), t._offset]
            blocks, threads = lu.grid(size)
            kern[blocks, threads, lu.stream()](*args, *sv)
        return tuple(res)

    return run


def ptx_group() -> tuple:
    """The group `ptx_cases` compiles: (kinds, steps, scalar count). Every op of `EXPR` on inputs 0 (and 1,
    and scalar 0 as a third), then a step with a broadcast input and one with a scalar; every step is written out."""
    operands = (("a", 0), ("a", 1), ("s", 0))
    steps = [(name, operands[:codegen.arity(name)]) for name in EXPR]
    steps += [("add", (("t", len(steps) - 1), ("a", 2))), ("mul", (("t", len(steps)), ("s", 0)))]
    return "aab", tuple(steps), 1


def ptx_cases():
    """(label, Python kernel function, argument types) for `ember.core.cuda.ptx_check`: `ptx_group` in
    float32 and float64."""
    from numba import types as T

    kinds, steps, n_scalar = ptx_group()
    outs = tuple(range(len(steps)))
    for dname in ("float32", "float64"):
        arr, sc = T.Array(getattr(T, dname), 1, "C"), getattr(T, dname)
        fn = load(kernel_source(dname, kinds, n_scalar, steps, outs)).py_func
        sig = (T.int64, *([arr] * len(outs)), *[t for _ in kinds for t in (arr, T.int64)], *([sc] * n_scalar))
        yield f"fused every op[{dname}]", fn, sig
