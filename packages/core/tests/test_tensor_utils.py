"""PyTorch's small utilities: copies of views, in-place view ops, apply_/map_, fill_diagonal_,
new, sum_to_size, layouts, broadcast_shapes, can_cast, unravel_index and friends."""

import numpy as np
import pytest

import ember.core as E


def test_copy_twins_equal_the_views_and_share_no_memory():
    x = E.arange(6).view(2, 3)
    cases = [(E.t_copy(x), x.t()), (E.transpose_copy(x, 0, 1), x.transpose(0, 1)),
             (E.select_copy(x, 1, 2), x.select(1, 2)), (E.narrow_copy(x, 1, 1, 2), x.narrow(1, 1, 2)),
             (E.expand_copy(E.arange(2), (2, 2)), E.arange(2).expand(2, 2)), (E.view_copy(x, (3, 2)), x.view(3, 2)),
             (E.diagonal_copy(x), x.diagonal()), (E.permute_copy(x, (1, 0)), x.permute(1, 0)),
             (E.unsqueeze_copy(x, 0), x.unsqueeze(0)), (E.slice_copy(E.arange(6), 0, 1, 5, 2), E.arange(6)[1:5:2]),
             (E.alias_copy(x), x), (x.narrow_copy(0, 1, 1), x.narrow(0, 1, 1))]
    for copy, view in cases:
        assert copy.tolist() == view.tolist()
        assert copy.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    parts = E.split_copy(x, 1, 1)
    assert [p.tolist() for p in parts] == [[[0], [3]], [[1], [4]], [[2], [5]]]
    assert [u.tolist() for u in E.unbind_copy(x)] == [[0, 1, 2], [3, 4, 5]]


def test_in_place_view_ops_change_the_tensor_itself():
    x = E.arange(6.0).view(2, 3)
    assert x.t_() is x and x.shape == (3, 2) and x.stride() == (1, 3)
    assert x.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    y = E.zeros(3, 1, 2)
    assert y.squeeze_(1).shape == (3, 2)
    assert y.unsqueeze_(0).shape == (1, 3, 2)
    assert y.transpose_(0, 2).shape == (2, 3, 1)
    assert y.swapaxes_(0, 1).shape == (3, 2, 1) and y.swapdims_(0, 1).shape == (2, 3, 1)
    z = E.arange(6.0)
    assert E.as_strided_(z, (2, 2), (1, 2)).tolist() == [[0.0, 2.0], [1.0, 3.0]]


def test_squeeze__refuses_a_bad_dim_with_its_own_name_as_pytorch():
    """PyTorch 2.13's method parser error, named `squeeze_()` (ember named the function's `squeeze()`)."""
    bad = "      didn't match because some of the arguments have invalid types: (!NoneType!)\n"
    with pytest.raises(TypeError) as info:
        E.zeros(3, 1).squeeze_(None)
    assert str(info.value) == ("squeeze_() received an invalid combination of arguments - got (NoneType), but expected "
                               "one of:\n * ()\n" + bad + " * (int dim)\n" + bad + " * (tuple of ints dim)\n" + bad)
    assert E.zeros(3, 1).squeeze_((1,)).shape == (3,)


@pytest.mark.parametrize("op", [lambda t: t.t_(), lambda t: t.transpose_(0, 1), lambda t: t.swapdims_(0, 1),
                                lambda t: t.unsqueeze_(0), lambda t: t.squeeze_(), lambda t: t.as_strided_((2,), (1,))])
def test_in_place_view_ops_bump_the_version_of_every_view(op):
    x = E.zeros(2, 3)
    row = x[0]
    op(x)
    assert x._version == 1 and row._version == 1  # PyTorch 2.13's counts


def test_apply_and_map_run_python_functions_elementwise():
    x = E.arange(4.0)
    v = x.untyped_storage().version
    assert x.apply_(lambda t: t * t + 1) is x and x.tolist() == [1.0, 2.0, 5.0, 10.0]
    assert x.untyped_storage().version > v
    assert E.arange(4.0).map_(E.tensor([1.0, 2.0, 3.0, 4.0]), lambda a, b: a * b).tolist() == [0.0, 2.0, 6.0, 12.0]
    assert E.arange(3.0).map2_(E.tensor([1.0, 2.0, 3.0]), E.tensor(2.0), lambda a, b, c: a + b * c).tolist() == \
        [2.0, 5.0, 8.0]
    assert E.tensor([1, 2], dtype=E.int32).apply_(lambda t: t * 3).tolist() == [3, 6]


def test_fill_diagonal_matches_numpy_with_and_without_wrap():
    for shape, wrap in [((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), False), ((4, 4, 4), False)]:
        a = np.zeros(shape)
        np.fill_diagonal(a, 5.0, wrap=wrap)
        assert E.zeros(*shape).fill_diagonal_(5.0, wrap=wrap).tolist() == a.tolist()
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        E.zeros(2, 2, 3).fill_diagonal_(1)


def test_fill_diagonal_takes_a_bool_wrap_only():
    assert E.zeros(3, 2).fill_diagonal_(1.0, True).tolist() == [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    with pytest.raises(TypeError, match=r"^fill_diagonal_\(\): argument 'wrap' must be bool, not int$"):
        E.eye(3).fill_diagonal_(1.0, wrap=2)
    with pytest.raises(TypeError, match=r"argument 'wrap' \(position 2\) must be bool, not NoneType$"):
        E.eye(3).fill_diagonal_(1.0, None)


def test_new_new_empty_strided_and_sum_to_size():
    x = E.zeros(2, dtype=E.int32)
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype is E.int32
    assert x.new([1, 2]).tolist() == [1, 2] and x.new().shape == (0,)
    assert E.zeros(1, dtype=E.float64).new_empty_strided((2, 3), (1, 2)).stride() == (1, 2)
    assert E.ones(2, 3, 4).sum_to_size(3, 1).tolist() == [[8.0]] * 3
    assert E.ones(2, 3).sum_to_size((1, 3)).tolist() == [[2.0, 2.0, 2.0]]
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        E.ones(2, 3).sum_to_size(2)


def test_namespace_helpers():
    assert E.broadcast_shapes((2, 1), (3,)) == (2, 3) and E.broadcast_shapes(2, (3, 1)) == (3, 2)
    with pytest.raises(RuntimeError):
        E.broadcast_shapes((2,), (3,))
    assert E.can_cast(E.float64, E.float32) and not E.can_cast(E.float32, E.int32)
    assert not E.can_cast(E.int32, E.bool)
    assert not E.is_complex(E.zeros(1)) and not E.is_signed(E.zeros(1, dtype=E.uint8))
    assert E.is_same_size(E.zeros(2), E.zeros(2)) and E.zeros(2).get_device() == -1
    assert E.zeros(1).layout is E.strided and E.legacy_contiguous_format is E.contiguous_format
    assert E.fill(E.zeros(2), 3).tolist() == [3.0, 3.0]
    assert E.fill(E.tensor([float("inf"), float("nan")]), E.tensor(2.0)).tolist() == [2.0, 2.0]
    assert [t.tolist() for t in E.unravel_index(E.tensor([4, 1, -1]), (2, 3))] == [[1, 0, 1], [1, 1, 2]]
    # PyTorch 2.13 checks no range: indices past the end wrap by floor division and remainder
    got = E.unravel_index(E.tensor([9, 100, -7], dtype=E.int32), (2, 3))
    assert [t.tolist() for t in got] == [[1, 1, 1], [0, 1, 2]] and got[0].dtype is E.int64
    assert E.unravel_index(E.tensor([1]), ()) == ()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        E.unravel_index(E.tensor([1]), (2, 0))
    assert [t.tolist() for t in E.unravel_index(E.tensor([], dtype=E.int64), (2, 0))] == [[], []]
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        assert E.range(1, 4).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert [p.shape for p in E.zeros(5, 2).split_with_sizes([2, 3])] == [(2, 2), (3, 2)]
    assert E.empty_permuted((2, 3, 4), (0, 2, 1)).stride() == (12, 1, 3)
    assert E.frombuffer(bytearray(b"\x01\x00\x02\x00"), dtype=E.int16).tolist() == [1, 2]
    assert E.is_storage(E.zeros(1).untyped_storage()) and not E.is_storage(1)


def test_frombuffer_refuses_a_length_that_is_no_multiple_of_the_element_size():
    with pytest.raises(ValueError, match=r"^buffer length \(7 bytes\) after offset \(0 bytes\) must be a multiple "
                                         r"of element size \(4\)$"):
        E.frombuffer(bytearray(range(7)), dtype=E.int32)
    with pytest.raises(ValueError, match=r"buffer length \(5 bytes\) after offset \(2 bytes\)"):
        E.frombuffer(bytearray(range(7)), dtype=E.int16, offset=2)
    assert E.frombuffer(bytearray(range(7)), dtype=E.int16, count=2, offset=1).tolist() == [513, 1027]


def test_frombuffer_checks_in_pytorchs_order_with_its_messages():
    cases = [((bytearray(8),), {"count": 0}, "both buffer length (8) and count (0) must not be 0"),
             ((bytearray(),), {}, "both buffer length (0) and count (-1) must not be 0"),
             ((bytearray(4),), {"offset": 4}, "offset (4 bytes) must be non-negative and no greater than buffer "
                                              "length (4 bytes) minus 1"),
             (([1, 2],), {}, "object does not implement Python buffer protocol.")]
    for args, kwargs, message in cases:
        with pytest.raises(ValueError) as info:
            E.frombuffer(*args, dtype=E.uint8, **kwargs)
        assert str(info.value) == message


def test_frombuffer_warns_of_a_read_only_buffer_before_checking_its_length(monkeypatch):
    # PyTorch 2.13's tensor_new.cpp warns (once, with its source line) before refusing an empty buffer
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with pytest.warns(UserWarning, match=r"^The given buffer is not writable, .* the rest of this program\. "
                                         r"\(Triggered internally at "
                                         r"/__w/pytorch/pytorch/torch/csrc/utils/tensor_new\.cpp:1556\.\)$"):
        with pytest.raises(ValueError, match=r"^both buffer length \(0\) and count \(-1\) must not be 0$"):
            E.frombuffer(b"", dtype=E.uint8)


def test_legacy_constructors_of_a_tensor_return_an_alias_not_the_tensor():
    # PyTorch's torch.Tensor(src), FloatTensor(src) and src.new(src) are new views of src (its storage, `_base`):
    # resizing or rebinding the alias leaves src alone
    src = E.tensor([1.0, 2.0])
    for r in (E.Tensor(src), E.FloatTensor(src), src.new(src)):
        assert r is not src and r._storage is src._storage and r.data_ptr() == src.data_ptr()
        r.resize_(3)
        assert src.shape == (2,)
