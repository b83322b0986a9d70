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


def test_from_dlpack_copy_and_device_keywords():
    a = np.arange(3.0)
    shared, copied = E.from_dlpack(a), E.from_dlpack(a, copy=True)
    same_device = E.from_dlpack(a, device="cpu")
    a[0] = 9.0
    assert shared[0].item() == 9.0 and same_device[0].item() == 9.0 and copied[0].item() == 0.0
    with pytest.raises(AssertionError, match="^device and copy kwargs not supported when ext_tensor is already a "
                                             "DLPack capsule.$"):
        E.from_dlpack(a.__dlpack__(), copy=True)


def test_from_dlpack_of_no_producer_is_taken_for_an_invalid_capsule():
    with pytest.raises(RuntimeError, match="^from_dlpack received an invalid capsule. Note that DLTensor capsules "
                                           "can be consumed only once"):
        E.from_dlpack(3)


def test_a_tensor_that_requires_grad_exports_only_through_the_legacy_capsule():
    t = E.ones(2)
    t._requires_grad = True  # what ember.autograd's requires_grad_ sets
    with pytest.raises(BufferError, match="^Can't export tensors that require gradient, use tensor.detach\\(\\)$"):
        np.from_dlpack(t)
    from ember.core.cuda.interop import DLDeviceType, to_dlpack

    np.testing.assert_array_equal(E.from_dlpack(to_dlpack(t)).numpy(), [1.0, 1.0])
    kind, index = E.ones(2).__dlpack_device__()
    assert kind is DLDeviceType.kDLCPU and repr(kind) == "<DLDeviceType.kDLCPU: 1>" and index == 0
