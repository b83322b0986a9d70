"""The exceptions PyTorch programs print as `type(e).__name__`, and view/reshape's shape messages, read as
PyTorch 2.13's (the names and messages were taken from it)."""

import pickle
import traceback

import pytest

import ember.core as E
from ember.core.ops.numeric import DtypeNotImplemented
from ember.core.ops.scatter_cpu import IndexOutOfRangeError


@pytest.mark.parametrize("fn,name,kinds", [
    (lambda: E.ones(3, 3).gather(1, E.tensor([[3]])), "RuntimeError", (RuntimeError, IndexError)),
    (lambda: E.ones(3, 3).index_add(0, E.tensor([5]), E.ones(1, 3)), "RuntimeError", (RuntimeError,)),
    (lambda: E.ones(3).index_add(0, E.tensor([5]), E.ones(1)), "IndexError", (IndexError,)),
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
    (lambda: E.zeros(2, 3).unflatten(1, (-1, -1)), "unflatten got an unexpected error:\nonly one dimension can be "
                                                  "inferred"),
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


def test_expand_to_fewer_dims_names_the_tensor_as_aten():
    with pytest.raises(RuntimeError, match=r"^expand\(torch\.LongTensor\{\[2, 3\]\}, size=\[3\]\): the number of "
                                           r"sizes provided \(1\) must be greater or equal to the number of "
                                           r"dimensions in the tensor \(2\)$"):
        E.ones(2, 3, dtype=E.int64).expand(3)
    with pytest.raises(RuntimeError, match=r"^expand\(CPUBoolType\{\[2, 3, 1\]\}, size=\[1, 2\]\)"):
        E.ones(2, 3, 1, dtype=E.bool).expand(1, 2)


def test_setitem_drops_leading_size_one_dims_of_the_source():
    x = E.zeros(2, 3)
    x[:] = E.arange(3.0).view(1, 1, 3)
    assert x.tolist() == [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]


@pytest.mark.parametrize("fn,name,kinds", [
    (lambda: E.ones(2, 3) + E.ones(4), "RuntimeError", (RuntimeError, ValueError)),
    (lambda: E.ones(2, 3).mul_(E.ones(3, 2)), "RuntimeError", (RuntimeError, ValueError)),
    (lambda: -E.ones(2, dtype=E.bool), "RuntimeError", (RuntimeError, TypeError)),
    (lambda: E.tensor([1]) // E.tensor([0]), "RuntimeError", (RuntimeError, ZeroDivisionError)),
    (lambda: E.ones(2).bitwise_and(E.ones(2)), "NotImplementedError", (NotImplementedError, TypeError)),
    (lambda: E.conv2d(E.zeros(1, 3, 8, 8, dtype=E.float64), E.zeros(8, 3, 3, 3)), "RuntimeError",
     (RuntimeError, TypeError)),
])
def test_ember_subclasses_print_pytorchs_names(fn, name, kinds):
    with pytest.raises(kinds) as info:
        fn()
    e = info.value
    assert type(e).__name__ == type(e).__qualname__ == name and repr(e).startswith(f"{name}(")
    assert "".join(traceback.format_exception_only(e)).startswith(f"{name}: ")
    assert type(pickle.loads(pickle.dumps(e))) is type(e) and pickle.loads(pickle.dumps(e)).args == e.args


def test_broadcast_messages_are_pytorchs():
    with pytest.raises(RuntimeError) as info:
        E.ones(2, 3) * E.ones(3, 2)
    assert str(info.value) == ("The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                               "dimension 1")
    with pytest.raises(RuntimeError) as info:
        E.broadcast_shapes((2, 3), (4,))
    assert str(info.value) == ("Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index 1 "
                               "had (4,); but expected shape should be broadcastable to [2, 3]")


def test_error_names_and_messages_match_pytorch():
    torch = pytest.importorskip("torch")
    cases = [lambda m: m.ones(2, 3) + m.ones(4), lambda m: m.ones(2, 3).add_(m.ones(4)),
             lambda m: m.isclose(m.ones(2, 3), m.ones(4)), lambda m: m.broadcast_shapes((5, 1, 3), (2, 3), (4, 1)),
             lambda m: -m.ones(2, dtype=m.bool), lambda m: m.tensor([3]) % m.tensor([0]),
             lambda m: m.ones(2).bitwise_or(m.ones(2))]
    for case in cases:
        got, want = _raised(case, E), _raised(case, torch)
        assert (type(got).__name__, str(got)) == (type(want).__name__, str(want))


def _raised(case, module):
    try:
        case(module)
    except Exception as e:  # noqa: BLE001 - the test compares whatever each library raises
        return e
    raise AssertionError("no error")


def test_broadcast_tensors_of_mismatched_shapes_says_pytorchs_words():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                                           r"non-singleton dimension 1$"):
        E.broadcast_tensors(E.ones(2, 3), E.ones(3, 2))


@pytest.mark.parametrize("size,msg", [
    ((-1, 3, 2), "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    ((-2, -1, 3, 1), "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 1"),
    ((2, -2, 3, 1), "numel: integer multiplication overflow"),
    ((3, -2), "numel: integer multiplication overflow"),
])
def test_expand_refuses_negative_sizes_in_pytorchs_words(size, msg):
    """-1 keeps an existing size only; in a new leading dim it is refused, a more negative size fails the numel check
    (ember expanded (3, 1) to a shape with -2 in it)."""
    with pytest.raises(RuntimeError) as info:
        E.zeros(3, 1).expand(*size)
    assert str(info.value) == msg
