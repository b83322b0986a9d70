"""The device-backend registry: core reaches a device only through `ember.core.device_backends`."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from ember.core import device_backends as backends
from ember.core.device import as_device, device


def test_cuda_backend_is_the_one_ember_core_cuda_registers():
    import ember.core.cuda as cuda

    b = backends.backend("cuda")
    assert b.is_available is cuda.is_available and b.storage is cuda.device_storage


def test_unknown_device_type_raises_runtime_error_naming_it():
    """A device type without an ember backend (PyTorch's mps, xpu ...) is refused in PyTorch's words."""
    with pytest.raises(RuntimeError, match="^PyTorch is not linked with support for mps devices$"):
        backends.backend("mps")


def test_bare_cuda_device_asks_the_registered_backend_for_its_index(monkeypatch):
    fake = dataclasses.replace(backends.backend("cuda"), current_device=lambda: 3)
    monkeypatch.setitem(backends._backends, "cuda", fake)
    assert as_device("cuda") == device("cuda", 3)


@pytest.mark.parametrize("available", [False, True])
def test_an_int_device_is_the_accelerator_or_pytorchs_refusal_without_one(monkeypatch, available):
    """PyTorch reads `device(3)` (and `x.to(3)`, `device=3`) as its current accelerator, CUDA here: without one,
    its RuntimeError in its words."""
    device_module = importlib.import_module("ember.core.device")  # `ember.core.device` is the class
    fake = dataclasses.replace(backends.backend("cuda"), is_available=lambda: available)
    monkeypatch.setitem(backends._backends, "cuda", fake)
    monkeypatch.setattr(device_module, "_CACHE", {k: v for k, v in device_module._CACHE.items() if k[0] != 7})
    if available:
        assert device(7) == device("cuda", 7)
    else:
        with pytest.raises(RuntimeError, match=r"^Cannot access accelerator device when none is available\.$"):
            device(7)
