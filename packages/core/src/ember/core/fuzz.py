"""The fuzz campaign over the op table: random calls of every op that has an `OpInfo`, run in
child processes and classified.

NOTE [ The fuzz campaign ]
Cases are plain data (`Case`: op name, argument specs, keywords), drawn by hypothesis from each
op's `OpInfo` (dtypes, domain, attributes) with a fixed seed: random shapes with 0-size and 1-size
dims, contiguous, strided, transposed, expanded, overlapping (every stride 1) and offset inputs,
every dtype (also those the op refuses), NaN, inf, -0.0 and extreme values, Python scalars, wrong
Python types, `out=`, and for reductions dims out of range and repeated.
Batches of cases run in a child process (`python -m ember.core.fuzz`), which reports each case
before and after it runs, so a crash (a signal) or a hang (the batch's time limit) is pinned on
one case and the rest of the batch goes on in a fresh child. Each case lands in one class:

- `ok`: the result has the expected shape and dtype and matches the float64 reference;
- `error`: an invalid call (wrong type, a refused dtype, shapes that do not broadcast, an
  integer division by zero) raised a clean exception of PyTorch's kind;
- `unchecked`: a valid call returned, but the reference itself could not compute the case;
- defects: `wrong` (a value, shape or dtype differs from the reference), `rejected` (a valid
  call raised), `accepted` (an invalid call returned), `bad-error` (an exception of the wrong
  kind: `AttributeError`, `KeyError`, numpy's or Numba's internals), `crash`, `hang`.
Every defect carries a one-line reproduction (`Case.repro()`). Drawing needs hypothesis (a test
dependency, imported when cases are drawn); the `--torch` comparison of `scripts/fuzz_ops.py` runs
each case in PyTorch too (`against_torch`, in the child, with `EMBER_FUZZ_TORCH=1`).
"""

from __future__ import annotations

import contextlib

import json
import os
import pickle
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

__all__ = ["TensorSpec", "Bad", "Case", "Outcome", "draw_cases", "run_cases", "run_case", "DEFECTS", "leaked"]

DEFECTS = ("wrong", "rejected", "accepted", "bad-error", "crash", "hang")
CLEAN = (TypeError, ValueError, RuntimeError, IndexError, ZeroDivisionError, NotImplementedError)
LAYOUTS = ("contiguous", "strided", "transposed", "expanded", "offset", "overlapping")
CHANNELS_LAST = "channels_last"  # dim 1 innermost (NHWC, NDHWC): drawn by the conv and pool families
SPECIALS = (float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1e30, -1e30, 1e-30, 65504.0)
_TOL = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (2e-5, 1e-5), "float64": (1e-9, 1e-10),
        "complex64": (2e-5, 1e-5), "complex128": (1e-9, 1e-10)}


@dataclass(frozen=True)
class TensorSpec:
    """A tensor to build in the child: values from `seed` in (low, high), `specials` written at
    the given flat positions, laid out as `layout`."""

    shape: tuple[int, ...]
    dtype: str
    layout: str = "contiguous"
    seed: int = 0
    low: float = -4.0
    high: float = 4.0
    specials: tuple[tuple[int, float], ...] = ()

    def repro(self) -> str:
        s = f"T({self.shape}, '{self.dtype}'"
        if self.layout != "contiguous":
            s += f", layout='{self.layout}'"
        return s + (f", specials={self.specials})" if self.specials else ")")


@dataclass(frozen=True)
class Bad:
    """A wrong Python value where a tensor belongs."""

    value: object

    def repro(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class Case:
    op: str
    args: tuple
    kwargs: tuple = ()  # ((name, value), ...)

    def repro(self) -> str:
        parts = [_repro(a) for a in self.args] + [f"{k}={_repro(v)}" for k, v in self.kwargs]
        return f"{self.op}({', '.join(parts)})"


@dataclass
class Outcome:
    case: Case
    cls: str
    detail: str = ""
    extra: dict = field(default_factory=dict)


def _repro(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_repro(x) for x in v) + "]"
    return v.repro() if isinstance(v, TensorSpec | Bad) else repr(v)


# --- drawing cases (hypothesis) --------------------------------------------------------------
_COMPLEX = ("complex64", "complex128")
_EXACT_OUT = {"amax", "amin"}  # PyTorch's meta: out= in the input's dtype exactly, no cast
_ROUNDING = {"ceil", "floor", "round", "trunc"}  # TensorIterator's check: out= in the result dtype exactly
_ANY_OUT = {"sum", "prod"}  # PyTorch's kernels write any out= dtype (a float sum into a bool or int32 out)
_BOOL_OUT = {"signbit"}  # out= must be bool (a complex input is refused first)
_REAL_VALUED = {"abs"}  # complex in, real out: the table's dtype rules do not say so yet


def _strategies(kinds=None, complex_: bool = False):
    from types import SimpleNamespace

    from hypothesis import strategies as st

    from ember.core import dtypes
    from ember.core.fuzz_family import family_names
    from ember.core.opinfo import ops_with_info

    infos = {n: o.info for n, o in ops_with_info().items()} | family_names()
    ops = {n: i for n, i in infos.items() if kinds is None or i.kind in kinds}
    all_dtypes = [d.name for d in dtypes.ALL if not d.is_complex]  # the references are real (float64)
    shapes = st.lists(st.sampled_from([0, 1, 1, 2, 3, 5]), min_size=0, max_size=4).map(tuple)

    @st.composite
    def tensor(draw, dtype, shape, low, high):
        n = int(np.prod(shape)) if shape else 1
        specials = ()
        if n and dtype in ("float16", "bfloat16", "float32", "float64") and draw(st.integers(0, 3)) == 0:
            k = draw(st.integers(1, min(n, 3)))
            specials = tuple((draw(st.integers(0, n - 1)), draw(st.sampled_from(SPECIALS))) for _ in range(k))
        elif n and dtype in _COMPLEX and draw(st.integers(0, 3)) == 0:  # a special in the real part
            specials = ((draw(st.integers(0, n - 1)), draw(st.sampled_from(SPECIALS))),)
        elif n and draw(st.integers(0, 5)) == 0 and dtype not in ("bool",) + tuple(_FLOATS) + _COMPLEX:
            info = np.iinfo(dtype)
            specials = ((draw(st.integers(0, n - 1)), int(draw(st.sampled_from([info.min, info.max])))),)
        return TensorSpec(shape, dtype, draw(st.sampled_from(LAYOUTS)), draw(st.integers(0, 2**16)), low, high,
                          specials)

    def bounds(info, i, dtype):
        from ember.core.dtypes import as_dtype

        r = info.range_of(i, as_dtype(dtype))
        return r if r is not None else (-4.0, 4.0)

    @st.composite
    def reduction(draw, name, info, dtype, shape, wide):
        lo, hi = (-1e3, 1e3) if wide else bounds(info, 0, dtype)
        x = draw(tensor(dtype, shape, lo, hi)) if draw(st.integers(0, 15)) else Bad(draw(st.sampled_from(
            ["a", None, [1.0, 2.0], 1.5])))
        n = max(len(shape), 1)
        one = st.integers(-n - 1, n)  # one step out of range on each side
        dim = draw(st.one_of(st.none(), st.just(()), one, st.tuples(one, one)))
        keepdim = draw(st.booleans())
        kwargs = ()
        if draw(st.integers(0, 7)) == 0:
            kwargs = (("out", TensorSpec((), draw(st.sampled_from(all_dtypes)), "contiguous", 0)),)
        return Case(name, (x, dim, keepdim), kwargs)

    family = SimpleNamespace(tensor=tensor)  # what a family's `draw` builds its tensors with

    @st.composite
    def case(draw):
        name = draw(st.sampled_from(sorted(ops)))
        info = ops[name]
        if info.draw is not None:  # a family row draws its own calls (ember.core.fuzz_family)
            return info.draw(draw, family)
        accepted = [d.name for d in info.dtypes_for("cpu") if not d.is_complex]
        if complex_ and info.kind == "elementwise" and name not in _REAL_VALUED:
            accepted = list(_COMPLEX)  # (complex-valued references: the same formulas in complex128)
        dtype = draw(st.sampled_from(accepted)) if draw(st.integers(0, 7)) or complex_ \
            else draw(st.sampled_from(all_dtypes))
        shape = draw(shapes)
        wide = draw(st.integers(0, 3)) == 0  # outside the domain too
        if info.kind == "reduction":
            return draw(reduction(name, info, dtype, shape, wide))
        args = []
        for i in range(info.n_inputs):
            if i and draw(st.integers(0, 4)) == 0:  # a broadcast partner: a suffix of `shape`, some dims 1
                cut = draw(st.integers(0, len(shape)))
                other = tuple(1 if draw(st.booleans()) else n for n in shape[cut:])
            elif i and draw(st.integers(0, 6)) == 0:
                other = draw(shapes)  # any shape: may not broadcast
            else:
                other = shape
            lo, hi = (-1e3, 1e3) if wide else bounds(info, i, dtype)
            if i and draw(st.integers(0, 6)) == 0:  # a Python scalar operand
                args.append(draw(st.sampled_from([0, 1, 2, -3, 1000, 2.5, -0.5, True, float("nan"), float("inf")])))
            else:
                args.append(draw(tensor(dtype, other, lo, hi)))
        if draw(st.integers(0, 15)) == 0:  # a wrong Python type in one tensor position (a number only first)
            i = draw(st.integers(0, len(args) - 1))
            args[i] = Bad(draw(st.sampled_from(["a", None, [1.0, 2.0], {}] + ([1.5] if i == 0 else []))))
        args += list(info.attrs)
        kwargs = ()
        if info.supports_out and draw(st.integers(0, 7)) == 0:
            kwargs = (("out", TensorSpec(shape, draw(st.sampled_from(all_dtypes)), "contiguous", 0)),)
        return Case(name, tuple(args), kwargs)

    return case()


def draw_cases(n: int, seed: int = 0, kinds: tuple[str, ...] | None = None, complex_: bool = False) -> list[Case]:
    """Up to `n` distinct cases drawn by hypothesis with a fixed seed (the same list on every run),
    of the ops whose OpInfo kind is in `kinds` (all when None); `complex_`: elementwise ops on
    complex64/complex128 tensors only."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    cases: list[Case] = []

    @hseed(seed)
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(_strategies(("elementwise",) if complex_ else kinds, complex_))
    def collect(c):
        cases.append(c)

    with _no_local_constants():
        collect()
    unique = {c.repro(): c for c in cases}  # hypothesis revisits some examples
    return list(unique.values())


@contextlib.contextmanager
def _no_local_constants():
    """Keep hypothesis from mixing in the literal constants of the modules that happen to be imported
    (hypothesis >= 6.131 mines every non-site-packages module in `sys.modules` for them), which made the
    same seed draw other cases after `import ember.distributed` or from a source checkout than from an
    installed package. No public switch exists, so its private hook is swapped for the call."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - an older hypothesis mines nothing
        yield
        return
    mine = getattr(providers, "_get_local_constants", None)
    if mine is None or not hasattr(providers, "Constants"):  # pragma: no cover - another hypothesis
        yield
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = mine
        providers.CONSTANTS_CACHE.cache.clear()


# --- running a case (in the child) -----------------------------------------------------------
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def build(spec):
    """The object a spec stands for: a tensor, a wrong value, or the value itself."""
    if isinstance(spec, Bad):
        return spec.value
    if isinstance(spec, list):  # a list of tensors (cat, stack)
        return [build(s) for s in spec]
    if not isinstance(spec, TensorSpec):
        return spec
    from ember.core import dtypes
    from ember.core.creation import from_numpy

    dt = dtypes.as_dtype(spec.dtype)
    rng = np.random.default_rng(spec.seed)
    shape = spec.shape
    if spec.dtype == "bool":
        a = rng.random(shape) < 0.5
    elif spec.dtype in _COMPLEX:
        a = rng.uniform(spec.low, spec.high, shape) + 1j * rng.uniform(spec.low, spec.high, shape)
    elif spec.dtype in _FLOATS:
        a = rng.uniform(spec.low, spec.high, shape).astype(np.float64)
    else:
        info = np.iinfo(dt.np)
        a = rng.integers(max(int(np.floor(spec.low)), info.min), min(int(np.ceil(spec.high)) + 1, info.max), shape)
    a = np.array(a, dtype=np.complex128 if spec.dtype in _COMPLEX else np.float64 if spec.dtype in _FLOATS
                 else dt.np)
    flat = a.reshape(-1)
    for i, v in spec.specials:
        flat[i] = v
    a = a.astype(dt.np)
    if spec.layout == "strided" and a.ndim:
        big = np.zeros(shape[:-1] + (2 * shape[-1],), dtype=a.dtype)
        big[..., ::2] = a
        return from_numpy(big)[..., ::2]
    if spec.layout == "transposed" and a.ndim >= 2:
        return from_numpy(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim)))
    if spec.layout == "expanded" and any(n > 1 for n in shape):
        d = next(i for i, n in enumerate(shape) if n > 1)
        base = np.ascontiguousarray(np.take(a, [0], axis=d))
        return from_numpy(base).expand(*shape)
    if spec.layout == "overlapping" and a.ndim >= 2 and a.size:
        # every stride 1: element [i, j, ...] is base[i + j + ...], so neighbouring rows share elements
        n = sum(shape) - len(shape) + 1
        base = np.resize(a.reshape(-1), n)
        return from_numpy(np.array(base, order="C")).as_strided(shape, (1,) * len(shape))
    if spec.layout == "channels_last" and a.ndim >= 3:  # (families that draw it: conv, pool)
        order = (0, *range(2, a.ndim), 1)
        back = (0, a.ndim - 1, *range(1, a.ndim - 1))
        return from_numpy(np.ascontiguousarray(a.transpose(order))).permute(*back)
    if spec.layout == "offset":
        big = np.concatenate([np.zeros((1,), dtype=a.dtype), a.reshape(-1)])
        return from_numpy(big)[1:].view(*shape) if shape else from_numpy(big)[1:].view(())
    return from_numpy(np.array(a, order="C"))  # (np.ascontiguousarray makes a 0-dim array 1-dim)


def _host(x):
    return x._host_array() if hasattr(x, "_host_array") else x


def run_case(case: Case) -> Outcome:
    """Run one case in this process and classify it (NOTE [ The fuzz campaign ])."""
    import ember.core as E
    from ember.core.dispatch import get_op
    from ember.core.dtypes import can_cast
    from ember.core.opinfo import BOOL
    from ember.core.tensor import Tensor

    from ember.core import fuzz_family

    info = fuzz_family.info_of(case.op)
    if info.draw is not None:
        return fuzz_family.run_case(case, info)
    op = get_op(case.op)
    fn = getattr(E, case.op) if info.public else op
    args = [build(a) for a in case.args]
    kwargs = {k: build(v) for k, v in case.kwargs}
    expect = _expect_reduction if info.kind == "reduction" else _expect_elementwise
    invalid, shape, expected_dtype = expect(case, info, args)
    out = kwargs.get("out")
    if invalid is None and out is not None and not can_cast(expected_dtype, out.dtype) and case.op not in _ANY_OUT:
        invalid = "an out= dtype the result can't be cast to"
    if invalid is None and out is not None and case.op in _EXACT_OUT and out.dtype is not args[0].dtype:
        invalid = "an out= dtype other than the input's"
    if invalid is None and out is not None and case.op in _ROUNDING and out.dtype is not expected_dtype:
        invalid = "an out= dtype other than the result's"
    if invalid is None and out is not None and case.op in _BOOL_OUT and out.dtype.name != "bool":
        invalid = "a non-bool out="
    if invalid is None and info.invalid is not None:
        invalid = info.invalid(*args)
    try:
        with np.errstate(all="ignore"):
            r = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - classifying every exception is the point
        msg = f"{type(e).__name__}: {str(e)[:200]}"
        if leaked(e):
            return Outcome(case, "bad-error", msg)
        if invalid is None and not (_complex_case(case) and isinstance(e, NotImplementedError | TypeError)):
            return Outcome(case, "rejected", msg)
        return Outcome(case, "error", msg)
    if invalid is not None:
        return Outcome(case, "accepted", f"{invalid} returned {type(r).__name__}")
    if not isinstance(r, Tensor):
        return Outcome(case, "wrong", f"returned {type(r).__name__}, not a Tensor")
    if out is not None and r is not out:
        return Outcome(case, "wrong", "out= given but another tensor returned")
    if tuple(r.shape) != shape:
        return Outcome(case, "wrong", f"shape {tuple(r.shape)}, expected {shape}")
    if out is None and r.dtype is not expected_dtype:
        return Outcome(case, "wrong", f"dtype {r.dtype.name}, expected {expected_dtype.name}")
    if info.kind == "reduction":
        x, dim, keepdim = args
        axis = None if x.ndim == 0 or dim is None or dim == () else dim
        return _check_values(case, info, (x,), (), r, expected_dtype, BOOL,
                             call=lambda ref, a: ref(a, axis=axis, keepdims=keepdim))
    return _check_values(case, info, args[:info.n_inputs], args[info.n_inputs:], r, expected_dtype, BOOL)


def leaked(e: Exception) -> bool:
    """Whether `e` is not a clean exception of PyTorch's kind: numpy's or Numba's internals leaking."""
    kind = type(e)
    return (kind.__module__.split(".")[0] in ("numpy", "numba") or not issubclass(kind, CLEAN)
            or "ufunc" in str(e) or "numba" in str(e).lower())


def _complex_case(case: Case) -> bool:
    """A case on complex tensors (`--complex`): which ops take complex is not declared in the table
    yet, so a clean refusal counts as an error and `--torch` says whether PyTorch computes it."""
    return any(isinstance(a, TensorSpec) and a.dtype in _COMPLEX for a in case.args)


def _expect_elementwise(case: Case, info, args) -> tuple[str | None, tuple | None, object]:
    """(why the call is invalid or None, the result's shape, the result's dtype)."""
    from ember.core import dtypes
    from ember.core.opinfo import BOOL, result_dtype
    from ember.core.tensor import Tensor

    tensors = args[:info.n_inputs]
    accepted = {d.name for d in info.dtypes_for("cpu")}
    number_first = isinstance(case.args[0], Bad) and isinstance(case.args[0].value, int | float) \
        and info.number_input and any(isinstance(t, Tensor) for t in tensors)
    if any(isinstance(a, Bad) for a in case.args) and not number_first:
        return "a wrong Python type", None, None
    if not any(isinstance(t, Tensor) for t in tensors):
        return "no tensor input", None, None
    if dtypes.result_type(*tensors).name not in accepted:
        return "a refused dtype", None, None
    try:
        shape = tuple(np.broadcast_shapes(*(t.shape for t in tensors if isinstance(t, Tensor))))
    except ValueError:
        return "shapes that do not broadcast", None, None
    try:
        dt = result_dtype(info.rule, *tensors)
    except Exception as e:  # noqa: BLE001 - the promotion itself refusing is a clean error
        return f"no result dtype ({type(e).__name__})", None, None
    if info.rule != BOOL and dt.name not in accepted:
        return "a refused result dtype", None, None  # bitwise_and(int tensor, 2.5)
    if dt is dtypes.bool and info.bool_result is not None:
        dt = info.bool_result
    return None, shape, dt


def _expect_reduction(case: Case, info, args) -> tuple[str | None, tuple | None, object]:
    """The same for `op(input, dim, keepdim)`: dims out of range or repeated are errors."""
    from ember.core.opinfo import result_dtype
    from ember.core.tensor import Tensor

    x, dim, keepdim = args
    if not isinstance(x, Tensor) or any(isinstance(a, Bad) for a in case.args):
        return "a wrong Python type", None, None
    if x.dtype not in info.dtypes_for("cpu"):
        return "a refused dtype", None, None
    n = max(x.ndim, 1)
    given = () if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if any(not -n <= d < n for d in given):
        return "a dim out of range", None, None
    wrapped = [d % n for d in given]
    if len(set(wrapped)) != len(wrapped):
        return "a dim repeated", None, None
    dims = set(wrapped) if wrapped else set(range(x.ndim))
    if x.ndim == 0:
        shape = ()
    elif keepdim:
        shape = tuple(1 if i in dims else k for i, k in enumerate(x.shape))
    else:
        shape = tuple(k for i, k in enumerate(x.shape) if i not in dims)
    return None, shape, result_dtype(info.rule, x)


def _check_values(case, info, tensors, attrs, r, expected_dtype, BOOL, call=None) -> Outcome:
    from ember.core.tensor import Tensor

    from ember.core import dtypes

    compute = dtypes.result_type(*tensors) if info.rule == BOOL else expected_dtype  # the dtype the op computes in
    exact = not expected_dtype.is_floating_point and not expected_dtype.is_complex and info.rule != BOOL
    cast = np.int64 if exact else np.complex128 if compute.is_complex else np.float64

    def operand(t):
        if isinstance(t, Tensor):
            if compute.is_floating_point and not (t._dtype.is_floating_point or t._dtype.is_complex):
                # PyTorch casts integer operands to the float dtype it computes in first (int32 2**31 - 1 is
                # 2**31 in float32): the reference takes the same values
                return _host(t).astype(compute.np).astype(cast)
            return _host(t).astype(cast)
        if type(t) is int and not compute.is_floating_point and compute is not dtypes.bool:
            # PyTorch wraps a Python int into the integer dtype it computes in (int8 + 1000, uint8 > -3)
            return np.array(t).astype(compute.np).astype(cast)
        return t

    ref = info.int_ref if exact and info.int_ref is not None else info.ref
    call = call or (lambda f, *xs: f(*xs, *attrs))
    try:
        with np.errstate(all="ignore"):
            xs = [operand(t) for t in tensors]
            want = np.asarray(call(ref, *xs))
            want = np.broadcast_to(want.reshape(r.shape) if want.size == r.numel() else want, r.shape)
            scale = np.zeros(r.shape)
            if info.kind == "reduction":  # a sum's rounding is relative to sum |x|, not to the result
                scale = np.abs(np.asarray(call(ref, *(np.abs(a) for a in xs)), dtype=np.float64)).reshape(r.shape)
            if expected_dtype.is_floating_point:
                want = want.astype(expected_dtype.np).astype(np.float64)
            elif expected_dtype.is_complex:
                want = want.astype(expected_dtype.np).astype(np.complex128)
            else:
                want = want.astype(expected_dtype.np)
    except Exception as e:  # noqa: BLE001 - a reference that cannot compute the case checks nothing
        return Outcome(case, "unchecked", f"reference: {type(e).__name__}: {e}")
    got = _host(r)
    if r.dtype is not expected_dtype:  # out= of another dtype: the result is cast into it
        with np.errstate(all="ignore"):
            want = want.astype(r.dtype.np)
        if r.dtype.is_floating_point or r.dtype.is_complex:
            want = want.astype(np.complex128 if r.dtype.is_complex else np.float64)
    if not (r.dtype.is_floating_point or r.dtype.is_complex):
        bad = got != want
    else:
        rtol, atol = _TOL[r.dtype.name]
        if expected_dtype.name in _TOL:  # computed in the result dtype, then cast into out=
            rtol, atol = max(rtol, _TOL[expected_dtype.name][0]), max(atol, _TOL[expected_dtype.name][1])
        g = got.astype(np.complex128 if r.dtype.is_complex else np.float64)
        with np.errstate(all="ignore"):
            close = np.abs(g - want) <= atol + rtol * np.maximum(np.abs(want), np.nan_to_num(scale, posinf=0))
            bad = ~(close | (g == want) | (np.isnan(g) & np.isnan(want)))
    if np.any(bad) and r.dtype.is_complex and np.all(np.isnan(want[bad])):
        # the complex formulas overflow (sinh of 1e3j, a log at 0) where the kernel's limit is right
        return Outcome(case, "unchecked", "the complex reference is NaN where ember's value is not")
    if np.any(bad):
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        return Outcome(case, "wrong", f"{int(np.sum(bad))}/{bad.size} elements differ; at {i}: "
                                      f"{got[i]!r} vs reference {want[i]!r}")
    return Outcome(case, "ok")


# --- the same case in PyTorch (the campaign's script, with EMBER_FUZZ_TORCH=1) ----------------
_TORCH_NAMES = {"trunc_divide": ("div", {"rounding_mode": "trunc"}), "log_sigmoid": ("nn.functional.logsigmoid", {}),
                "softsign": ("nn.functional.softsign", {}), "tanhshrink": ("nn.functional.tanhshrink", {}),
                "gelu": ("ops.aten.gelu", {}), "silu": ("nn.functional.silu", {})}


def _torch_fn(name, info):
    import torch

    path, kw = _TORCH_NAMES.get(name, (name if info.public else f"ops.aten.{name}", {}))
    fn = torch
    for part in path.split("."):
        fn = getattr(fn, part)
    return fn, kw


def _to_torch(x):
    import torch

    from ember.core.tensor import Tensor

    if isinstance(x, list):
        return [_to_torch(t) for t in x]
    if not isinstance(x, Tensor):
        return x
    a = _host(x)
    if x.dtype.name == "bfloat16":
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(np.array(a, order="C"))


def against_torch(case: Case) -> dict:
    """Run `case` in PyTorch and compare: {"cls": agree | lenient | stricter | error-type | differs, ...}."""
    import torch

    from ember.core import fuzz_family

    info = fuzz_family.info_of(case.op)
    if info.draw is not None:
        fn, kw = (lambda *a, **k: fuzz_family.call(info, case.op, torch, a, k)), {}
    else:
        fn, kw = _torch_fn(case.op, info)
    args = [_to_torch(build(a)) for a in case.args]
    if case.op == "gelu":
        kw = {"approximate": args.pop()}
    kwargs = {k: _to_torch(build(v)) for k, v in case.kwargs} | kw
    try:
        want = fn(*args, **kwargs)
        t_exc = None
    except Exception as e:  # noqa: BLE001
        t_exc = e
    try:
        got = run_case_raw(case)
        e_exc = None
    except Exception as e:  # noqa: BLE001
        e_exc = e
    if t_exc is not None and e_exc is not None:
        # a wrong Python type: aten's schema check (what this calls for activations) says RuntimeError
        # where the Python functions say TypeError; either is PyTorch's
        same = isinstance(e_exc, type(t_exc)) or any(isinstance(a, Bad) for a in case.args) \
            or (isinstance(t_exc, RuntimeError) and isinstance(e_exc, RuntimeError)) or _signature_quirk(t_exc)
        return {"cls": "agree" if same else "error-type",
                "detail": f"torch {type(t_exc).__name__}, ember {type(e_exc).__name__}: {str(e_exc)[:120]}"}
    if t_exc is not None:
        return {"cls": "lenient", "detail": f"torch {type(t_exc).__name__}: {str(t_exc)[:160]}"}
    if e_exc is not None:
        return {"cls": "stricter", "detail": f"ember {type(e_exc).__name__}: {str(e_exc)[:160]}"}
    if isinstance(want, tuple) and isinstance(got, tuple) and len(want) == len(got):  # split, chunk
        for w, g in zip(want, got, strict=True):
            r = _compare_torch(w, g)
            if r["cls"] != "agree":
                return r
        return {"cls": "agree"}
    if isinstance(want, tuple) or isinstance(got, tuple):
        return {"cls": "differs", "detail": f"torch {type(want).__name__}, ember {type(got).__name__}"}
    if not isinstance(want, torch.Tensor):
        return {"cls": "agree"}
    return _compare_torch(want, got)


def _compare_torch(want, got) -> dict:
    import torch

    if str(want.dtype).replace("torch.", "") != got.dtype.name or tuple(want.shape) != tuple(got.shape):
        return {"cls": "differs", "detail": f"torch {tuple(want.shape)} {want.dtype}, ember {tuple(got.shape)} "
                                            f"{got.dtype.name}"}
    if want.dtype.is_complex:
        w = want.to(torch.complex128).numpy()
    else:
        w = want.to(torch.float64).numpy() if want.dtype.is_floating_point else want.numpy()
    g = _host(got).astype(w.dtype)
    if want.dtype.is_floating_point or want.dtype.is_complex:
        rtol, atol = _TOL.get(got.dtype.name, (1e-9, 1e-10))
        bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    else:
        bad = g != w
    if np.any(bad):
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        return {"cls": "differs", "detail": f"at {i}: ember {g[i]!r}, torch {w[i]!r}"}
    return {"cls": "agree"}


def _signature_quirk(e: Exception) -> bool:
    """PyTorch refused the call's form, not its values (a Python number where its signature wants
    a Tensor, `out=` on a function without one): ember's own reason to raise is as good."""
    return isinstance(e, TypeError) and any(s in str(e) for s in (
        "must be Tensor", "unexpected keyword argument", "invalid combination of arguments"))


def run_case_raw(case: Case, device: str = "cpu"):
    """Call the case's op (its tensors moved to `device`) and return what it returns (exceptions propagate)."""
    import ember.core as E
    from ember.core.dispatch import get_op
    from ember.core.tensor import Tensor

    def on(v):
        v = build(v)
        if isinstance(v, list):
            return [t.to(device) if isinstance(t, Tensor) and device != "cpu" else t for t in v]
        return v.to(device) if isinstance(v, Tensor) and device != "cpu" else v

    from ember.core import fuzz_family

    info = fuzz_family.info_of(case.op)
    args, kwargs = [on(a) for a in case.args], {k: on(v) for k, v in case.kwargs}
    with np.errstate(all="ignore"):
        if info.draw is not None:
            return fuzz_family.call(info, case.op, E, args, kwargs)
        fn = getattr(E, case.op) if info.public else get_op(case.op)
        return fn(*args, **kwargs)


def against_cuda(case: Case) -> dict:
    """Run `case` on the CPU and on CUDA (the simulator, or a GPU) and compare: {"cls": agree | differs |
    error-differs | simulator | unsupported, ...}. A device kernel must match the CPU's values, dtype, shape
    and error; `unsupported` is a CUDA NotImplementedError where the CPU computes (a documented gap)."""
    results = []
    for device in ("cpu", "cuda"):
        try:
            results.append((run_case_raw(case, device), None))
        except Exception as e:  # noqa: BLE001
            results.append((None, e))
    (c, ce), (g, ge) = results
    if ce is None and ge is not None and str(ge).startswith("tid="):
        # Numba's simulator runs the kernel in Python: its math raises (float division by zero, an
        # integer out of range) where a GPU computes inf or wraps, as the CPU did
        return {"cls": "simulator", "detail": f"cuda {_what(g, ge)}"}
    if ce is None and isinstance(ge, NotImplementedError):
        # a documented gap: CUDA has no kernel for this dtype or mode (no atomic multiply, no int8 atomics)
        return {"cls": "unsupported", "detail": f"cuda {_what(g, ge)}"}
    if ce is not None or ge is not None:
        if ce is not None and ge is not None and (isinstance(ge, type(ce)) or isinstance(ce, type(ge))):
            return {"cls": "agree"}
        return {"cls": "error-differs", "detail": f"cpu {_what(c, ce)}; cuda {_what(g, ge)}"}
    if isinstance(c, tuple) and isinstance(g, tuple) and len(c) == len(g):  # split, chunk: piece by piece
        for cc, gg in zip(c, g, strict=True):
            r = _compare_devices(cc, gg)
            if r["cls"] != "agree":
                return r
        return {"cls": "agree"}
    return _compare_devices(c, g)


def _compare_devices(c, g) -> dict:
    if getattr(c, "dtype", None) is not getattr(g, "dtype", None) or tuple(c.shape) != tuple(g.shape):
        return {"cls": "differs", "detail": f"cpu {_what(c, None)}; cuda {_what(g, None)}"}
    a, b = _host(c), _host(g)
    if c.dtype.is_floating_point:
        rtol, atol = _TOL[c.dtype.name]
        bad = ~np.isclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    else:
        bad = a != b
    if np.any(bad):
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        return {"cls": "differs", "detail": f"at {i}: cpu {a[i]!r}, cuda {b[i]!r}"}
    return {"cls": "agree"}


def _what(r, e) -> str:
    if e is not None:
        return f"{type(e).__name__}: {str(e)[:120]}"
    return f"{tuple(r.shape)} {r.dtype.name}" if hasattr(r, "dtype") else type(r).__name__


# --- running batches in child processes ------------------------------------------------------
def _worker() -> None:
    """The child: read a pickled list of cases on stdin; for each, print a start line, then its
    outcome, as JSON lines flushed at once (the parent pins a crash or hang on the started case)."""
    import warnings

    warnings.simplefilter("ignore")
    from ember.core import fuzz_family

    fuzz_family.load_plugins()
    compare = os.environ.get("EMBER_FUZZ_TORCH") == "1"
    on_cuda = os.environ.get("EMBER_FUZZ_CUDA") == "1"
    cases = pickle.loads(sys.stdin.buffer.read())
    for i, c in enumerate(cases):
        print(json.dumps({"start": i}), flush=True)
        try:
            o = run_case(c)
            line = {"i": i, "cls": o.cls, "detail": o.detail}
            if compare:
                line["torch"] = against_torch(c)
            if on_cuda:
                line["cuda"] = against_cuda(c)
        except Exception as e:  # noqa: BLE001 - a harness failure is reported, not fatal
            line = {"i": i, "cls": "harness", "detail": f"{type(e).__name__}: {e}"}
        print(json.dumps(line), flush=True)


def run_cases(cases: list[Case], *, batch: int = 400, timeout: float = 120.0, env: dict | None = None,
              progress=None, command: list[str] | None = None) -> list[Outcome]:
    """Run `cases` in child processes, `batch` at a time; a crash or a hang ends its batch at the
    case it hit, and the rest run in a new child. `command` replaces the child (tests use it)."""
    outcomes: list[Outcome] = []
    todo = list(cases)
    while todo:
        chunk, todo = todo[:batch], todo[batch:]
        proc = subprocess.Popen(command or [sys.executable, "-m", "ember.core.fuzz"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        hung = False
        try:
            out, err = proc.communicate(pickle.dumps(chunk), timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            hung = True
        done: dict[int, dict] = {}
        started = -1
        for line in out.decode(errors="replace").splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if "start" in d:
                started = d["start"]
            else:
                done[d["i"]] = d
        for i in range(len(chunk)):
            if i in done:
                outcomes.append(Outcome(chunk[i], done[i]["cls"], done[i]["detail"],
                                        {k: done[i][k] for k in ("torch", "cuda") if k in done[i]}))
            elif i == started:
                why = "hang" if hung else "crash"
                tail = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
                outcomes.append(Outcome(chunk[i], why, f"{why} (return code {proc.returncode}) {tail[0][:200]}"))
            elif i > started:
                todo.insert(i - started - 1, chunk[i])
        if started < 0 and not done:
            raise RuntimeError(f"fuzz worker failed to start: {err.decode(errors='replace')[-2000:]}")
        if progress is not None:
            progress(len(outcomes), len(outcomes) + len(todo))
    return outcomes


def counts(outcomes: list[Outcome]) -> dict[str, Counter]:
    """Outcomes counted per op and class."""
    table: dict[str, Counter] = {}
    for o in outcomes:
        table.setdefault(o.case.op, Counter())[o.cls] += 1
    return table


if __name__ == "__main__":  # run the importable module's worker: the pickled cases name its classes
    from ember.core.fuzz import _worker as worker

    worker()
