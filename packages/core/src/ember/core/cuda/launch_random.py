"""CUDA kernels of the sampling ops (uniform_, normal_, bernoulli_, exponential_, random_, cauchy_,
log_normal_, geometric_, poisson) and native_dropout: Philox keyed by the generator's (seed, offset), so
a seeded sequence of draws is reproducible on the device (its numbers differ from the CPU's, as
in PyTorch)."""

from __future__ import annotations

import numpy as np
from numba import types as nbt

from ember.core import dtypes
from ember.core import random as R
from ember.core.cuda import launch_util as lu
from ember.core.cuda.launch_elementwise import result
from ember.core.cuda.kernels import random as KR
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

__all__ = ["register"]


def _vt(dt: dtypes.dtype):
    return nbt.boolean if dt is dtypes.bool else getattr(nbt, dt.name)


def _dummy(x: Tensor):
    return lu.typed(x)[:1]


def _sample(x: Tensor, kind: int, generator, a=0.0, b=0.0, c=0.0, p: Tensor | None = None,
            src: Tensor | None = None, mask: Tensor | None = None) -> Tensor:
    n = x.numel()
    seed, offset = R.philox_seed_offset(generator, n, x.device)
    if n == 0:
        return x
    pt = mask if mask is not None else p
    rows = [x._shape, x._strides, _bstrides(pt, x._shape) if pt is not None else (0,) * x.ndim,
            src._strides if src is not None else (0,) * x.ndim]
    m = lu.meta(tuple(tuple(r) for r in rows))
    p_arr, p_off = (lu.typed(pt), pt._offset) if pt is not None else (_dummy(x), 0)
    s_arr, s_off = (lu.typed(src), src._offset) if src is not None else (_dummy(x), 0)
    blocks, threads = lu.grid(n)
    KR.sample(kind, _vt(x._dtype))[blocks, threads, lu.stream()](
        n, m, lu.typed(x), x._offset, seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF, offset, float(a), float(b),
        float(c), p_arr, p_off, p is not None, s_arr, s_off)
    return x


def _bstrides(t: Tensor, shape) -> tuple[int, ...]:
    lead = len(shape) - t.ndim
    return (0,) * lead + tuple(0 if n == 1 else s for n, s in zip(t._shape, t._strides, strict=True))


def _uniform(x, low=0.0, high=1.0, *, generator=None):
    R._work_dtype(x, "uniform_")
    td = x._dtype.np.type
    below = float(np.nextafter(td(high), td(low))) if high > low else float(high)
    return _sample(x, KR.UNIFORM, generator, low, high, below)


def _normal(x, mean=0.0, std=1.0, *, generator=None):
    R._work_dtype(x, "normal_")
    return _sample(x, KR.NORMAL, generator, mean, std)


def _bernoulli(x, p=0.5, *, generator=None):
    if isinstance(p, Tensor):  # its shape checked by the op's meta step
        if p._storage.device.type != "cuda":
            p = p.to(x._storage.device)
        return _sample(x, KR.BERNOULLI, generator, p=p)
    return _sample(x, KR.BERNOULLI, generator, p)


def _exponential(x, lambd=1.0, *, generator=None):
    R._work_dtype(x, "exponential_")
    return _sample(x, KR.EXPONENTIAL, generator, lambd)


def _random(x, low, high, *, generator=None, full_range=False):
    return _sample(x, KR.RANDOM, generator, low, high)


def _cauchy(x, median=0.0, sigma=1.0, *, generator=None):
    R._work_dtype(x, "cauchy_")
    return _sample(x, KR.CAUCHY, generator, median, sigma)


def _log_normal(x, mean=1.0, std=2.0, *, generator=None):
    R._work_dtype(x, "log_normal_")
    return _sample(x, KR.LOG_NORMAL, generator, mean, std)


def _geometric(x, p, *, generator=None):
    return _sample(x, KR.GEOMETRIC, generator, p)


def _poisson(input, *, generator=None):
    out = lu.empty(input._shape, input._dtype, input._storage.device)
    return _sample(out, KR.POISSON, generator, p=input)


def _native_dropout(input, p, generator=None, *, out=None):
    dev = input._storage.device  # both laid out as `input` (a channels_last one stays so), as the CPU's
    res = result(out, input._shape, input._dtype, dev, "dropout", (input,))
    mask = result(None, input._shape, dtypes.bool, dev, "dropout", (input,))
    if p >= 1:
        return res.fill_(0), mask.fill_(False)
    src = input.expand(input._shape)
    _sample(res, KR.DROPOUT, generator, p, src=src, mask=mask)
    return res, mask


def register() -> None:
    for name, fn in (("uniform_", _uniform), ("normal_", _normal), ("bernoulli_", _bernoulli),
                     ("exponential_", _exponential), ("random_", _random), ("cauchy_", _cauchy),
                     ("log_normal_", _log_normal), ("geometric_", _geometric), ("poisson", _poisson),
                     ("native_dropout", _native_dropout)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    m, i, f = T.int64[:, ::1], T.int64, T.float64
    names = ("uniform", "normal", "bernoulli", "exponential", "random", "cauchy", "log_normal", "geometric",
             "dropout", "poisson")
    for kind, name in enumerate(names):
        for label, arr, vt in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64),
                               ("int64", T.int64[::1], T.int64)):
            p = T.boolean[::1] if kind == KR.DROPOUT else T.float32[::1]
            yield (f"{name}[{label}]", KR.sample_function(kind, vt),
                   (i, m, arr, i, i, i, i, f, f, f, p, i, T.boolean, arr, i))
