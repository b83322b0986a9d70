"""`from_dlpack` of a raw DLPack capsule (what `torch.utils.dlpack.to_dlpack` returns), as PyTorch accepts."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import _util


def test_a_raw_capsule_shares_memory_and_strides():
    a = np.arange(6.0).reshape(2, 3).T  # a strided view
    t = E.from_dlpack(a.__dlpack__())
    assert t.shape == (3, 2) and t.stride() == (1, 3)
    np.testing.assert_array_equal(t.numpy(), a)


def test_a_capsule_is_consumed_once():
    cap = np.arange(3.0).__dlpack__()
    E.from_dlpack(cap)
    with pytest.raises(RuntimeError, match="can be consumed only once"):
        E.from_dlpack(cap)


def test_a_versioned_capsule_keeps_its_read_only_flag(monkeypatch):
    a = np.arange(4.0)
    t = E.from_dlpack(a.__dlpack__(max_version=(1, 0)))
    np.testing.assert_array_equal(t.numpy(), a)
    a[0] = 5.0
    assert t[0].item() == 5.0
    ro = np.arange(3.0)
    ro.flags.writeable = False
    monkeypatch.setattr(_util, "_warned_once", set())  # the warning is once a process
    with pytest.warns(UserWarning, match="not writable"):
        E.from_dlpack(ro.__dlpack__(max_version=(1, 0)))


@pytest.mark.torch
def test_torch_to_dlpack_capsule():
    torch = pytest.importorskip("torch")
    src = torch.arange(6.0).reshape(2, 3).t()
    t = E.from_dlpack(torch.utils.dlpack.to_dlpack(src))
    assert t.stride() == src.stride()
    src[0, 0] = 7.0  # shared memory
    np.testing.assert_array_equal(t.numpy(), src.numpy())
