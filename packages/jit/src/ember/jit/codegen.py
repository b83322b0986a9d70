"""Generated Numba kernels for fused elementwise groups, cached on disk by the group's structure.

NOTE [ Fused kernels and their disk cache ]
A fused group (`ember.jit.fusion`) is a straight-line program over flat operands: each step is one
op of `EXPR` on earlier steps, tensor inputs or scalar arguments. `kernel_source` writes it as a
loop over the flattened output, or a rows x cols nest where it reads broadcast rows or columns or
ends in a sum (NOTE [ Broadcast operands and epilogue sums ] in ember.jit.fusion), one line per
step, in the group's float dtype (scalars are passed in that dtype, constants are written as
`np.float32(1.0)`, so nothing is promoted to float64 as a Python literal would be). Two variants
are emitted: serial, and `parallel=True` over `prange`, the latter used from
`config.fuse_parallel_min` elements on (a group ending in a sum has only the serial one).

Numba's `cache=True` works only for functions defined in a real file, keyed by the file's path
and modification time. So the source goes to `<cache dir>/ember_fused_<sha>.py` (the name is a
hash of the source, written once, atomically, never rewritten) and is imported from there: a
second process that builds the same group finds the file and Numba's cache next to it, and
compiles nothing. `stats()` counts, from Numba's own dispatcher statistics, how many kernels this
process compiled and how many it loaded from the cache.

Numerics: the steps compute in the same dtype and the same order as eager, so add, sub, mul, div,
neg and the formulas written from them round as eager does; the transcendental functions are the
very scalar functions eager's kernels loop over (NOTE [ Eager and fused transcendentals share one
implementation ] in ember.core.ops.vector_math): in float32 groups `exp`, `tanh`, `sigmoid`, `silu`,
`sin`, `cos` and the logs, in float64 groups `exp`, `tanh`, `sigmoid` and `silu`, are ember.jit.vmath's
vectorizable forms (NOTE [ Vectorized exp in fused kernels ]), the others LLVM's libm (`math.sin` ...),
as eager's. A fused group is bitwise eager's.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
import tempfile

from ember.jit import config

__all__ = ["EXPR", "EXPR32", "EXPR64", "ARITH", "VECTOR32", "VECTOR64", "arity", "kernel_source", "step_lines", "load",
           "import_source", "cache_dir", "stats"]

# op name -> an expression over `x` (and `y`, `z`) in the group's dtype; `ONE`/`ZERO`/`NAN` are typed constants
EXPR = {
    "neg": "-x", "abs": "abs(x)", "square": "x * x", "relu": "ZERO if x < ZERO else x",
    "exp": "math.exp(x)", "expm1": "math.expm1(x)", "log": "math.log(x)", "log1p": "math.log1p(x)",
    "log2": "math.log2(x)", "log10": "math.log10(x)", "sqrt": "math.sqrt(x)", "rsqrt": "ONE / math.sqrt(x)",
    "reciprocal": "ONE / x", "sin": "math.sin(x)", "cos": "math.cos(x)", "tan": "math.tan(x)",
    "asin": "math.asin(x)", "acos": "math.acos(x)", "atan": "math.atan(x)", "sinh": "math.sinh(x)",
    "cosh": "math.cosh(x)", "tanh": "math.tanh(x)", "asinh": "math.asinh(x)", "acosh": "math.acosh(x)",
    "atanh": "math.atanh(x)", "sigmoid": "ONE / (ONE + math.exp(-x))", "silu": "x * (ONE / (ONE + math.exp(-x)))",
    "add": "x + y", "sub": "x - y", "mul": "x * y", "div": "x / y",
    # PyTorch's element path, as eager (`elementwise._extremum`): of equal zeros the first operand, the canonical NaN
    "maximum": "NAN if x != x or y != y else (y if x < y else x)",
    "minimum": "NAN if x != x or y != y else (y if x > y else x)",
    # relu's backward (grad, input, threshold): +0.0 where input <= threshold, else grad (a NaN input passes grad)
    "threshold_backward": "ZERO if y <= z else x",
    # sigmoid's and tanh's backward from their results (grad, y), in eager's (core's activation.py) order
    "sigmoid_backward": "x * y * (ONE - y)", "tanh_backward": "x * (ONE - y * y)",
    # min(x, 0) - log1p(exp(-|x|)) and its backward (grad, input) grad * sigmoid(-input), as eager's (and CUDA's)
    "log_sigmoid": "(x if x < ZERO else ZERO) - math.log1p(math.exp(-abs(x)))",
    "log_sigmoid_backward": "x * (ONE / (ONE + math.exp(y)))",
}

# ops whose expression LLVM vectorizes (no libm call); the others call libm per value
ARITH = frozenset({"neg", "abs", "square", "relu", "sqrt", "rsqrt", "reciprocal", "add", "sub", "mul", "div",
                   "maximum", "minimum", "threshold_backward", "sigmoid_backward", "tanh_backward"})

# float32 groups: exp, sin, cos, the logs and the functions written from them use ember.jit.vmath's branch-free
# forms, which vectorize (NOTE [ Vectorized exp in fused kernels ]); they join groups of any size
EXPR32 = {**EXPR, "exp": "exp32(x)", "tanh": "tanh32(x)", "sigmoid": "sigmoid32(x)", "silu": "silu32(x)",
          "sin": "sin32(x)", "cos": "cos32(x)", "log": "log32(x)", "log2": "log2_32(x)",
          "log10": "log10_32(x)", "log1p": "log1p32(x)", "log_sigmoid": "log_sigmoid32(x)",
          "log_sigmoid_backward": "x * sigmoid32(-y)"}
VECTOR32 = ARITH | {"exp", "tanh", "sigmoid", "silu", "sin", "cos", "log", "log2", "log10", "log1p", "log_sigmoid",
                    "log_sigmoid_backward"}
# float64 groups: exp and the functions written from it use core's branch-free float64 forms (eager's too)
EXPR64 = {**EXPR, "exp": "exp64(x)", "tanh": "tanh64(x)", "sigmoid": "sigmoid64(x)", "silu": "silu64(x)",
          "log_sigmoid": "log_sigmoid64(x)", "log_sigmoid_backward": "x * sigmoid64(-y)"}
VECTOR64 = ARITH | {"exp", "tanh", "sigmoid", "silu", "log_sigmoid_backward"}

_kernels: dict[str, tuple] = {}  # sha -> (serial, parallel), this process's loaded kernels


def cache_dir() -> str:
    """Where generated sources (and Numba's cache beside them) live: `config.fuse_cache_dir`, else
    $EMBER_JIT_CACHE_DIR, else ~/.cache/ember/jit."""
    d = config.fuse_cache_dir or os.environ.get("EMBER_JIT_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "ember", "jit")
    os.makedirs(d, exist_ok=True)
    return d


def arity(name: str) -> int:
    """How many operands op `name` of `EXPR` takes: the variables `x`, `y`, `z` its expression uses."""
    return sum(_subst_var(EXPR[name], v, "\0") != EXPR[name] for v in "xyz")


def kernel_source(dtype: str, kinds: str, n_scalar: int, steps: tuple, outs: tuple, reduce: tuple | None = None) -> str:
    """The module source of a group (NOTE [ Broadcast operands and epilogue sums ] in ember.jit.fusion).

    `kinds` says how the loop reads input j: "a" the whole group (flat index), "r" a row (index `j`, the
    position in the group's inner block), "c" a column (index `i`, the row of the block), each from a
    1-D C-contiguous array; "s" the whole group from a 1-D C-contiguous array whose rows of cols values
    lie `q<j>` elements apart (a slice of a wider matrix, read in place through a slice per row: indexed
    as a 2-D strided array the loop did not vectorize, 49 -> 21 us for two products on a 1024 x 64
    slice); "b" one value, the first of an array of any shape (passed as it is:
    `expand` of a scalar gradient, all strides 0, costs no conversion). `steps` are (op name, operands) with operands
    ("a", j) an input, ("s", j) a scalar, ("t", k) step k's value; `outs` the steps written out.
    Scalars come in one array `sv` (one argument: Numba's dispatch types arrays fast, numpy scalars not).
    With only "a" and "b" inputs and no `reduce` the kernel is one flat loop `(n, outs..., inputs..., sv)`;
    otherwise a rows x cols nest `(rows, cols, outs..., inputs..., sv[, r])`, whose inner loop runs
    along contiguous memory. `reduce` = (axis, step, wide) sums step's value into `r`: axis "rows" over
    the rows (r[cols]: a bias gradient), "cols" over each row (r[rows]), "all" (r[1]); `wide`
    accumulates in float64 (always for "cols" and "all")."""
    n_in = len(kinds)
    nest = reduce is not None or any(k in "rcs" for k in kinds)
    red = ["r"] if reduce is not None else []
    params = ", ".join((["rows", "cols"] if nest else ["n"]) + [f"o{k}" for k in range(len(outs))]
                       + [f"a{j}" for j in range(n_in)] + ["sv"] + [f"q{j}" for j in range(n_in) if kinds[j] == "s"]
                       + red)
    ind = "            " if nest else "        "
    # a slice ("s") is read through a row slice indexed by the inner loop's `j`, an index LLVM sees in range and
    # non-negative (`i * q + j` into the whole array kept the loop scalar); whole operands keep `k` (row slices
    # of them measured 10-30% slower)
    read = {"a": "[k]" if nest else "[i]", "r": "[j]", "s": "r[j]"}
    pre = [f"    s{j} = sv[{j}]" for j in range(n_scalar)]
    pre += [f"    a{j}i = a{j}.flat[0]" for j in range(n_in) if kinds[j] == "b"]
    body = [f"{ind}a{j}i = a{j}{read[kinds[j]]}" for j in range(n_in) if kinds[j] in read]
    body += [ind + line for line in step_lines(EXPR32 if dtype == "float32" else EXPR64, steps)]
    body += [f"{ind}o{m}[{'k' if nest else 'i'}] = t{k}" for m, k in enumerate(outs)]
    row_slices = [f"        a{j}r = a{j}[i * q{j}:i * q{j} + cols]" for j in range(n_in) if kinds[j] == "s"]
    head = ("import math\nimport numba\nimport numpy as np\n"
            + f"from ember.jit.vmath import *  # vmath {_vmath_sha()}\n"
            + f"\nONE = np.{dtype}(1.0)\nZERO = np.{dtype}(0.0)\nNAN = np.{dtype}(np.nan)\nBLOCK = {BLOCK}\n")
    fns = []
    for name, par in (("serial", False), ("parallel", True)):
        if par and reduce is not None:  # the sums run in row order: one serial kernel for both
            fns.append("\n\nparallel = serial\n")
            continue
        # no C callback wrapper: the launch calls the dispatcher or its CPython entry point (5% less compile)
        deco = (f"@numba.njit(cache=True, nogil=True, error_model='numpy', no_cfunc_wrapper=True"
                f"{', parallel=True' if par else ''})")
        rng = "numba.prange" if par else "range"
        if not nest and not par:
            loop = _blocked(dtype, kinds, steps, outs)
        elif not nest:
            loop = f"    for i in {rng}(n):\n" + "".join(line + "\n" for line in body)
        else:
            loop = _nest(rng, [f"        a{j}i = a{j}[i]" for j in range(n_in) if kinds[j] == "c"], row_slices, body,
                         reduce)
        fns.append(f"\n\n{deco}\ndef {name}({params}):\n" + "".join(p + "\n" for p in pre) + loop)
    return head + "".join(fns)


# elements per block of the serial flat loop (NOTE [ Blocked steps ])
BLOCK = 128


def _blocked(dtype: str, kinds: str, steps: tuple, outs: tuple) -> str:
    """The serial flat loop of `kernel_source`, step by step over blocks of `BLOCK` elements.

    NOTE [ Blocked steps ]
    One loop computing every step per element makes each iteration one long chain of dependent
    operations (three chained `exp32`s take 5.4 times one), longer than the core's out-of-order window,
    so it mostly waits. Here each block of `BLOCK` elements runs one loop per step, reading its operands
    from the inputs or from the earlier steps' rows of one (steps, `BLOCK`) scratch array (in L1) and
    writing its own row: the loops are short, independent across elements and vectorize. The same
    operations on the same values, so the same bits. The full blocks' loops run a constant `BLOCK` times
    (LLVM then emits the vector loop alone, no remainder tests), the last partial block the rest. Measured
    on the 64x1024 float32 chain's forward kernel alone (one interleaved run, CPU time, best of 5): one loop
    418 us, blocks bounded by `min(BLOCK, n - b0)` with one array per step 418 -> 322 us with constant
    bounds, 300 us with one scratch array (10 separate arrays: 322); blocks of 64 or 256 within 2% of 128.
    Under one block (100 elements) it costs about what the one loop did (1.5 against 1.7 us a call).
    Keeping the one loop for small groups, or for the tail, made the blocks slower (385 us), as did
    moving the blocks into a function of their own: kept as it is."""
    table = EXPR32 if dtype == "float32" else EXPR64
    used = sorted({j for _, operands in steps for kind, j in operands if kind == "t"})
    row = {k: r for r, k in enumerate(used)}
    written = dict((k, m) for m, k in enumerate(outs))

    def block(ind: str, count: str) -> list:
        lines = []
        for k, (name, operands) in enumerate(steps):
            expr = table[name]
            for var, (kind, j) in zip("xyz", operands):
                if kind == "a" and kinds[j] == "a":
                    val = f"a{j}[b0 + q]"
                elif kind == "a":  # one broadcast value, read before the loop
                    val = f"a{j}i"
                elif kind == "t":
                    val = f"buf[{row[j]}, q]"
                else:
                    val = f"s{j}"
                expr = _subst_var(expr, var, val)
            lines += [f"{ind}for q in range({count}):", f"{ind}    t{k} = {expr}"]
            if k in row:
                lines.append(f"{ind}    buf[{row[k]}, q] = t{k}")
            if k in written:
                lines.append(f"{ind}    o{written[k]}[b0 + q] = t{k}")
        return lines

    lines = [f"    buf = np.empty(({len(used)}, BLOCK), np.{dtype})"] if used else []
    lines += ["    nf = n - n % BLOCK", "    for b0 in range(0, nf, BLOCK):"] + block("        ", "BLOCK")
    lines += ["    if nf < n:", "        b0 = nf", "        m = n - nf"] + block("        ", "m")
    return "".join(line + "\n" for line in lines)


def step_lines(table: dict, steps: tuple) -> list[str]:
    """One line `t<k> = <expression>` per step, from `table` (op name -> expression over x, y, z): an input
    operand ("a", j) reads `a<j>i`, a scalar ("s", j) `s<j>`, an earlier step ("t", k) `t<k>`."""
    lines = []
    for k, (name, operands) in enumerate(steps):
        expr = table[name]
        for var, (kind, j) in zip("xyz", operands):
            expr = _subst_var(expr, var, f"a{j}i" if kind == "a" else f"{kind}{j}")
        lines.append(f"t{k} = {expr}")
    return lines


def _nest(rng: str, row_reads: list, row_slices: list, body: list, reduce: tuple | None) -> str:
    """The rows x cols loops of `kernel_source` around `body`, with `reduce`'s accumulation."""
    axis, step, wide = reduce if reduce is not None else (None, None, False)
    before, row_top, inner, row_end, after = [], [], [], [], []
    if axis == "rows" and not wide:  # numpy's order for a sum over the outer dims: from 0, row after row
        before = ["    for j in range(cols):", "        r[j] = ZERO"]
        inner = [f"            r[j] += t{step}"]
    elif axis in ("rows", "all"):  # float64 column accumulators, vectorized along the row
        before = ["    acc = np.zeros(cols, np.float64)"]
        inner = [f"            acc[j] += t{step}"]
        if axis == "rows":
            after = ["    for j in range(cols):", "        r[j] = acc[j]"]
        else:
            after = ["    tot = 0.0", "    for j in range(cols):", "        tot += acc[j]", "    r[0] = tot"]
    elif axis == "cols":
        row_top = ["        acc = 0.0"]
        inner = [f"            acc += t{step}"]
        row_end = ["        r[i] = acc"]
    lines = (before + [f"    for i in {rng}(rows):"] + row_reads + row_top + ["        k0 = i * cols"] + row_slices
             + ["        for j in range(cols):", "            k = k0 + j"] + body + inner + row_end + after)
    return "".join(line + "\n" for line in lines)


@functools.cache
def _vmath_sha() -> str:
    """A hash of ember.jit.vmath's source and of core's vector_math and vector_exp it imports, written into the
    kernels that inline them: Numba's cache of a kernel checks only the kernel's own file, so a changed function
    must give the kernel another file (another name)."""
    from ember.core.ops import vector_exp, vector_math
    from ember.jit import vmath

    h = hashlib.sha256()
    for module in (vmath, vector_math, vector_exp):
        with open(module.__file__, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def _subst_var(expr: str, var: str, val: str) -> str:
    """`expr` with the one-letter variable `var` (a whole word) replaced by `val`."""
    out, i = [], 0
    while i < len(expr):
        c = expr[i]
        if c == var and (i == 0 or not (expr[i - 1].isalnum() or expr[i - 1] in "._")) and (
                i + 1 == len(expr) or not (expr[i + 1].isalnum() or expr[i + 1] == "_")):
            out.append(val)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def load(source: str) -> tuple:
    """The (serial, parallel) Numba dispatchers of `source`, written to the cache directory once and
    imported from there (so `cache=True` applies); nothing compiles until the first call."""
    sha = hashlib.sha256(source.encode()).hexdigest()[:24]
    got = _kernels.get(sha)
    if got is None:
        mod = import_source(source, f"ember_fused_{sha}")
        got = _kernels[sha] = (mod.serial, mod.parallel)
    return got


def import_source(source: str, name: str):
    """The module `name` of `source`, written to `<cache dir>/<name>.py` once (atomically, never rewritten)
    and imported from that file, so Numba's `cache=True` can key its cache on the file."""
    d = cache_dir()
    path = os.path.join(d, name + ".py")
    if not os.path.exists(path):  # never rewritten: Numba's cache index checks the file's mtime
        fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def stats() -> dict:
    """This process's fused kernels: `kernels` loaded, `compiled` signatures Numba compiled (cache
    misses) and `cached` ones it loaded from the disk cache (hits)."""
    compiled = cached = 0
    for pair in _kernels.values():
        for k in pair:
            compiled += sum(k.stats.cache_misses.values())
            cached += sum(k.stats.cache_hits.values())
    return {"kernels": len(_kernels), "compiled": compiled, "cached": cached}
