"""`torch.nn.attention`: the `SDPBackend` names and the `sdpa_kernel` context manager (and the
`flex_attention` and `bias` submodules).

The enabled backends are `torch.backends.cuda`'s switches (one record, as in PyTorch). On the CPU,
`scaled_dot_product_attention` takes PyTorch's flash kernel where it is enabled and applies, else the math
path where that is enabled, else refuses as PyTorch does (ember computes both paths with the same ops; the
choice names the grad_fn and decides the refusals).
"""

from __future__ import annotations

import contextlib
import enum

from ember.autograd.backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The backends of scaled dot product attention, with PyTorch's values."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


_backend_names = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION", "mem_efficient": "EFFICIENT_ATTENTION",
                  "math": "MATH", "overrideable": "OVERRIDEABLE"}
_priority: list[int] = [1, 2, 0, 3, 4]  # PyTorch's default order (`torch._C._get_sdp_priority_order()`)


def _cur_sdpa_kernel_backends(with_priority: bool = False) -> list[SDPBackend]:
    """The enabled backends, in `_backend_names`' order or, `with_priority`, in the priority order."""
    backends = [SDPBackend[val] for name, val in _backend_names.items() if _cuda._sdp[name]]
    if with_priority:
        backends.sort(key=lambda b: _priority.index(int(b)))
    return backends


def _current_backends() -> list[SDPBackend]:
    """The backends the innermost `sdpa_kernel` selected (all of them outside one)."""
    return _cur_sdpa_kernel_backends()


def _sdpa_kernel(backends, set_priority: bool = False) -> None:
    """Enable exactly `backends`; `set_priority` puts them first in the priority order, in their order."""
    for name, val in _backend_names.items():
        _cuda._sdp[name] = SDPBackend[val] in backends
    if set_priority:
        user = [int(b) for b in backends]
        _priority[:] = user + [b for b in _priority if b not in user]


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend, set_priority: bool = False):
    """Select the attention backends inside the `with` block (restored on exit)."""
    if not isinstance(backends, list | SDPBackend):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, set_priority)


from ember.nn.attention import bias, flex_attention  # noqa: E402 - the submodules, as torch.nn.attention's
