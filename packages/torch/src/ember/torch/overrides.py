"""`torch.overrides`: the `__torch_function__` protocol, Tensor subclasses and torch-function modes
(ember.core.overrides, where `torch.nn.functional` can reach it too; NOTE [ Tensor subclasses ] there).
`_disabled_torch_function_impl` is PyTorch's `torch._C._disabled_torch_function_impl` (ember has no `torch._C`).
The introspection helpers answer for the whole `torch` tree, by PyTorch's lists of names."""

import sys

from ember.core.overrides import *  # noqa: F403
from ember.core.overrides import __all__  # noqa: F401
from ember.core.overrides import (  # noqa: F401 - PyTorch's private names that user code imports from here
    _disabled_torch_function_impl, _get_current_function_mode, _get_current_function_mode_stack,
    _is_torch_function_mode_enabled,
)
from ember.core.overrides import get_ignored_functions as _core_ignored

# PyTorch's get_ignored_functions() by name: factories, global state and helpers that take no tensor to dispatch on
_IGNORED_TORCH = (
    "arange are_deterministic_algorithms_enabled as_strided as_tensor asarray autocast_decrement_nesting "
    "autocast_increment_nesting bartlett_window blackman_window broadcast_shapes can_cast clear_autocast_cache "
    "compile cond device dtype empty empty_permuted empty_strided enable_grad eye fill finfo fork from_file "
    "from_numpy frombuffer full get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype get_default_device "
    "get_default_dtype get_deterministic_debug_mode get_device_module get_float32_matmul_precision "
    "get_num_interop_threads get_num_threads get_rng_state hamming_window hann_window iinfo inference_mode "
    "init_num_threads initial_seed is_anomaly_check_nan_enabled is_anomaly_enabled is_autocast_cache_enabled "
    "is_autocast_cpu_enabled is_autocast_enabled is_deterministic_algorithms_warn_only_enabled is_grad_enabled "
    "is_inference_mode_enabled is_storage is_tensor is_vulkan_available is_warn_always_enabled kaiser_window layout "
    "linspace load logspace manual_seed memory_format no_grad normal ones promote_types qscheme rand rand_like "
    "randint randint_like randn randn_like randperm range result_type save scalar_tensor seed set_anomaly_enabled "
    "set_autocast_cache_enabled set_autocast_cpu_dtype set_autocast_cpu_enabled set_autocast_dtype "
    "set_autocast_enabled set_autocast_gpu_dtype set_default_device set_default_tensor_type "
    "set_deterministic_debug_mode set_float32_matmul_precision set_flush_denormal set_grad_enabled "
    "set_num_interop_threads set_num_threads set_printoptions set_rng_state set_warn_always sparse_bsc_tensor "
    "sparse_bsr_tensor sparse_compressed_tensor sparse_coo_tensor sparse_csc_tensor sparse_csr_tensor tensor "
    "tril_indices triu_indices typename use_deterministic_algorithms vander vmap wait zeros").split()
_IGNORED_FUNCTIONAL = ("_canonical_mask _none_or_dtype assert_int_or_pair grouped_mm handle_torch_function hardsigmoid "
                       "hardswish has_torch_function has_torch_function_unary has_torch_function_variadic "
                       "scaled_grouped_mm scaled_mm sigmoid tanh upsample upsample_bilinear upsample_nearest").split()
_IGNORED_TENSOR = ("__delattr__ __delitem__ __dir__ __getattribute__ __init__ __setattr__ _conj _neg_view new "
                   "new_empty new_empty_strided new_full new_ones new_tensor new_zeros to_sparse_bsc to_sparse_bsr "
                   "to_sparse_coo to_sparse_csc to_sparse_csr unflatten").split()
_NAMESPACES = ("nn.functional", "linalg", "fft", "special")


def _torch():
    return sys.modules["ember.torch"]


def _module(path: str):
    m = _torch()
    for part in path.split("."):
        m = getattr(m, part)
    return m


def get_ignored_functions() -> set:
    """The public functions and Tensor methods that never reach `__torch_function__` (PyTorch's list)."""
    torch = _torch()
    found = set(_core_ignored())
    for owner, names in ((torch, _IGNORED_TORCH), (_module("nn.functional"), _IGNORED_FUNCTIONAL),
                         (torch.Tensor, _IGNORED_TENSOR)):
        for n in names:
            f = getattr(owner, n, None)
            if callable(f) and not isinstance(f, type):
                found.add(f)
    return found


def get_overridable_functions() -> dict:
    """{namespace: [functions]} of what reaches `__torch_function__`, keyed as PyTorch's (`torch`, `torch.Tensor`,
    `torch.nn.functional`, `torch.linalg`, `torch.fft`, `torch.special`)."""
    from ember.core import overrides as _core

    core, torch = sys.modules["ember.core"], _torch()
    ignored = get_ignored_functions()
    out = {(torch if k is core else k): [f for f in v if f not in ignored]
           for k, v in _core.get_overridable_functions().items()}
    for path in _NAMESPACES:
        mod = _module(path)
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        out[mod] = [f for f in (getattr(mod, n, None) for n in names)
                    if callable(f) and not isinstance(f, type) and getattr(f, "__module__", "") != "typing"
                    and f not in ignored]
    return out


def get_testing_overrides() -> dict:
    """{function: a dummy override returning -1}, for testing that a tensor-like overrides each."""
    return {f: (lambda *args, **kwargs: -1) for fs in get_overridable_functions().values() for f in fs}


def resolve_name(f) -> str | None:
    """The name PyTorch prints for `f` (`torch.add`, `torch.Tensor.add`, `torch.nn.functional.relu`), or None for a
    function that is no part of torch's API."""
    from ember.core.overrides import resolve_name as _core_resolve

    name = getattr(f, "__name__", None)
    if name is None:
        return None
    torch = _torch()
    if getattr(torch.Tensor, name, None) is f or getattr(torch, name, None) is f:
        return _core_resolve(f)  # Tensor's first: ember's `torch.add` is `Tensor.add`, which modes receive for `x + y`
    for path in _NAMESPACES:
        if getattr(_module(path), name, None) is f:
            return f"torch.{path}.{name}"
    return None
