"""Views share storage with their base; copies happen only when they must; version counters are shared."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E


def _base():
    return E.arange(24, dtype=E.float32).reshape(2, 3, 4)


# (name, view function, numpy equivalent)
VIEWS = [
    ("view", lambda x: x.view(6, 4), lambda a: a.reshape(6, 4)),
    ("view_minus1", lambda x: x.view(-1), lambda a: a.reshape(-1)),
    ("reshape_viewable", lambda x: x.reshape(4, 6), lambda a: a.reshape(4, 6)),
    ("permute", lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    ("transpose", lambda x: x.transpose(0, 2), lambda a: a.swapaxes(0, 2)),
    ("mT", lambda x: x.mT, lambda a: a.swapaxes(-1, -2)),
    ("select", lambda x: x.select(1, 2), lambda a: a[:, 2]),
    ("getitem_int", lambda x: x[1], lambda a: a[1]),
    ("getitem_slices", lambda x: x[:, 1:, ::2], lambda a: a[:, 1:, ::2]),
    ("getitem_none_ellipsis", lambda x: x[None, ..., 1], lambda a: a[None, ..., 1]),
    ("narrow", lambda x: x.narrow(2, 1, 2), lambda a: a[:, :, 1:3]),
    ("squeeze", lambda x: x[:, :1].squeeze(1), lambda a: a[:, 0]),
    ("unsqueeze", lambda x: x.unsqueeze(1), lambda a: a[:, None]),
    ("expand", lambda x: x[:, :1].expand(2, 3, 4), lambda a: np.broadcast_to(a[:, :1], (2, 3, 4))),
    ("diagonal", lambda x: x.diagonal(0, 1, 2), lambda a: np.einsum("ijj->ij", a[:, :, :3])),
    ("unfold", lambda x: x.unfold(2, 2, 2), lambda a: a.reshape(2, 3, 2, 2)),
    ("as_strided", lambda x: x.as_strided((2, 2), (1, 4), 1), lambda a: np.lib.stride_tricks.as_strided(
        a.reshape(-1)[1:], (2, 2), (4, 16))),
    ("movedim", lambda x: x.movedim(0, -1), lambda a: np.moveaxis(a, 0, -1)),
    ("flatten", lambda x: x.flatten(1), lambda a: a.reshape(2, 12)),
    ("unflatten", lambda x: x.unflatten(2, (2, 2)), lambda a: a.reshape(2, 3, 2, 2)),
    ("split", lambda x: x.split(2, dim=2)[1], lambda a: a[:, :, 2:]),
    ("chunk", lambda x: x.chunk(3, dim=1)[2], lambda a: a[:, 2:]),
    ("unbind", lambda x: x.unbind(1)[1], lambda a: a[:, 1]),
    ("view_dtype", lambda x: x.view(E.int32), lambda a: a.view(np.int32)),
]


@pytest.mark.parametrize("name,fn,ref", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_shares_storage_and_matches_numpy(name, fn, ref):
    x = _base()
    a = x.numpy().copy()
    v = fn(x)
    assert v.untyped_storage() is x.untyped_storage()
    expected = ref(a)
    np.testing.assert_array_equal(v.numpy(), expected)
    # offset and strides are the ones numpy computes for the same view of the same buffer
    assert v.storage_offset() * 4 == v.numpy().ctypes.data - x.numpy().ctypes.data
    assert tuple(s * 4 for s in v.stride()) == v.numpy().strides


@pytest.mark.parametrize("name,fn,ref", [v for v in VIEWS if v[0] not in ("expand", "view_dtype")],
                         ids=[v[0] for v in VIEWS if v[0] not in ("expand", "view_dtype")])
def test_writes_through_a_view_show_in_the_base(name, fn, ref):
    x = _base()
    a = x.numpy().copy()
    v = fn(x)
    v.fill_(-1.0)
    ref(a)[...] = -1.0
    np.testing.assert_array_equal(x.numpy(), a)


def test_inplace_op_bumps_the_version_seen_by_every_view():
    x = _base()
    v1, v2 = x[0], x.t() if x.ndim == 2 else x.permute(2, 1, 0)
    before = x._version
    v1.add_(1)
    assert x._version == v1._version == v2._version == before + 1
    x.mul_(2)
    assert v2._version == before + 2
    x[1, 1] = 3.0
    assert v1._version == before + 3
    v1.copy_(E.zeros(3, 4))
    assert x._version == before + 4


def test_reshape_copies_only_when_it_must():
    x = _base()
    assert x.reshape(6, 4).untyped_storage() is x.untyped_storage()
    t = x.transpose(1, 2)                         # (2, 4, 3), not viewable as (2, 12)
    r = t.reshape(2, 12)
    assert r.untyped_storage() is not x.untyped_storage()
    np.testing.assert_array_equal(r.numpy(), x.numpy().transpose(0, 2, 1).reshape(2, 12))
    assert t.reshape(8, 3).untyped_storage() is not x.untyped_storage()
    assert t.reshape(2, 4, 3).untyped_storage() is x.untyped_storage()
    s = x[:, :, ::2]                              # merging the first two dims is still a view
    assert s.reshape(6, 2).untyped_storage() is x.untyped_storage()


def test_contiguous_copies_only_when_needed():
    x = _base()
    assert x.contiguous() is x
    t = x.transpose(0, 1)
    c = t.contiguous()
    assert c.is_contiguous() and c.untyped_storage() is not x.untyped_storage()
    np.testing.assert_array_equal(c.numpy(), t.numpy())
    assert c.stride() == (8, 4, 1)


def test_view_on_incompatible_strides_raises_pytorch_message():
    t = _base().transpose(1, 2)
    with pytest.raises(RuntimeError, match=r"view size is not compatible with input tensor's size and stride "
                                           r"\(at least one dimension spans across two contiguous subspaces\)\. "
                                           r"Use \.reshape\(\.\.\.\) instead\."):
        t.view(2, 12)
    with pytest.raises(RuntimeError, match=r"shape '\[5, -1\]' is invalid for input of size 24"):
        _base().view(5, -1)


@settings(max_examples=25, deadline=None)
@given(st.permutations([0, 1, 2]), st.sampled_from([(24,), (4, 6), (2, 12), (3, 2, 4), (2, 2, 2, 3)]))
def test_reshape_of_permuted_matches_numpy_and_view_shares_when_allowed(perm, shape):
    x = _base().permute(*perm)
    a = x.numpy()
    r = x.reshape(shape)
    np.testing.assert_array_equal(r.numpy(), a.reshape(shape))
    try:
        v = x.view(shape)
    except RuntimeError:
        return
    assert v.untyped_storage() is x.untyped_storage()
    np.testing.assert_array_equal(v.numpy(), a.reshape(shape))


def test_copy_broadcasts_and_casts():
    x = E.zeros(2, 3)
    x.copy_(E.tensor([1, 2, 3]))
    assert x.tolist() == [[1, 2, 3], [1, 2, 3]] and x.dtype is E.float32
    y = E.zeros(3, dtype=E.int64)
    y.copy_(E.tensor([1.7, -2.2, 3.9]))
    assert y.tolist() == [1, -2, 3]
    b = E.zeros(2, dtype=E.bool)
    b.copy_(E.tensor([0.0, 2.0]))
    assert b.tolist() == [False, True]
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(4\)"):
        x.copy_(E.ones(4))


def test_copy_into_a_transposed_view_writes_the_base():
    x = E.zeros(2, 3)
    x.t().copy_(E.arange(6).reshape(3, 2))
    assert x.tolist() == [[0, 2, 4], [1, 3, 5]]


def test_clone_is_independent_and_detached_from_storage():
    x = _base()
    c = x.clone()
    c.fill_(0)
    assert x.sum().item() == sum(range(24))


@pytest.mark.parametrize("name", ["mT", "mH"])
def test_matrix_transpose_of_a_vector_raises_pytorchs_runtime_error(name):
    # found by the fuzz campaign's linalg family: an IndexError where PyTorch raises RuntimeError
    with pytest.raises(RuntimeError, match=rf"tensor.{name} is only supported on matrices or batches of matrices. "
                                           r"Got 1-D tensor."):
        getattr(E.ones(3), name)


@pytest.mark.parametrize(("name", "message"), [
    ("mT", "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases."),
    ("mH", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj()."),
])
def test_matrix_transpose_of_a_scalar_warns_once_and_passes_it_through(monkeypatch, name, message):
    """PyTorch takes a 0-D tensor: mT returns it, mH conjugates it, each warning once a process."""
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    z = E.tensor(1 + 2j)
    with pytest.warns(UserWarning, match=re.escape(message)):
        r = getattr(z, name)
    assert r.item() == (1 + 2j if name == "mT" else 1 - 2j) and (r is z) == (name == "mT")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(z, name)


def test_adjoint_refuses_a_vector_and_conjugates_a_scalar(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with pytest.raises(RuntimeError, match=r"^tensor\.adjoint\(\) is only supported on matrices or batches of "
                                           r"matrices\. Got 1-D tensor\.$"):
        E.ones(3).adjoint()
    with pytest.warns(UserWarning, match=r"adjoint\(\) is deprecated on 0-D tensors\. Consider using x\.conj\(\)\."):
        assert E.tensor(1 - 3j).adjoint().item() == 1 + 3j


def test_broadcast_to_takes_the_sizes_as_arguments_or_one_sequence():
    x = E.tensor([1.0, 2.0])
    for got in (x.broadcast_to(3, 2), x.broadcast_to((3, 2)), x.broadcast_to([3, 2]),
                E.broadcast_to(x, E.Size([3, 2]))):
        assert got.shape == (3, 2) and got.stride() == (0, 1) and got.tolist() == [[1.0, 2.0]] * 3
    with pytest.raises(RuntimeError, match="must match the existing size"):
        x.broadcast_to(3)


@pytest.mark.parametrize(("dtype", "value", "want"), [
    ("uint8", -2, 254), ("uint8", -255, 1), ("uint8", 255, 255), ("int8", -128, -128), ("int16", -256, -256),
    ("int64", 2**63 - 1, 2**63 - 1)])
def test_fill_with_a_python_int_converts_as_pytorch(dtype, value, want):
    """PyTorch's checked conversion: unsigned dtypes take negatives down to minus their maximum, wrapping."""
    t = E.zeros(3, dtype=getattr(E, dtype))
    assert t.fill_(value).tolist() == [want] * 3
    assert E.zeros(3, dtype=getattr(E, dtype)).index_fill(0, E.tensor([1]), value).tolist() == [0, want, 0]


@pytest.mark.parametrize(("dtype", "value", "ctype"), [
    ("uint8", -256, "uint8_t"), ("uint8", 256, "uint8_t"), ("int8", 128, "int8_t"), ("int8", -255, "int8_t"),
    ("int32", 2**31, "int"), ("int64", 2**63, "int64_t")])
def test_fill_out_of_range_raises_pytorchs_error(dtype, value, ctype):
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {ctype} without overflow"):
        E.zeros(2, dtype=getattr(E, dtype)).fill_(value)
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {ctype} without overflow"):
        E.zeros(2, dtype=getattr(E, dtype)).index_fill(0, E.tensor([0]), value)


@pytest.mark.parametrize(("shape", "dim", "sizes", "n"), [
    ((2, 3), 1, (2, 2), 3), ((2, 3), 1, (-1, 4), 3), ((2, 3), -1, (2, 2), 3), ((2, 6), 1, (0, -1), 6)])
def test_unflatten_sizes_that_do_not_fit_in_pytorchs_words(shape, dim, sizes, n):
    with pytest.raises(RuntimeError, match=rf"^unflatten: Provided sizes \[{', '.join(map(str, sizes))}\] don't "
                                           rf"multiply up to the size of dim 1 \({n}\) in the input tensor$"):
        E.ones(*shape).unflatten(dim, sizes)
    assert E.ones(2, 0).unflatten(1, (-1, 3)).shape == (2, 0, 3)


@pytest.mark.parametrize("dim", [1, 5])
def test_unflatten_into_no_sizes_is_refused_before_the_dim_is_checked(dim):
    with pytest.raises(RuntimeError, match="^unflatten: sizes must be non-empty$"):
        E.ones(2, 3).unflatten(dim, ())


def test_permute_errors_are_pytorchs():
    x = E.ones(2, 3)
    # the length is checked before the dims are wrapped: RuntimeError, not IndexError
    with pytest.raises(RuntimeError, match=r"input.dim\(\) = 2 is not equal to len\(dims\) = 3"):
        x.permute(0, 1, 2)
    with pytest.raises(RuntimeError, match=r"input.dim\(\) = 2 is not equal to len\(dims\) = 1"):
        x.permute(1)
    with pytest.raises(RuntimeError, match=r"^permute\(\): duplicate dims are not allowed.$"):
        x.permute(0, -2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.permute(0, 2)


@pytest.mark.parametrize("make,size,strides", [
    (lambda: E.arange(12), (1, -1), (12, 1)),
    (lambda: E.arange(12), (3, 12), (0, 1)),
    (lambda: E.ones(3, 1), (1, 3, 1), (3, 1, 1)),
    (lambda: E.ones(3, 1), (2, 1, 3, 1), (0, 3, 1, 1)),
    (lambda: E.ones(3, 1), (1, 2, 3, 1), (0, 0, 1, 1)),
    (lambda: E.tensor(1.0), (1, 1), (0, 0)),
])
def test_expand_new_size_one_dim_takes_pytorchs_stride(make, size, strides):
    """A new leading dim of size 1 gets the next dim's extent as stride (PyTorch's inferExpandGeometry), not 0."""
    assert make().expand(size).stride() == strides


def test_broadcast_tensors_returns_a_tensor_already_of_the_common_shape_itself():
    """PyTorch's expand_outplace hands back an operand already of the broadcast shape (no ExpandBackward0
    view), so a distribution's `loc` is the leaf it was given; the others are expanded views."""
    a, b, c = E.ones(2, 3), E.zeros(3), E.ones(2, 3)
    x, y, z = E.broadcast_tensors(a, b, c)
    assert x is a and z is c and y is not b
    assert y.shape == (2, 3) and y.stride() == (0, 1)


@pytest.mark.parametrize("view, offset", [
    (lambda x: x[:, :, 5:], 20), (lambda x: x[:, :, 4:2], 20), (lambda x: x[:, 10:], 60),
    (lambda x: x[:, :, -10:0], 0), (lambda x: x[:, :, 3:1:2], 15), (lambda x: x.narrow(2, 4, 0), 20),
])
def test_an_empty_slice_keeps_its_clamped_start_as_offset(view, offset):
    v = view(E.arange(120).reshape(2, 3, 4, 5))  # offsets are PyTorch 2.13's
    assert v.numel() == 0 and v.storage_offset() == offset


def test_narrow_takes_a_zero_dim_integer_tensor_start_and_refuses_any_other_tensor():
    x = E.arange(10)
    assert x.narrow(0, E.tensor(-3), 3).tolist() == [7, 8, 9]
    assert x.narrow(0, E.tensor(2, dtype=E.int32), 2).tolist() == [2, 3]
    for start in (E.tensor(2.0), E.tensor([2]), E.tensor(True)):
        with pytest.raises(RuntimeError, match=r"^start must be an 0-dim integral Tensor\.$"):
            x.narrow(0, start, 3)
