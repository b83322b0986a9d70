"""torch.nested's tensors (ember.core.nested): geometry, reprs and PyTorch's refusals, and the ops on them against
the same op on each component in float64 numpy (NOTE [ Nested tensors ])."""

import numpy as np
import pytest

import ember.core as ec
from ember.core.nested import (
    NestedTensor, as_nested_tensor, jagged, masked_select, narrow, nested_tensor, nested_tensor_from_jagged,
    to_padded_tensor,
)

RNG = np.random.default_rng(0)
A, B = RNG.standard_normal((2, 4)), RNG.standard_normal((3, 4))


def _jag(*arrays):
    return nested_tensor([ec.tensor(x) for x in arrays], layout=jagged)


def _strided(*arrays):
    return nested_tensor([ec.tensor(x) for x in arrays])


def _close(nt, refs):
    parts = nt.unbind()
    assert len(parts) == len(refs)
    for p, r in zip(parts, refs):
        np.testing.assert_allclose(p.numpy(), r, rtol=1e-12, atol=1e-12)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_jagged_geometry_and_repr():
    nt = _jag(A, B)
    assert isinstance(nt, ec.Tensor) and nt.is_nested and nt.layout is jagged and nt.dim() == 3
    size = nt.size()
    assert repr(size).endswith(f"Size([2, {size[1]!r}, 4])") and repr(size[1]).startswith("j")
    assert nt.size(0) == 2 and nt.size(-1) == 4 and len(nt) == 2 and nt.numel() == 20
    assert nt.offsets().tolist() == [0, 2, 5] and nt.lengths() is None and tuple(nt.values().shape) == (5, 4)
    assert repr(nt) == f"NestedTensor(size=(2, {size[1]!r}, 4), offsets=tensor([0, 2, 5]), contiguous=True)"
    assert nested_tensor([ec.tensor(A)], layout=jagged).size(1) is not size[1]  # a new offsets, a new j


def test_strided_geometry_refuses_sizes():
    nt = _strided(A, B)
    assert nt.layout is ec.strided and nt.size(0) == 2 and nt.size(2) == 4 and nt.numel() == 20
    with pytest.raises(RuntimeError, match="^Internal error: NestedTensorImpl doesn't support sizes. Please file"):
        nt.size()
    with pytest.raises(RuntimeError, match="^Given dimension 1 is irregular and does not have a size.$"):
        nt.size(1)
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'offsets'"):
        nt.offsets()
    text = repr(_strided(np.arange(2.0), np.arange(3.0)))
    ref = "nested_tensor([\n  tensor([0., 1.], dtype=torch.float64),\n  tensor([0., 1., 2.], dtype=torch.float64)\n])"
    assert text == ref.replace("torch.", ec.dtypes._repr_namespace + ".")
    with pytest.raises(RuntimeError, match="^All Tensors given to nested_tensor must have the same dimension. Found "
                                           "dimension 2 for Tensor at index 1 and dimension 1 for Tensor at index 0.$"):
        nested_tensor([ec.ones(2), ec.ones(2, 3)])


def test_to_padded_tensor_pads_each_dim():
    pad = to_padded_tensor(_strided(A, B[:, :3]), -1.0, output_size=(3, 4, 5)).numpy()
    ref = np.full((3, 4, 5), -1.0)
    ref[0, :2, :4], ref[1, :3, :3] = A, B[:, :3]
    np.testing.assert_array_equal(pad, ref)
    np.testing.assert_array_equal(_jag(A, B).to_padded_tensor(0.0).numpy()[0, 2], np.zeros(4))
    with pytest.raises(RuntimeError, match="Truncation is not supported"):
        to_padded_tensor(_strided(A, B), 0.0, output_size=(2, 2, 4))


def test_from_jagged_narrow_and_masked_select():
    v = ec.arange(10.0).reshape(5, 2)
    nt = nested_tensor_from_jagged(v, lengths=ec.tensor([2, 3]))
    assert nt.offsets().tolist() == [0, 2, 5] and nt._values is v
    assert nt.values() is not v and nt.values()._storage is v._storage
    x = ec.arange(24.0).reshape(2, 3, 4)
    n = narrow(x, 1, ec.tensor([0, 1]), ec.tensor([2, 1]), layout=jagged)
    assert n.offsets().tolist() == [0, 4, 5] and n.lengths().tolist() == [2, 1] and not n.is_contiguous()
    assert [t.tolist() for t in n.unbind()] == [x[0, :2].tolist(), x[1, 1:2].tolist()]
    with pytest.raises(RuntimeError, match="^to_padded_tensor\\(\\): not supported for nested tensors with holes$"):
        n.to_padded_tensor(0.0)
    assert masked_select(x, (x % 3) == 0).offsets().tolist() == [0, 2, 3, 4, 6, 7, 8]
    with pytest.raises(RuntimeError, match="^masked_select: expected BoolTensor for mask$"):
        masked_select(x, x)
    assert [t.tolist() for t in as_nested_tensor(x, layout=jagged).unbind()] == [x[0].tolist(), x[1].tolist()]


@pytest.mark.parametrize("make", [_jag, _strided])
def test_pointwise_ops_match_each_component(make):
    nt = make(A, B)
    _close((nt * 2 + nt).relu(), [np.maximum(3 * A, 0), np.maximum(3 * B, 0)])
    _close(ec.tanh(nt) / 4, [np.tanh(A) / 4, np.tanh(B) / 4])
    _close(nt.softmax(-1), [_softmax(A, 1), _softmax(B, 1)])
    _close(nt.transpose(1, 2), [A.T, B.T])
    assert all(isinstance(p, NestedTensor) for p in nt.chunk(2, -1))
    _close(nt.chunk(2, -1)[1], [A[:, 2:], B[:, 2:]])


def test_jagged_ops_on_regular_and_ragged_dims():
    nt = _jag(A, B)
    w = RNG.standard_normal((4, 3))
    _close(nt @ ec.tensor(w), [A @ w, B @ w])
    _close(nt + ec.tensor(np.arange(4.0)), [A + np.arange(4.0), B + np.arange(4.0)])
    rows = ec.tensor(np.array([1.0, 2.0]).reshape(2, 1, 1))
    _close(nt * rows, [A, 2 * B])
    _close(ec.softmax(nt, 1), [_softmax(A, 0), _softmax(B, 0)])
    np.testing.assert_allclose(nt.sum(1).numpy(), np.stack([A.sum(0), B.sum(0)]), rtol=1e-12)
    np.testing.assert_allclose(nt.mean(1).numpy(), np.stack([A.mean(0), B.mean(0)]), rtol=1e-12)
    _close(nt.sum(-1, keepdim=True), [A.sum(1, keepdims=True), B.sum(1, keepdims=True)])
    np.testing.assert_allclose(nt.sum().item(), A.sum() + B.sum())
    _close(nt.unflatten(-1, (2, 2)).transpose(1, 2).transpose(1, 2).flatten(-2), [A, B])
    _close(ec.cat([nt, nt * 2], -1), [np.concatenate([A, 2 * A], 1), np.concatenate([B, 2 * B], 1)])
    assert nt.to(ec.float32).dtype == ec.float32 and nt.to(ec.float32).offsets() is nt.offsets()


def test_jagged_refusals_match_pytorch():
    nt, other = _jag(A, B), _jag(A, B)
    j1, j2 = nt.size(1), other.size(1)
    with pytest.raises(RuntimeError, match=f"^cannot call binary pointwise function add.Tensor with inputs of shapes "
                                           f"\\(2, {j1}, 4\\) and \\(2, {j2}, 4\\)$"):
        nt + other
    with pytest.raises(RuntimeError, match="^sum\\(\\): reducing along the batch dimension but not the ragged"):
        nt.sum(0)
    with pytest.raises(RuntimeError, match="^softmax\\(\\): not supported when reducing across the batch dimension"):
        nt.softmax(0)
    with pytest.raises(ValueError, match="^Transpose is not supported on the batch dimension for jagged NT$"):
        nt.transpose(0, 1)
    with pytest.raises(RuntimeError, match="^chunk\\(\\): not supported for NestedTensor on ragged dim$"):
        nt.chunk(2, 1)
    with pytest.raises(RuntimeError, match="^unbind\\(\\): only supported for NestedTensor on dim=0$"):
        nt.unbind(1)
    with pytest.raises(RuntimeError, match="^matmul\\(\\): not supported between inputs of shapes"):
        ec.matmul(nt, nt.transpose(1, 2))
    with pytest.raises(NotImplementedError, match="^aten.var.correction$"):
        nt.var(-1)


def test_strided_refusals_match_pytorch():
    nt = _strided(A, B)
    with pytest.raises(RuntimeError, match="^Expected both self and other to be nested, but got a nested self and "):
        nt + ec.ones(4)
    with pytest.raises(RuntimeError, match="^add does not support broadcasting when given a NestedTensor$"):
        nt + _strided(A, B[:2])
    with pytest.raises(RuntimeError, match="^NestedTensor always requires keepdim=True for now.$"):
        nt.sum(-1)
    with pytest.raises(RuntimeError, match="^Nested tensor dimension 0 cannot be transposed$"):
        nt.transpose(0, 1)
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::exp' with arguments from the "
                                                  "'NestedTensorCPU' backend"):
        nt.exp()
    _close(ec.bmm(nt, nt.transpose(1, 2)), [A @ A.T, B @ B.T])
    _close(nt.sum(-1, keepdim=True), [A.sum(1, keepdims=True), B.sum(1, keepdims=True)])


def test_padding_width_follows_known_max_length():
    v = ec.arange(20.0).reshape(10, 2)
    off = ec.tensor([0, 3, 8, 10])
    unknown = nested_tensor_from_jagged(v, off)
    assert tuple(unknown.to_padded_tensor(0.0).shape) == (3, 10, 2)  # PyTorch pads to the whole buffer
    assert tuple((unknown * 2).to_padded_tensor(0.0).shape) == (3, 10, 2)
    assert tuple(ec.softmax(unknown, 1).to_padded_tensor(0.0).shape) == (3, 5, 2)  # computed, then known
    known = nested_tensor_from_jagged(v, off, max_seqlen=5)
    assert tuple((known + 1).transpose(1, 2).transpose(1, 2).to_padded_tensor(0.0).shape) == (3, 5, 2)
    assert tuple(nested_tensor_from_jagged(v, off, max_seqlen=2).to_padded_tensor(0.0).shape) == (3, 2, 2)


def test_iteration_copies_and_metadata():
    import copy

    nt = _jag(A, B)
    assert [tuple(t.shape) for t in nt] == [(2, 4), (3, 4)]
    dup = copy.deepcopy(nt)
    assert dup.offsets() is not nt.offsets() and dup.offsets().tolist() == [0, 2, 5]
    _close(dup, [A, B])
    assert nt.is_floating_point() and nt.element_size() == 8 and nt.type().endswith("DoubleTensor")
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(nt)
    assert as_nested_tensor(nt, layout=jagged) is nt
    with pytest.raises(RuntimeError, match="^as_nested_tensor\\(\\): Converting between nested tensor layouts is not "
                                           "supported$"):
        as_nested_tensor(nt)


def test_strided_comparisons_refuse_as_pytorch():
    """Strided nested tensors have eq, gt and ge against a number only; eq names the nested operand."""
    s = _strided(A, B)
    assert [c.tolist() for c in (s > 0).unbind()] == [(A > 0).tolist(), (B > 0).tolist()]
    assert [c.tolist() for c in (s == 0).unbind()] == [(A == 0).tolist(), (B == 0).tolist()]
    with pytest.raises(RuntimeError, match="^eq does not support nested tensor as other value.$"):
        s == s
    for call, aten in ((lambda: s != 0, "ne.Scalar"), (lambda: s < s, "lt.Tensor"), (lambda: s >= s, "ge.Tensor"),
                       (lambda: ec.le(s, 1.0), "le.Scalar"), (lambda: s.eq_(0), "eq_.Scalar")):
        with pytest.raises(NotImplementedError, match=f"^Could not run 'aten::{aten}' with arguments from the "
                                                      "'NestedTensorCPU' backend"):
            call()
    j = _jag(A, B)
    assert [c.tolist() for c in (j == j).unbind()][0] == [[True] * 4] * 2


def test_jagged_from_a_list_is_ragged_in_the_one_dim_that_differs():
    """PyTorch picks the ragged dim: components (2, 3) and (2, 4) make a (2, 2, j1) tensor over a (2, 7) buffer."""
    a, b = ec.arange(6.0).reshape(2, 3), ec.arange(8.0).reshape(2, 4)
    nt = nested_tensor([a, b], layout=jagged)
    assert nt._ragged_idx == 2 and tuple(nt.values().shape) == (2, 7) and nt.offsets().tolist() == [0, 3, 7]
    assert [c.tolist() for c in nt.unbind()] == [a.tolist(), b.tolist()]
    assert str(nt.size()) == f"ember.Size([2, 2, {nt.size(2)}])"
    with pytest.raises(RuntimeError, match="^Cannot represent given tensor list as a nested tensor with the jagged "
                                           "layout. Note that the jagged layout only allows for a single ragged"):
        nested_tensor([ec.ones(2, 3), ec.ones(3, 4)], layout=jagged)


def test_a_strided_nested_tensor_warns_pytorchs_prototype_warning_once():
    import warnings

    from ember.core.ops import _util

    _util._warned_once.discard(_util.NESTED_PROTOTYPE)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ec.nested.nested_tensor([ec.ones(2), ec.ones(3)], layout=ec.jagged)
        assert not seen  # the jagged layout does not warn
        ec.nested.nested_tensor([ec.ones(2), ec.ones(3)])
        ec.nested.nested_tensor([ec.ones(2), ec.ones(3)])
    assert [str(w.message) for w in seen] == [_util.NESTED_PROTOTYPE]
    assert str(seen[0].message).startswith("The PyTorch API of nested tensors is in prototype stage")


def test_equal_of_nested_tensors_fails_as_pytorchs():
    """PyTorch 2.13: no `equal` kernel for the strided layout (the first sentence of its dispatcher error); the
    jagged layout's pointwise path ends in its own AttributeError."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nt = ec.nested.nested_tensor([ec.ones(2), ec.ones(3)])
    with pytest.raises(NotImplementedError, match=r"^Could not run 'aten::equal' with arguments from the "
                                                  r"'NestedTensorCPU' backend\."):
        ec.equal(nt, nt)
    nj = ec.nested.nested_tensor([ec.ones(2), ec.ones(3)], layout=ec.jagged)
    with pytest.raises(AttributeError, match=r"^'bool' object has no attribute 'device'$"):
        ec.equal(nj, nj)
    assert ec.equal(ec.ones(2), ec.ones(2))
