"""Checks that live in an op's meta step (NOTE [ The meta step ] in ember.core.dispatch) run once
above every device: CPU and CUDA (simulator) raise the same type and message."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close

needs_cuda = pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")

ERRORS = [
    ("neg of bool", lambda d: -E.tensor([True, False], device=d), RuntimeError),
    ("where of an int condition", lambda d: E.where(E.tensor([1, 0], device=d), E.ones(2, device=d),
                                                    E.zeros(2, device=d)), RuntimeError),
    ("clamp without bounds", lambda d: E.ones(2, device=d).clamp(), RuntimeError),
    ("median of an empty dim", lambda d: E.ones(2, 0, device=d).median(1), IndexError),
    ("nanmedian of an empty dim", lambda d: E.ones(2, 0, device=d).nanmedian(1), IndexError),
    ("mode of an empty dim", lambda d: E.ones(2, 0, device=d).mode(1), IndexError),
    ("kthvalue k too large", lambda d: E.ones(2, 3, device=d).kthvalue(4, 1), RuntimeError),
    ("histc of ints", lambda d: E.histc(E.tensor([1, 2], device=d)), NotImplementedError),
    ("histc bins", lambda d: E.histc(E.ones(3, device=d), bins=0), RuntimeError),
    ("histc min > max", lambda d: E.histc(E.ones(3, device=d), 3, 2, 1), RuntimeError),
    ("histc infinite data range", lambda d: E.histc(E.tensor([0.0, float("inf")], device=d), 3), RuntimeError),
    ("bincount minlength", lambda d: E.bincount(E.tensor([1, 2], device=d), minlength=-1), RuntimeError),
    ("bincount weights", lambda d: E.bincount(E.tensor([1, 2], device=d), E.ones(3, device=d)), RuntimeError),
    ("bincount negative", lambda d: E.bincount(E.tensor([1, -2], device=d)), RuntimeError),
    ("int to a negative int power", lambda d: E.tensor([2, 3], device=d) ** -1, RuntimeError),
    ("int to a negative int power, the primitive", lambda d: get_op("pow")(E.tensor([2, 3], device=d), -1),
     RuntimeError),
    ("isclose of two dtypes", lambda d: E.isclose(E.ones(2, device=d), E.ones(2, dtype=E.float64, device=d)),
     RuntimeError),
    ("isclose of unbroadcastable shapes", lambda d: E.isclose(E.ones(2, device=d), E.ones(3, device=d)),
     RuntimeError),
    ("trace of a vector", lambda d: get_op("trace")(E.ones(3, device=d)), RuntimeError),
    ("lstm_cell gates", lambda d: get_op("lstm_cell")(E.ones(2, 8, device=d), E.ones(2, 8, device=d),
                                                      E.ones(2, 3, device=d)), RuntimeError),
    ("gru_cell gates", lambda d: get_op("gru_cell")(E.ones(2, 6, device=d), E.ones(2, 9, device=d),
                                                    E.ones(2, 3, device=d)), RuntimeError),
    ("var of ints", lambda d: get_op("var")(E.tensor([1, 2], device=d), (0,)), RuntimeError),
    ("vector_norm of ints", lambda d: E.linalg.vector_norm(E.tensor([1, 2], device=d)), RuntimeError),
    ("inf norm of an empty tensor", lambda d: E.linalg.vector_norm(E.ones(0, device=d), float("inf")),
     RuntimeError),
    ("scatter with an unknown reduce", lambda d: E.zeros(3, device=d).scatter(0, E.tensor([0], device=d),
                                                                             E.ones(1, device=d), reduce="max"),
     RuntimeError),
    ("scatter_reduce with an unknown reduce",
     lambda d: E.zeros(3, device=d).scatter_reduce(0, E.tensor([0], device=d), E.ones(1, device=d), "foo"),
     RuntimeError),
    ("an activation of ints", lambda d: get_op("leaky_relu")(E.tensor([1, 2], device=d), 0.1), TypeError),
    ("einsum of two dtypes", lambda d: E.einsum("i,i->", E.ones(2, device=d), E.ones(2, dtype=E.float64, device=d)),
     RuntimeError),
    ("bernoulli_ with a wider p", lambda d: E.zeros(2, device=d).bernoulli_(E.full((3, 2), 0.5, device=d)),
     RuntimeError),
    ("copy_ from a wider source", lambda d: E.zeros(2, device=d).copy_(E.ones(3, 2, device=d)), RuntimeError),
    ("copy_ from a wider CPU source", lambda d: E.zeros(2, device=d).copy_(E.ones(3, 2)), RuntimeError),
    ("copy_ of a CUDA source into a CPU tensor", lambda d: E.zeros(2).copy_(E.ones(3, device=d)), RuntimeError),
    ("searchsorted sorter out of range", lambda d: E.searchsorted(E.tensor([1.0, 2.0], device=d),
                                                                  E.tensor([1.5], device=d),
                                                                  sorter=E.tensor([0, 2], device=d)), RuntimeError),
]


def _error(fn, device):
    with pytest.raises(Exception) as err:
        fn(device)
    return err.value


@pytest.mark.cuda
@needs_cuda
@pytest.mark.parametrize("fn, exc", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_a_moved_check_raises_the_same_on_cpu_and_cuda(fn, exc):
    on_cpu, on_cuda = _error(fn, "cpu"), _error(fn, "cuda")
    assert isinstance(on_cpu, exc)
    # a message describing a tensor names its device: the rest must be the same words
    assert type(on_cuda) is type(on_cpu) and str(on_cuda).replace("device=cuda:0", "device=cpu") == str(on_cpu)


@pytest.mark.parametrize("fn, exc", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_a_moved_check_raises_pytorchs_type_on_the_cpu(fn, exc):
    with pytest.raises(exc):
        fn("cpu")


def test_a_complex_tensor_to_a_negative_int_power_is_computed():
    assert_close(E.pow(E.tensor([1 + 1j, 2j]), -1), E.tensor([0.5 - 0.5j, -0.5j]))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=[pytest.mark.cuda, needs_cuda])])
def test_where_reads_a_uint8_condition_with_pytorchs_warning(device):
    cond = E.tensor([1, 0, 7], dtype=E.uint8, device=device)
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor"):
        r = E.where(cond, E.ones(3, device=device), E.zeros(3, device=device))
    assert r.tolist() == [1.0, 0.0, 1.0]
