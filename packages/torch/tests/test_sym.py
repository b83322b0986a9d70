"""torch.sym_* on Python and numpy numbers, and the build facts (values and errors are PyTorch 2.13's)."""

import numpy as np
import pytest

import ember.torch as torch

CASES = [
    ("sym_int", (3.7,), 3), ("sym_int", (-3.7,), -3), ("sym_int", (True,), 1), ("sym_float", (3,), 3.0),
    ("sym_max", (2, 3.0), 3.0), ("sym_min", (2, 3.0), 2.0), ("sym_max", (2, 3), 3), ("sym_max", (True, 0), True),
    ("sym_max", (np.int64(2), 3), 3), ("sym_min", (np.float32(2), 3), 2.0), ("sym_not", (True,), False),
    ("sym_not", (0,), True), ("sym_ite", (True, 1, 2), 1), ("sym_ite", (False, "a", "b"), "b"),
    ("sym_sqrt", (4,), 2.0), ("sym_sum", ([1, 2, 3.0],), 6.0), ("sym_sum", (1, 2, 3), 6), ("sym_sum", ([],), 0),
]


@pytest.mark.parametrize("name,args,expected", CASES)
def test_sym_helpers_on_numbers(name, args, expected):
    out = getattr(torch, name)(*args)
    assert out == expected and type(out) is type(expected)


def test_sym_helpers_errors():
    with pytest.raises(AssertionError, match="got <class 'str'>"):
        torch.sym_max("a", 1)
    with pytest.raises(AssertionError, match="got <class 'ember.core.tensor.Tensor'>"):
        torch.sym_min(torch.tensor(1.0), 2)
    with pytest.raises(AssertionError, match="expected SymBool or bool, got <class 'int'>"):
        torch.sym_ite(1, 1, 2)
    with pytest.raises(AssertionError, match="type mismatch: <class 'int'> vs <class 'float'>"):
        torch.sym_ite(True, 1, 2.0)


def test_sym_helpers_on_tensors_convert_them():
    x = torch.tensor(3.5)
    assert torch.sym_int(x) == 3 and torch.sym_float(x) == 3.5
    assert torch.sym_sqrt(x) == pytest.approx(3.5 ** 0.5)
    assert float(torch.sym_sum([x, 1])) == 4.5


def test_build_facts():
    assert torch.has_lapack and torch.has_spectral and torch.compiled_with_cxx11_abi() is True
    assert torch.has_mkl is torch.backends.mkl.is_available()
    assert torch.has_openmp is torch.backends.openmp.is_available()


@pytest.mark.torch
@pytest.mark.parametrize("name,args,expected", CASES)
def test_sym_helpers_match_pytorch(name, args, expected):
    real = pytest.importorskip("torch")
    theirs = getattr(real, name)(*args)
    assert theirs == expected and type(theirs) is type(expected)


def test_plain_numbers_are_not_symbolic():
    assert not isinstance(3, torch.SymInt) and not isinstance(3.0, torch.SymFloat)
    assert not isinstance(True, torch.SymBool)
    assert [c.__name__ for c in (torch.SymInt, torch.SymFloat, torch.SymBool)] == ["SymInt", "SymFloat", "SymBool"]


@pytest.mark.parametrize("call,message", [
    (lambda: torch.sym_constrain_range(5, min=0, max=3), "Invalid value range for 5 between [0, 3]."),
    (lambda: torch.sym_constrain_range(2, min=3), "Invalid value range for 2 between [3, 9223372036854775807]."),
    (lambda: torch.sym_constrain_range(2, max=1), "Invalid value range for 2 between [-9223372036854775808, 1]."),
    (lambda: torch.sym_constrain_range(torch.tensor(5), min=0, max=3), "Invalid value range for 5 between [0, 3]."),
    (lambda: torch.sym_constrain_range(2, min=4, max=3), "Max must be greater than or equal to min. Got min=4 max=3"),
    (lambda: torch.sym_constrain_range_for_size(-1), "Invalid value range for -1 between [0, 9223372036854775807]."),
    (lambda: torch.sym_constrain_range_for_size(1, min=2),
     "Invalid value range for 1 between [2, 9223372036854775807]."),
])
def test_sym_constrain_range_refuses_a_value_outside(call, message):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == message


def test_sym_constrain_range_accepts_a_value_inside_and_takes_keywords_only():
    assert torch.sym_constrain_range(2, min=0, max=3) is None and torch.sym_constrain_range(size=2) is None
    assert torch.sym_constrain_range_for_size(0) is None and torch.sym_fresh_size(3) == 3
    with pytest.raises(TypeError, match="takes 1 positional argument but 3 were given"):
        torch.sym_constrain_range(2, 0, 3)


def test_top_level_fork_and_wait_are_torchscripts():
    fut = torch.fork(lambda x: x + 1, 2)
    assert isinstance(fut, torch.Future) and torch.wait(fut) == 3
