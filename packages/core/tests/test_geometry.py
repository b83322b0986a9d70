"""The geometry gate (NOTE [ The geometry gate ]): every outside (storage, size, stride, offset)
is checked before a tensor exists, with PyTorch's exception types and messages."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import ember.core as C
from ember.core import dtypes, sharing
from ember.core.cuda.interop import _cai_geometry
from ember.core.geometry import INT64_MAX, check_geometry, make_tensor
from ember.core.storage import Storage
from ember.core.tensor import Tensor

BAD_GEOMETRIES = [  # (size, stride, offset) over 16 bytes of float32, PyTorch's message
    ((2,), (1,), -1, "Tensor: invalid storage offset -1"),
    ((-1,), (1,), 0, "Storage size calculation overflowed with sizes=[-1] and strides=[1]"),
    ((-1, 400), (160, 1), 0, "Storage size calculation overflowed with sizes=[-1, 400] and strides=[160, 1]"),
    ((-2, 3), (0, 1), 0, "numel: integer multiplication overflow"),
    ((2,), (-1,), 0, "as_strided: Negative strides are not supported at the moment, got strides: [-1]"),
    ((5,), (1,), 0, "setStorage: sizes [5], strides [1], storage offset 0, and itemsize 4 requiring a storage size "
                    "of 20 are out of bounds for storage of size 16"),
    ((2,), (1,), 3, "requiring a storage size of 20 are out of bounds for storage of size 16"),
    ((2**62, 4), (1, 1), 0, "Storage size calculation overflowed with sizes=[4611686018427387904, 4] and strides="),
    ((2**40,), (2**40,), 0, "Storage size calculation overflowed"),
    ((2,), (1,), 2**62, "Storage size calculation overflowed"),
    ((2**62, 4), (0, 0), 0, "numel: integer multiplication overflow"),
    ((2, 2), (1,), 0, "mismatch in length of strides and shape"),
]


@pytest.mark.parametrize("size,stride,offset,message", BAD_GEOMETRIES)
def test_bad_geometry_raises_pytorchs_runtime_error(size, stride, offset, message):
    with pytest.raises(RuntimeError, match=_literal(message)):
        check_geometry(16, 4, size, stride, offset)
    with pytest.raises(RuntimeError, match=_literal(message)):
        C.zeros(4).as_strided(size, stride, offset)


def _literal(message: str) -> str:
    import re

    return re.escape(message)


@pytest.mark.parametrize("size,stride,offset,message", [
    ((2.0,), (1,), 0, "argument 'size' must be tuple of ints, but found element of type float at pos 0"),
    ((True,), (1,), 0, "argument 'size' must be tuple of ints, but found element of type bool at pos 0"),
    ((2,), ("1",), 0, "argument 'stride' must be tuple of ints, but found element of type str at pos 0"),
    ((2,), (1,), 1.5, "argument 'storage_offset' must be int, not float"),
    ("ab", (1,), 0, "argument 'size' must be tuple of ints, not str"),
])
def test_non_integer_geometry_raises_type_error(size, stride, offset, message):
    with pytest.raises(TypeError, match=_literal(message)):
        check_geometry(16, 4, size, stride, offset)


def test_good_geometry_is_returned_as_ints_and_empty_tensors_need_no_bytes():
    assert check_geometry(16, 4, [np.int64(2), 2], (2, 1), 0) == ((2, 2), (2, 1), 0)
    assert check_geometry(16, 4, (2,), (1,), 2) == ((2,), (1,), 2)
    assert check_geometry(0, 4, (0, 5), (5, 1), 100) == ((0, 5), (5, 1), 100)
    assert check_geometry(INT64_MAX, 1, (INT64_MAX,), (1,), 0)[0] == (INT64_MAX,)


def test_stride_zero_view_of_huge_size_stays_a_view():
    x = C.tensor([7.0, 1.0])
    v = x.as_strided((2**40, 3), (0, 0))
    assert v.shape == (2**40, 3) and v.untyped_storage() is x.untyped_storage()
    assert v[2**39, 1].item() == 7.0


def test_make_tensor_refuses_unknown_dtypes_and_non_storages():
    st = Storage.cpu(16)
    with pytest.raises(TypeError, match="unknown dtype 'complex512'"):
        make_tensor(st, 0, (4,), (1,), "complex512")
    with pytest.raises(TypeError, match="expected a Storage, got ndarray"):
        make_tensor(np.zeros(16, np.uint8), 0, (4,), (1,), dtypes.float32)
    t = make_tensor(st, 1, (3,), (1,), dtypes.float32)
    assert t.storage_offset() == 1 and t.shape == (3,)


def test_tensor_and_as_tensor_refuse_a_non_native_byte_order_as_pytorch():
    for make in (C.tensor, C.as_tensor):
        with pytest.raises(ValueError, match=r"^given numpy array has byte order different from the native byte "
                                             r"order\. Conversion between byte orders is currently not supported\.$"):
            make(np.zeros(3, ">f4"))
    assert C.as_tensor(np.arange(3, dtype=">f4")[1]).item() == 1.0  # a numpy scalar converts (PyTorch too)


def test_from_numpy_follows_pytorch_for_negative_strides_byte_order_and_alignment():
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        C.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(ValueError, match="byte order different from the native byte order"):
        C.from_numpy(np.zeros(3, ">f4"))
    raw = np.arange(17, dtype=np.uint8)
    unaligned = raw[1:].view(np.float32)
    assert not unaligned.flags.aligned
    assert np.array_equal(C.from_numpy(unaligned).numpy(), unaligned)
    wide = np.lib.stride_tricks.as_strided(np.array([5.0]), (2**40,), (0,))
    t = C.from_numpy(wide)
    assert t.shape == (2**40,) and t.stride() == (0,) and t.untyped_storage().nbytes == 8


def test_cuda_array_interface_geometry_is_gated_before_memory_is_touched():
    assert _cai_geometry({"shape": (2, 3), "typestr": "<f4", "strides": None, "data": (0, False)})[1:] == \
        ((2, 3), (3, 1), 24)
    assert _cai_geometry({"shape": (4,), "typestr": "<f8", "strides": (0,), "data": (0, False)})[1:] == \
        ((4,), (0,), 8)
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        _cai_geometry({"shape": (4,), "typestr": "<f4", "strides": (-4,), "data": (0, False)})
    with pytest.raises(RuntimeError, match="not multiples of the element size 4"):
        _cai_geometry({"shape": (4,), "typestr": "<f4", "strides": (6,), "data": (0, False)})
    with pytest.raises(RuntimeError, match="negative dimension"):
        _cai_geometry({"shape": (-4,), "typestr": "<f4", "strides": None, "data": (0, False)})
    with pytest.raises(TypeError, match="typestr"):
        _cai_geometry({"shape": (4,), "typestr": "<c32", "strides": None, "data": (0, False)})


def test_tensor_rebuilt_from_a_crafted_pickle_goes_through_the_gate():
    st = Storage.cpu(16)
    with pytest.raises(RuntimeError, match="invalid storage offset -1000"):
        sharing._rebuild_tensor(st, -1000, (4,), (1,), dtypes.float32, Tensor, False, {})
    with pytest.raises(TypeError, match="is not a Tensor class"):
        sharing._rebuild_tensor(st, 0, (4,), (1,), dtypes.float32, dict, False, {})
    x = C.arange(4.0)
    y = pickle.loads(pickle.dumps(x[1:]))
    assert y.tolist() == [1.0, 2.0, 3.0] and y.storage_offset() == 1


@pytest.mark.torch
@pytest.mark.parametrize("size,stride,offset,message", BAD_GEOMETRIES[:9])
def test_as_strided_messages_match_pytorch(size, stride, offset, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        torch.zeros(4).as_strided(size, stride, offset)
    with pytest.raises(RuntimeError) as ours:
        C.zeros(4).as_strided(size, stride, offset)
    assert str(ours.value) == str(theirs.value)


def test_negative_sizes_are_named_as_each_entry_point_names_them():
    """PyTorch's as_strided and set_ meet a negative size only when the extent or numel overflows."""
    x = C.zeros(4)
    with pytest.raises(RuntimeError, match=r"^numel: integer multiplication overflow$"):
        C.empty(0).set_(x.untyped_storage(), 0, (-1, 4), (1, 1))
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1, 4\]$"):
        C.empty_strided((-1, 4), (4, 1))
    with pytest.raises(RuntimeError, match=r"^as_strided: Negative strides are not supported"):
        x.as_strided((-1, 4), (-1, 1))


def test_user_sizes_of_empty_strided_resize_and_unfold_are_checked_before_use():
    with pytest.raises(RuntimeError, match="empty_strided: Negative strides are not supported"):
        C.empty_strided((2,), (-1,))
    t = C.empty_strided((2**40,), (0,))
    assert t.untyped_storage().nbytes == 4 and t.stride() == (0,)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):  # PyTorch 2.13's words
        C.zeros(4).resize_(-1)
    with pytest.raises(RuntimeError, match="size is -2 but must be >= 0"):
        C.zeros(4).unfold(0, -2, 1)


def test_set_points_a_tensor_at_a_storage_through_the_gate():
    base = C.arange(6.0)
    x = C.zeros(1)
    x.set_(base.untyped_storage(), 2, (2, 2), (1, 2))
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0)[2:].reshape(2, 2, order="F"))
    x.set_(base[1:])
    base[2] = 9.0
    assert x.tolist() == [1.0, 9.0, 3.0, 4.0, 5.0] and x.storage_offset() == 1
    assert x.set_().shape == (0,)
    st = C.zeros(4).untyped_storage()
    borrowed = C.from_numpy(np.zeros(4, np.float32)).untyped_storage()
    for args, message in [((borrowed, 1, (4,), (1,)), "Trying to resize storage that is not resizable"),
                          ((st, -1, (2,), (1,)), "invalid storage offset -1"),
                          ((st, 0, (2,), (-1,)), "Storage size calculation overflowed with sizes=[2] and "
                                                 "strides=[-1]")]:
        with pytest.raises(RuntimeError, match=_literal(message)):
            C.zeros(1).set_(*args)
    assert C.zeros(1).set_(st, 0, (0,), (-1,)).shape == (0,)  # an empty tensor has no extent to overflow
    with pytest.raises(RuntimeError, match="^Could not set tensor of type double to a tensor of type float$"):
        C.zeros(1).set_(C.zeros(2, dtype=dtypes.float64))
    with pytest.raises(TypeError, match="source must be a Tensor or a Storage, not list"):
        C.zeros(1).set_([1.0])


def test_set_and_resize_grow_a_resizable_storage_but_not_a_numpy_arrays():
    """PyTorch's: set_ past the end of an owned storage grows it (for every tensor on it); memory borrowed from
    numpy or moved to shared memory is not resizable."""
    base = C.arange(4.0)
    st = base.untyped_storage()
    t = C.zeros(1).set_(st, 2, (3,), (1,))
    assert st.nbytes == 20 and t.tolist()[:2] == [2.0, 3.0] and base.tolist() == [0.0, 1.0, 2.0, 3.0]
    a = np.zeros(3, np.float32)
    borrowed = C.from_numpy(a)
    assert not borrowed.untyped_storage().resizable() and st.resizable()
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
        borrowed.resize_(10)
    borrowed.resize_(2)  # shrinking needs no new memory
    borrowed[0] = 5.0
    assert a[0] == 5.0
    shared = sharing.share_memory_(C.zeros(2))
    with pytest.raises(RuntimeError, match="^Trying to resize storage that is not resizable$"):
        shared.resize_(4)
