"""Device errors: a CUDA request on a machine without a usable driver raises a RuntimeError that
says so (not Numba's CudaSupportError), `cuda.is_available()` is False and initialises nothing;
ops given tensors on two devices name both, as PyTorch does."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ember.core as E

SRC = os.path.join(os.path.dirname(__file__), os.pardir, "src")

# Run without the simulator and with a driver path that does not exist: the machine has no usable
# driver whether or not it has a GPU.
_NO_DRIVER = r"""
import json
import ember.core as E

out = {"available": E.cuda.is_available(), "initialized": E.cuda.is_initialized(), "errors": {}}
requests = {
    "zeros(device='cuda')": lambda: E.zeros(2, device="cuda"),
    "tensor(device='cuda:0')": lambda: E.tensor([1.0], device="cuda:0"),
    ".cuda()": lambda: E.ones(2).cuda(),
    ".to('cuda')": lambda: E.ones(2).to("cuda"),
    "cuda.synchronize()": lambda: E.cuda.synchronize(),
    "cuda.get_device_name()": lambda: E.cuda.get_device_name(),
}
for name, fn in requests.items():
    try:
        fn()
        out["errors"][name] = None
    except Exception as e:
        out["errors"][name] = [type(e).__name__, str(e)]
out["initialized_after"] = E.cuda.is_initialized()
out["device_count"] = E.cuda.device_count()
print(json.dumps(out))
"""


def _run_without_driver() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env.update(PYTHONPATH=SRC, NUMBA_CUDA_DRIVER="/nonexistent/libcuda.so")
    out = subprocess.run([sys.executable, "-c", _NO_DRIVER], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cuda_requests_without_a_driver_raise_a_clear_runtime_error():
    r = _run_without_driver()
    assert r["available"] is False and r["device_count"] == 0
    for name, err in r["errors"].items():
        assert err is not None, f"{name} did not raise"
        kind, msg = err
        assert kind == "RuntimeError", f"{name}: {kind}: {msg}"
        assert msg.startswith("CUDA is not available: no NVIDIA driver or GPU was found (Numba: "), msg
        assert "driver library cannot be found" in msg and msg.endswith(".)"), msg
        assert "\n" not in msg and ":)" not in msg, msg


def test_is_available_and_failed_requests_initialise_nothing():
    r = _run_without_driver()
    assert r["initialized"] is False and r["initialized_after"] is False


cuda = pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
MSG = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


@pytest.mark.cuda
@cuda
@pytest.mark.parametrize("fn", [
    lambda g, c: g + c, lambda g, c: c * g, lambda g, c: g @ c, lambda g, c: c @ g,
    lambda g, c: E.bmm(g[None], c[None]), lambda g, c: E.where(g > 0, g, c),
    lambda g, c: g.gather(1, E.tensor([[0], [1]])), lambda g, c: g.masked_fill(c > 0, 1.0),
    lambda g, c: E.cross_entropy(g, E.tensor([0, 1])), lambda g, c: g.add_(c),
], ids=["add", "mul_reversed", "mm", "mm_reversed", "bmm", "where", "gather", "masked_fill", "cross_entropy",
        "add_"])
def test_ops_across_devices_name_both_devices(fn):
    g, c = E.ones(2, 2, device="cuda"), E.ones(2, 2)
    with pytest.raises(RuntimeError) as info:
        fn(g, c)
    assert str(info.value) == MSG


@pytest.mark.cuda
@cuda
def test_what_may_cross_devices_still_does():
    g = E.tensor([[1.0, 2.0], [3.0, 4.0]], device="cuda")
    np.testing.assert_array_equal((g + E.tensor(1.0)).cpu().numpy(), [[2, 3], [4, 5]])  # a CPU 0-dim tensor
    np.testing.assert_array_equal(g[E.tensor([1, 0])].cpu().numpy(), [[3, 4], [1, 2]])  # CPU indices
    g.copy_(E.zeros(2, 2))
    np.testing.assert_array_equal(g.cpu().numpy(), np.zeros((2, 2)))
