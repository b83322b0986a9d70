"""Automatic mixed precision: `autocast` regions that run each op in the dtype PyTorch's op lists
give it, and `GradScaler` (in `ember.autograd.grad_scaler`, re-exported here).

NOTE [ Autocast ]
Inside `autocast(device_type, dtype)`, an op on tensors of that device type is looked up in the
device's policy (PyTorch's lists, `_POLICIES`): "lower" ops (matmul, linear, conv ...) cast their
floating inputs to the region's dtype (bfloat16 on the CPU, float16 on CUDA by default); "fp32"
ops (losses, linear algebra, and on CUDA also exp/log/pow, softmax, norms, sums) cast low
precision inputs to float32; "promote" ops cast them to the widest floating dtype among them.
float64 tensors are never cast, as in PyTorch. The casts are ordinary `to(dtype)` calls that go
through the autograd hook below, so gradients flow back to each parameter in its own dtype; a
leaf parameter's cast made in grad mode is cached for the region (`cache_enabled`), so a
weight used twice is cast once.

It is two hooks, installed only while some thread has an enabled region (ops pay nothing
otherwise): a dispatch hook, above autograd's, sees primitive ops (`mm`, `conv2d`,
`log_softmax`); the composite hook sees the functions PyTorch lists whole (`linear`, `addmm`,
`mse_loss`) so that e.g. a bias is cast with its matmul. While an op that autocast cast runs,
autocast steps aside (`_State.busy`), so the op's insides run in the dtype it was given, as
PyTorch's autocast kernels redispatch below themselves. The region's state is per thread.

On the CPU, PyTorch's norm kernels take a bfloat16 input with float32 weights, compute in
float32 and return bfloat16; ember's norm kernels need one dtype, so CPU autocast gives
layer_norm, group_norm and batch_norm the "fp32_keep" policy: inputs cast to float32 (running
statistics stay the very float32 buffers, updated in place), the result cast back to the
input's dtype: the same dtypes, and values rounded once as PyTorch's.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable

from ember.core import dispatch, dtypes
from ember.core.device import device as _device
from ember.core.ops.linalg import einsum_contracts
from ember.core.tensor import Tensor

from ember.autograd.grad_mode import is_grad_enabled
from ember.autograd.grad_scaler import CpuGradScaler, CudaGradScaler, GradScaler, _cuda_available

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype", "set_autocast_enabled", "set_autocast_dtype",
           "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
           "is_autocast_available", "is_autocast_cpu_enabled", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype",
           "current_regions", "custom_fwd", "custom_bwd", "cuda_autocast", "cpu_autocast", "cuda_custom_fwd",
           "cuda_custom_bwd", "GradScaler", "CudaGradScaler", "CpuGradScaler"]

_LOWER, _FP32, _PROMOTE, _BANNED, _FP32_KEEP = "lower", "fp32", "promote", "banned", "fp32_keep"
# "as_is": cast nothing, and let nothing inside be cast (an op PyTorch runs as one kernel that ember composes
# of listed ones: CPU mv); "einsum_cpu": PyTorch's CPU einsum is no listed op but contracts through bmm, so
# it is "lower" exactly when an index shared by operands is summed out
_AS_IS, _EINSUM_CPU = "as_is", "einsum_cpu"

# PyTorch's lists (aten/src/ATen/autocast_mode.cpp), by ember's op and composite names
_CONV = ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
_LOSSES = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "kl_div",
           "binary_cross_entropy_with_logits", "cosine_embedding_loss", "margin_ranking_loss", "soft_margin_loss",
           "poisson_nll_loss", "hinge_embedding_loss", "multi_margin_loss", "triplet_margin_loss",
           "multilabel_soft_margin_loss")
_LINALG = ("linalg_cholesky", "linalg_det", "linalg_eigh", "linalg_inv", "linalg_qr", "linalg_slogdet",
           "linalg_solve", "linalg_svd")
_FFT = tuple(f"fft_{n}" for n in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
                                   "rfftn", "irfftn", "hfft", "ihfft"))
_POLICIES: dict[str, dict[str, str]] = {
    "cpu": {
        **dict.fromkeys(_CONV + ("mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "prelu", "matmul", "dot",
                                 "linalg_vecdot", "scaled_dot_product_attention"), _LOWER),
        "mv": _AS_IS, "einsum": _EINSUM_CPU,
        **dict.fromkeys(_LOSSES + _LINALG + ("linalg_lstsq", "linalg_matrix_rank", "linalg_eig", "linalg_eigvals",
                                             "binary_cross_entropy", "prod",
                                             "trace", "cdist", "grid_sampler", "polar",
                                             "quantile", "nanquantile", "max_unpool", "pad_nd", "max_pool3d",
                                             "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
                                             "fractional_max_pool", "ctc_loss", "multilabel_margin_loss",
                                             "view_as_complex") + _FFT, _FP32),
        **dict.fromkeys(("layer_norm", "group_norm", "batch_norm"), _FP32_KEEP),
        **dict.fromkeys(("cat", "index_copy"), _PROMOTE),
    },
    "cuda": {
        **dict.fromkeys(_CONV + ("mm", "bmm", "dot", "addmm", "addmv", "addr", "baddbmm", "addbmm", "linear",
                                 "prelu", "einsum", "lstm_cell", "gru_cell", "matmul", "mv", "linalg_vecdot"),
                        _LOWER),
        **dict.fromkeys(_LOSSES + _LINALG + (
            "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal",
            "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm", "rms_norm", "vector_norm",
            "cosine_similarity", "logsumexp", "upsample", "softmax", "log_softmax", "sum", "prod", "cumsum",
            "cumprod", "trace"), _FP32),
        **dict.fromkeys(("atan2", "bilinear", "index_put_", "scatter_add", "cat"), _PROMOTE),
        "binary_cross_entropy": _BANNED,
    },
}
_DEFAULT_DTYPE = {"cpu": dtypes.bfloat16, "cuda": dtypes.float16}
_SUPPORTED = {"cpu": (dtypes.bfloat16, dtypes.float16), "cuda": (dtypes.float16, dtypes.bfloat16)}
_BANNED_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")


class _State(threading.local):
    """One thread's autocast state (PyTorch's is thread-local too)."""

    def __init__(self) -> None:
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = dict(_DEFAULT_DTYPE)
        self.cache_enabled = True
        self.depth = 0        # nesting of autocast regions, to clear the cast cache on leaving the outermost
        self.busy = 0         # > 0 while an op autocast cast runs: its insides are left alone
        self.cache: dict[tuple[int, dtypes.dtype], tuple[Tensor, Tensor]] = {}


_tls = _State()
_lock = threading.Lock()
_enabled_count = 0  # enabled (thread, device) flags; the hooks are installed while it is > 0


def _set_flag(device_type: str, value: bool) -> None:
    """Set this thread's flag, installing the hooks with the first enabled flag of any thread and
    removing them with the last."""
    global _enabled_count
    old = _tls.enabled[device_type]
    if old == value:
        return
    _tls.enabled[device_type] = value
    with _lock:
        _enabled_count += 1 if value else -1
        if value and _enabled_count == 1:
            dispatch.register_dispatch_hook(_op_hook)
            dispatch.set_composite_hook(_composite_hook)
        elif not value and _enabled_count == 0:
            dispatch.remove_dispatch_hook(_op_hook)
            dispatch.set_composite_hook(None)


def _device_type(args, kwargs) -> str:
    dev = dispatch.device_of(args)
    if dev == "cpu" and kwargs:
        dev = dispatch.device_of(tuple(kwargs.values()))
    return dev


def _eligible(x, device_type: str) -> bool:
    return (isinstance(x, Tensor) and x._dtype.is_floating_point and x._dtype is not dtypes.float64
            and x._storage.device.type == device_type)


def _cast(x, dt: dtypes.dtype, device_type: str):
    """x in dtype `dt` when autocast may cast it (lists of tensors element-wise), else x itself."""
    if isinstance(x, list | tuple) and x and isinstance(x[0], Tensor):
        return type(x)(_cast(v, dt, device_type) for v in x)
    if not _eligible(x, device_type) or x._dtype is dt:
        return x
    st = _tls
    # only casts recorded by autograd are cached: one made under no_grad (a checkpointed forward)
    # would cut the gradient of a later use in grad mode
    leaf = st.cache_enabled and x._requires_grad and x._grad_fn is None and is_grad_enabled()
    if leaf:
        hit = st.cache.get((id(x), dt))
        if hit is not None and hit[0] is x:
            return hit[1]
    y = x.to(dt)
    if leaf:
        st.cache[(id(x), dt)] = (x, y)  # holding x keeps its id from being reused during the region
    return y


def _widest(values, device_type: str, start: dtypes.dtype) -> dtypes.dtype:
    dt = start
    for v in values:
        for t in (v if isinstance(v, list | tuple) else (v,)):
            if _eligible(t, device_type):
                dt = dtypes.promote_types(dt, t._dtype)
    return dt


def _cast_all(name: str, kind: str, args: tuple, kwargs: dict, device_type: str) -> tuple[tuple, dict]:
    if kind == _BANNED:
        raise RuntimeError(_BANNED_MESSAGE)
    if kind == _AS_IS:
        return args, kwargs
    if kind == _EINSUM_CPU:
        if not einsum_contracts(args):
            return args, kwargs
        kind = _LOWER
    if kind == _LOWER:
        dt = _tls.dtype[device_type]
    elif kind == _FP32 or kind == _FP32_KEEP:
        dt = dtypes.float32
    else:
        dt = _widest((*args, *kwargs.values()), device_type, _tls.dtype[device_type])
    args = tuple(_cast(a, dt, device_type) for a in args)
    if kwargs:
        kwargs = {k: (v if k == "out" else _cast(v, dt, device_type)) for k, v in kwargs.items()}
    return args, kwargs


def _restore_dtype(kind: str, first, dev: str, result):
    """For "fp32_keep" ops: the result (the first of several) back in the low-precision dtype of
    the op's first input."""
    if kind != _FP32_KEEP or not _eligible(first, dev) or first._dtype is dtypes.float32:
        return result
    if isinstance(result, tuple | list):
        return type(result)((result[0].to(first._dtype), *result[1:]))
    return result.to(first._dtype)


def _cpu_kind(name: str, kind: str | None, args: tuple) -> str | None:
    """The CPU list's entries that depend on the call: PyTorch casts einsum only where it contracts through bmm (an
    index shared by operands and summed), and pads to float32 only in the replicate mode and the reflect mode
    of one or two dims (it lists no reflection_pad3d)."""
    if name == "einsum" and args and isinstance(args[0], str):
        ins, _, out = args[0].replace(" ", "").partition("->")
        terms = [set(t) - {"."} for t in ins.split(",")]
        shared = {c for i, t in enumerate(terms) for c in t if any(c in u for u in terms[i + 1:])}
        return kind if shared - set(out) else None
    if name == "pad_nd":
        if len(args) > 2 and (args[2] == "replicate" or args[2] == "reflect" and len(args[1]) <= 4):
            return kind
        return None
    return kind


def _op_hook(op, args, kwargs, call_next):
    """The dispatch hook (NOTE [ Autocast ]): cast the inputs of listed primitive ops."""
    st = _tls
    if st.busy:
        return call_next(op, args, kwargs)
    dev = _device_type(args, kwargs)
    kind = _POLICIES.get(dev, {}).get(op.name) if st.enabled.get(dev) else None
    if dev == "cpu" and kind is not None:
        kind = _cpu_kind(op.name, kind, args)
    if kind is None:
        return call_next(op, args, kwargs)
    first = args[0] if args else None
    args, kwargs = _cast_all(op.name, kind, args, kwargs, dev)
    st.busy += 1
    try:
        result = call_next(op, args, kwargs)
    finally:
        st.busy -= 1
    return _restore_dtype(kind, first, dev, result)


def _composite_hook(name: str, fn: Callable, args: tuple, kwargs: dict):
    """The composite hook (NOTE [ Autocast ]): cast the inputs of listed composite functions."""
    st = _tls
    if st.busy:
        return fn(*args, **kwargs)
    dev = _device_type(args, kwargs)
    kind = _POLICIES.get(dev, {}).get(name) if st.enabled.get(dev) else None
    if kind is None:
        return fn(*args, **kwargs)
    first = args[0] if args else None
    args, kwargs = _cast_all(name, kind, args, kwargs, dev)
    st.busy += 1
    try:
        result = fn(*args, **kwargs)
    finally:
        st.busy -= 1
    return _restore_dtype(kind, first, dev, result)


def _check_device_type(device_type) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _POLICIES:
        _device(device_type)  # PyTorch parses it as a device first: a name of no device type fails there
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports `device_type` ("cpu" and "cuda"); a name of no device type raises PyTorch's
    device-string error."""
    return _device(device_type).type in _POLICIES


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an autocast region is enabled for `device_type` (no argument: "cuda", as PyTorch's old form)."""
    return _tls.enabled[_check_device_type(device_type or "cuda")]


def set_autocast_enabled(device_type: str, enabled: bool | None = None) -> None:
    """Turn autocast on or off for `device_type` in this thread, outside any context manager."""
    if enabled is None:  # PyTorch's old one-argument form: set_autocast_enabled(enabled) for CUDA
        device_type, enabled = "cuda", bool(device_type)
    _set_flag(_check_device_type(device_type), bool(enabled))


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    """The low-precision dtype autocast uses on `device_type` in this thread."""
    return _tls.dtype[_check_device_type(device_type)]


def is_autocast_cpu_enabled() -> bool:
    """PyTorch's older spelling of `is_autocast_enabled("cpu")`."""
    return _tls.enabled["cpu"]


def get_autocast_cpu_dtype() -> dtypes.dtype:
    """PyTorch's older spelling of `get_autocast_dtype("cpu")`."""
    return _tls.dtype["cpu"]


def get_autocast_gpu_dtype() -> dtypes.dtype:
    """PyTorch's older spelling of `get_autocast_dtype("cuda")`."""
    return _tls.dtype["cuda"]


def set_autocast_dtype(device_type: str, dtype) -> None:
    _tls.dtype[_check_device_type(device_type)] = dtypes.as_dtype(dtype)


def is_autocast_cache_enabled() -> bool:
    return _tls.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _tls.cache_enabled = bool(enabled)


def current_regions() -> list[autocast]:
    """Regions that reproduce this thread's autocast state (for every device type), for code that
    reruns a forward later, as activation checkpointing does in backward."""
    st = _tls
    return [autocast(d, dtype=st.dtype[d], enabled=st.enabled[d], cache_enabled=st.cache_enabled) for d in _POLICIES]


def clear_autocast_cache() -> None:
    """Forget the cached casts of leaf parameters (done on leaving the outermost region)."""
    _tls.cache.clear()


class autocast:
    """A region where ops run in mixed precision (NOTE [ Autocast ]); a context manager and a decorator.

    Args:
        device_type: "cpu" or "cuda": the ops on tensors of this device type are autocast.
        dtype: the low-precision dtype (default: bfloat16 on the CPU, float16 on CUDA).
        enabled: False makes a region where autocast is off (also inside an enabled one).
        cache_enabled: cache the casts of leaf parameters within the region (default: True).

    Example:
        >>> import ember.autograd as torch
        >>> a, b = torch.ones(2, 3), torch.ones(3, 2)
        >>> with torch.amp.autocast("cpu"):
        ...     (a @ b).dtype, (a @ b).float().sum().dtype
        (ember.bfloat16, ember.float32)
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None) -> None:
        self.device = _check_device_type(device_type)
        self.fast_dtype = _DEFAULT_DTYPE[self.device] if dtype is None else dtypes.as_dtype(dtype)
        self._enabled = bool(enabled)
        self._cache_enabled = _tls.cache_enabled if cache_enabled is None else bool(cache_enabled)
        if self._enabled and self.device == "cuda" and not _cuda_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            self._enabled = False
        if self._enabled and self.fast_dtype not in _SUPPORTED[self.device]:
            name = "CPU" if self.device == "cpu" else "CUDA"
            supported = ", ".join(f"torch.{d.name}" for d in _SUPPORTED[self.device])
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{name} Autocast only supports dtypes of {supported} currently.", stacklevel=2)
            self._enabled = False
        self._saved: list[tuple[bool, dtypes.dtype, bool]] = []

    def __enter__(self) -> autocast:
        st = _tls
        self._saved.append((st.enabled[self.device], st.dtype[self.device], st.cache_enabled))
        st.depth += 1
        st.dtype[self.device] = self.fast_dtype
        st.cache_enabled = self._cache_enabled
        _set_flag(self.device, self._enabled)
        return self

    def __exit__(self, *exc) -> bool:
        st = _tls
        enabled, dt, cache = self._saved.pop()
        st.depth -= 1
        if st.depth == 0:
            st.cache.clear()
        st.dtype[self.device] = dt
        st.cache_enabled = cache
        _set_flag(self.device, enabled)
        return False

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def run(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return run


class cuda_autocast(autocast):
    """`torch.cuda.amp.autocast(...)`: PyTorch's deprecated spelling of `autocast("cuda", ...)`."""

    def __init__(self, enabled: bool = True, dtype=dtypes.float16, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class cpu_autocast(autocast):
    """`torch.cpu.amp.autocast(...)`: PyTorch's deprecated spelling of `autocast("cpu", ...)`."""

    def __init__(self, enabled: bool = True, dtype=dtypes.bfloat16, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


def custom_fwd(fwd: Callable | None = None, *, device_type: str, cast_inputs=None) -> Callable:
    """For a `Function.forward`: with `cast_inputs`, run it with autocast off and its floating
    inputs of `device_type` cast to `cast_inputs` (PyTorch's `torch.amp.custom_fwd`). The ctx keeps
    the autocast state the forward ran in, for `custom_bwd` to replay."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    _check_device_type(device_type)

    @functools.wraps(fwd)
    def forward(*args, **kwargs):
        ctx, enabled = args[0], _tls.enabled[device_type]
        if not isinstance(ctx, Tensor):  # (a setup_context forward's first input: PyTorch's attributes would
            ctx._dtype = get_autocast_dtype(device_type)  # land on it; ember's Tensor._dtype is its dtype)
            ctx._fwd_used_autocast = enabled and cast_inputs is None
        if cast_inputs is None or not enabled:
            return fwd(*args, **kwargs)
        dt = dtypes.as_dtype(cast_inputs)
        args = tuple(_cast(a, dt, device_type) for a in args)
        kwargs = {k: _cast(v, dt, device_type) for k, v in kwargs.items()}
        with autocast(device_type, enabled=False):
            return fwd(*args, **kwargs)
    return forward


def custom_bwd(bwd: Callable | None = None, *, device_type: str) -> Callable:
    """For a `Function.backward`: run it in the autocast state its `custom_fwd` forward ran in
    (PyTorch's `torch.amp.custom_bwd`)."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    _check_device_type(device_type)

    @functools.wraps(bwd)
    def backward(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return backward


def cuda_custom_fwd(fwd: Callable | None = None, *, cast_inputs=None) -> Callable:
    """`torch.cuda.amp.custom_fwd`: PyTorch's deprecated spelling of `custom_fwd(device_type="cuda")`."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd: Callable) -> Callable:
    """`torch.cuda.amp.custom_bwd`: PyTorch's deprecated spelling of `custom_bwd(device_type="cuda")`."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return custom_bwd(bwd, device_type="cuda")
