"""The exceptions PyTorch programs print as `type(e).__name__`, and view/reshape's shape messages, read as
PyTorch 2.13's (the names and messages were taken from it)."""

import pickle

import pytest

import ember.core as E
from ember.core.ops.numeric import DtypeNotImplemented
from ember.core.ops.scatter_cpu import IndexOutOfRangeError


@pytest.mark.parametrize("fn,name,kinds", [
    (lambda: E.ones(3, 3).gather(1, E.tensor([[3]])), "RuntimeError", (RuntimeError, IndexError)),
    (lambda: E.ones(3, 3).index_add(0, E.tensor([5]), E.ones(1, 3)), "RuntimeError", (RuntimeError,)),
    (lambda: E.ones(3, 3).index_select(0, E.tensor([5])), "IndexError", (IndexError, RuntimeError)),
    (lambda: E.ones(3, 3).index_copy(0, E.tensor([5]), E.ones(1, 3)), "IndexError", (IndexError,)),
    (lambda: E.softmax(E.tensor([1, 2]), 0), "NotImplementedError", (NotImplementedError, TypeError)),
])
def test_exception_type_names_are_pytorchs(fn, name, kinds):
    with pytest.raises(kinds) as info:
        fn()
    assert type(info.value).__name__ == name


def test_renamed_exceptions_still_pickle():
    assert type(pickle.loads(pickle.dumps(DtypeNotImplemented("x")))) is DtypeNotImplemented
    assert type(pickle.loads(pickle.dumps(IndexOutOfRangeError("y")))) is IndexOutOfRangeError


@pytest.mark.parametrize("fn,msg", [
    (lambda: E.ones(6).view(-1, -1), "only one dimension can be inferred"),
    (lambda: E.ones(6).reshape(-1, -1), "only one dimension can be inferred"),
    (lambda: E.ones(6).view(-2, 3), "invalid shape dimension -2 at index 0 of shape [-2, 3]"),
    (lambda: E.ones(6).reshape(3, -5), "invalid shape dimension -5 at index 1 of shape [3, -5]"),
])
def test_view_shape_messages_are_pytorchs(fn, msg):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert str(info.value) == msg


@pytest.mark.parametrize("fn,msg", [
    (lambda: E.topk(E.ones(3), 4), "selected index k out of range"),
    (lambda: E.multinomial(E.ones(1, 2, 3), 1), "prob_dist must be 1 or 2 dim"),
    (lambda: E.multinomial(E.tensor([1, 1]), 1),
     "multinomial only supports floating-point dtypes for input, got: Long"),
])
def test_sampling_and_topk_messages_are_pytorchs(fn, msg):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert str(info.value) == msg


@pytest.mark.parametrize("a,b,msg", [
    ((2, 3, 4), (3, 4, 5), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ((6, 2, 3, 4), (5, 4, 5),
     "The size of tensor a (2) must match the size of tensor b (5) at non-singleton dimension 1"),
])
def test_matmul_batch_mismatch_message_is_pytorchs(a, b, msg):
    with pytest.raises(RuntimeError) as info:
        E.ones(*a) @ E.ones(*b)
    assert str(info.value) == msg


@pytest.mark.parametrize("dst,src,msg", [
    ((3, 2), (2, 3), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"),
    ((2, 3), (4,), "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    ((2, 3), (1, 1, 3), "output with shape [2, 3] doesn't match the broadcast shape [1, 2, 3]"),
])
def test_copy_shape_errors_are_pytorchs(dst, src, msg):
    with pytest.raises(RuntimeError) as info:
        E.ones(*dst).copy_(E.ones(*src))
    assert str(info.value) == msg


@pytest.mark.parametrize("dst,key,src,msg", [
    ((2, 3), slice(None), (4,), "The expanded size of the tensor (3) must match the existing size (4) at "
                                "non-singleton dimension 1.  Target sizes: [2, 3].  Tensor sizes: [4]"),
    ((2, 3), slice(None), (2, 2, 3), "expand(torch.FloatTensor{[2, 2, 3]}, size=[2, 3]): the number of sizes "
                                     "provided (2) must be greater or equal to the number of dimensions in the "
                                     "tensor (3)"),
])
def test_setitem_shape_errors_are_expands_as_pytorchs(dst, key, src, msg):
    x = E.ones(*dst)
    with pytest.raises(RuntimeError) as info:
        x[key] = E.ones(*src)
    assert str(info.value) == msg


def test_setitem_drops_leading_size_one_dims_of_the_source():
    x = E.zeros(2, 3)
    x[:] = E.arange(3.0).view(1, 1, 3)
    assert x.tolist() == [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
