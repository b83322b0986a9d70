"""Attaching methods to Tensor: one mechanism, each name once, so no import order decides a method."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ember.core as E
from ember.core.methods import attach
from ember.core.tensor import Tensor


def test_where_method_takes_self_as_input():
    x, other = E.tensor([1.0, 2.0, 3.0]), E.tensor([9.0, 9.0, 9.0])
    cond = E.tensor([True, False, True])
    np.testing.assert_array_equal(x.where(cond, other).numpy(), [1.0, 9.0, 3.0])  # torch.where(cond, x, other)


def test_round_method_is_the_public_function_with_decimals():
    np.testing.assert_allclose(E.tensor([1.26, 2.5]).round(decimals=1).numpy(), [1.3, 2.5], rtol=1e-6)
    x = E.tensor([1.4, 2.6])
    assert x.round_() is x and x.tolist() == [1.0, 3.0]


def test_real_and_imag_are_properties_and_functions():
    z = E.tensor([1 + 2j])
    assert isinstance(Tensor.__dict__["real"], property) and z.real.tolist() == [1.0] == E.real(z).tolist()


def test_attaching_a_name_twice_raises_unless_replaced(monkeypatch):
    monkeypatch.setattr(Tensor, "where", Tensor.__dict__["where"])  # restored after the test
    with pytest.raises(RuntimeError, match="Tensor.where is attached twice"):
        attach("where", lambda self: self)
    attach("where", Tensor.__dict__["where"])  # the same value again is no change
    attach("where", lambda self: "replaced", replace=True)
    assert E.ones(1).where() == "replaced"


def test_ops_are_attached_as_plain_functions():
    assert Tensor.__dict__["exp"] is E.exp.method and not hasattr(type(E.exp), "__get__")


def test_operators_leave_non_tensor_operands_to_python():
    # PyTorch's operators turn an argument TypeError into NotImplemented: == falls back to identity,
    # containment and list.count work with None, and arithmetic names the operand types
    x = E.ones(2)
    assert (x == None) is False and (x != None) is True  # noqa: E711
    assert (x == "a") is False and (x == [1.0, 1.0]) is False
    assert None not in [x] and x in [None, x] and [x, None].count(None) == 1
    assert x.__eq__(None) is NotImplemented and x.__add__(None) is NotImplemented
    for expr, msg in ((lambda: x + None, "+: 'Tensor' and 'NoneType'"),
                      (lambda: None - x, "-: 'NoneType' and 'Tensor'"),
                      (lambda: x < None, "'<' not supported between instances of 'Tensor' and 'NoneType'"),
                      (lambda: x @ None, "@: 'Tensor' and 'NoneType'"), (lambda: x.int() << None, "<<"),
                      (lambda: x.bool() & None, "&: 'Tensor' and 'NoneType'")):
        with pytest.raises(TypeError, match=re.escape(msg)):
            expr()
    y = E.ones(2)
    with pytest.raises(TypeError, match=re.escape("+=: 'Tensor' and 'NoneType'")):
        y += None
    # ember's own dtype errors (RuntimeErrors in PyTorch) still propagate from the operators
    with pytest.raises(RuntimeError):
        E.ones(2, dtype=E.complex64) < E.ones(2, dtype=E.complex64)


# PyTorch 2.13's words for a non-tensor operand of an in-place method: the method's name, positions after `self`
@pytest.mark.parametrize("call, msg", [
    (lambda x: x.sub_(None, alpha=0.1), "sub_(): argument 'other' (position 1) must be Tensor, not NoneType"),
    (lambda x: x.add_(None), "add_(): argument 'other' (position 1) must be Tensor, not NoneType"),
    (lambda x: x.mul_("a"), "mul_(): argument 'other' (position 1) must be Tensor, not str"),
    (lambda x: x.sub_([1.0, 2.0]), "sub_(): argument 'other' (position 1) must be Tensor, not list"),
    (lambda x: x.addcmul_(None, x), "addcmul_(): argument 'tensor1' (position 1) must be Tensor, not NoneType"),
    (lambda x: x.addcdiv_(x, None, value=2),
     "addcdiv_(): argument 'tensor2' (position 2) must be Tensor, not NoneType"),
    (lambda x: E.addcmul(x, x, None), "addcmul(): argument 'tensor2' (position 3) must be Tensor, not NoneType"),
    (lambda x: x.copy_(None), "copy_(): argument 'other' (position 1) must be Tensor, not NoneType"),
    (lambda x: x.copy_([1.0, 2.0]), "copy_(): argument 'other' (position 1) must be Tensor, not list"),
    (lambda x: x.copy_(np.ones(2)), "copy_(): argument 'other' (position 1) must be Tensor, not numpy.ndarray"),
])
def test_inplace_methods_refuse_a_non_tensor_operand_in_their_own_words(call, msg):
    x = E.ones(2)
    with pytest.raises(TypeError, match=f"^{re.escape(msg)}$"):
        call(x)
    assert x.tolist() == [1.0, 1.0]  # nothing written (copy_(None) used to fill NaN)


def test_copy_still_takes_a_number():
    assert E.ones(2).copy_(2.5).tolist() == [2.5, 2.5] and E.zeros(2).copy_(np.float64(3)).tolist() == [3.0, 3.0]


_LERP_METHOD_LINES = (" * (Tensor end, Tensor weight)\n      didn't match because some of the arguments have "
                      "invalid types: "
                      "({})\n * (Tensor end, Number weight)\n      didn't match because some of the arguments have "
                      "invalid types: ({})\n")


@pytest.mark.parametrize("call, msg", [
    (lambda x: E.lerp(x, None, 0.5), "lerp() received an invalid combination of arguments - got (Tensor, NoneType, "
     "float), but expected one of:\n * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n"
     " * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n"),
    (lambda x: x.lerp(x, None), "lerp() received an invalid combination of arguments - got (Tensor, NoneType), but "
     "expected one of:\n" + _LERP_METHOD_LINES.format("Tensor, !NoneType!", "Tensor, !NoneType!")),
    (lambda x: x.lerp_([1.0, 2.0], 0.5), "lerp_() received an invalid combination of arguments - got (list, float), "
     "but expected one of:\n" + _LERP_METHOD_LINES.format("!list of [float, float]!, !float!",
                                                           "!list of [float, float]!, !float!")),
])
def test_lerp_refuses_a_non_tensor_end_or_weight_with_pytorchs_overload_list(call, msg):
    # PyTorch 2.13's words: the method forms list the methods' overloads, the in-place one names itself
    x = E.ones(2)
    with pytest.raises(TypeError) as info:  # numpy's UFuncTypeError before
        call(x)
    assert str(info.value) == msg and type(info.value) is TypeError and x.tolist() == [1.0, 1.0]
    assert E.lerp(x, E.zeros(2), np.float32(0.25)).tolist() == [0.75, 0.75]


def test_parsed_tensor_arguments_count_positions_after_self_in_the_method_form():
    """PyTorch's parser names the argument of the wrong type, with its position counted after `self` for a method
    and without one for a keyword: a list for dot's or index_select's tensor is its TypeError, not a crash."""
    a, idx = E.ones(3), E.tensor([0])
    cases = [
        (lambda: E.dot(a, [1.0, 2.0, 3.0]), "dot(): argument 'tensor' (position 2) must be Tensor, not list"),
        (lambda: a.dot([1.0, 2.0, 3.0]), "dot(): argument 'tensor' (position 1) must be Tensor, not list"),
        (lambda: E.dot(a, tensor=[1.0]), "dot(): argument 'tensor' must be Tensor, not list"),
        (lambda: E.dot([1.0], a), "dot(): argument 'input' (position 1) must be Tensor, not list"),
        (lambda: a.vdot([1.0]), "vdot(): argument 'other' (position 1) must be Tensor, not list"),
        (lambda: E.inner(a, [1.0]), "inner(): argument 'other' (position 2) must be Tensor, not list"),
        (lambda: a.index_select(0, [0, 1]), "index_select(): argument 'index' (position 2) must be Tensor, not list"),
        (lambda: E.index_select(a, 0, index=[0]), "index_select(): argument 'index' must be Tensor, not list"),
        (lambda: a.index_select("0", idx), "index_select(): argument 'dim' (position 1) must be int, not str"),
        (lambda: E.index_copy(a, 0, [0], E.ones(1)), "index_copy(): argument 'index' (position 3) must be Tensor, "
                                                     "not list"),
        (lambda: a.index_copy_(0, idx, [1.0]), "index_copy_(): argument 'source' (position 3) must be Tensor, not "
                                               "list"),
        (lambda: a.index_add(0, [0], E.ones(1)), "index_add(): argument 'index' (position 2) must be Tensor, not list"),
        (lambda: a.index_add_(0, idx, E.ones(1), alpha="x"), "index_add_(): argument 'alpha' must be Number, not str"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message
    assert a.index_add_(0, idx, E.ones(1), alpha=2).tolist() == [3.0, 1.0, 1.0]
    assert a.dot(E.ones(3)).item() == 5.0
