"""Device backends: what core's device-independent code asks of a device type other than the CPU.

NOTE [ Device backends ]: core's own modules (tensor, storage, device, the shape and layout ops)
never import a backend. They ask `backend(type)` for the device type's `Backend` (allocate,
grow, copy to a device and back, the current device index), the way c10 reaches CUDA through
its registered hooks. A backend registers itself with `register_backend` when its module is
imported; `backend("cuda")` imports `ember.core.cuda` by name the first time it is asked, so
`import ember.core` initialises no device and this module depends on no backend.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from ember.core.device import device
    from ember.core.storage import Storage
    from ember.core.tensor import Tensor

__all__ = ["Backend", "register_backend", "backend"]

# the module that registers each known device type's backend when imported
_MODULES = {"cuda": "ember.core.cuda", "meta": "ember.core.meta"}
_backends: dict[str, Backend] = {}


@dataclass(frozen=True)
class Backend:
    """The device-specific work of one device type; every call may raise RuntimeError when the
    device cannot be used (no driver, no GPU), saying why."""

    is_available: Callable[[], bool]
    current_device: Callable[[], int]                      # the index a bare "cuda" means in this thread
    storage: Callable[[int, device], Storage]              # a new, uninitialised storage of n bytes
    grow_storage: Callable[[Storage, int], None]           # a larger block holding the old bytes first
    to_device: Callable[[Tensor, device, bool], Tensor]    # a copy on a device, from or to this type
    to_host: Callable[[Tensor], np.ndarray]                # the elements as a new numpy array (waits)
    copy_to_host: Callable[[Tensor, Tensor, bool], Any]    # `dst.copy_(src)`, dst on the CPU, src here
    synchronize: Callable[[Any], None]                     # wait for the device's queued work


def register_backend(type: str, impl: Backend) -> None:
    """Make `impl` the backend of device type `type` (a backend module calls this on import)."""
    _backends[type] = impl


def backend(type: str) -> Backend:
    """The backend of device type `type`, importing its module on first use."""
    b = _backends.get(type)
    if b is None:
        module = _MODULES.get(type)
        if module is None:  # a PyTorch device type ember has no backend for (mps, xpu ...): PyTorch's refusal
            raise RuntimeError(f"PyTorch is not linked with support for {type} devices")
        importlib.import_module(module)
        b = _backends[type]
    return b
