"""ember.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd import functional as AF


def _t(values):
    return E.tensor(values, dtype=E.float64)


def test_jacobian_of_elementwise_and_matrix_functions():
    x = _t([0.5, -1.0, 2.0])
    j = AF.jacobian(lambda t: t.exp(), x)
    assert np.allclose(j.numpy(), np.diag(np.exp(x.numpy())))
    a = _t([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]])
    ja, jx = AF.jacobian(lambda m, v: m @ v, (a, x))
    assert tuple(ja.shape) == (2, 2, 3) and np.allclose(jx.numpy(), a.numpy())
    assert np.allclose(ja.numpy()[0, 0], x.numpy()) and np.allclose(ja.numpy()[0, 1], 0)


def test_hessian_of_a_quadratic_and_a_cubic():
    a = _t([[2.0, 1.0], [1.0, 3.0]])
    h = AF.hessian(lambda v: (v @ (a @ v)) / 2, _t([0.3, -0.2]))
    assert np.allclose(h.numpy(), a.numpy())
    x = _t([1.0, 2.0])
    assert np.allclose(AF.hessian(lambda v: (v ** 3).sum(), x).numpy(), np.diag(6 * x.numpy()))


def test_vector_products():
    x = _t([0.5, 1.5])
    v = _t([1.0, -2.0])
    out, g = AF.vjp(lambda t: t * t, x, v)
    assert np.allclose(g.numpy(), 2 * x.numpy() * v.numpy()) and not out.requires_grad
    _, jv = AF.jvp(lambda t: t.sin(), x, v)
    assert np.allclose(jv.numpy(), np.cos(x.numpy()) * v.numpy())
    _, hv = AF.hvp(lambda t: (t ** 3).sum(), x, v)
    _, vh = AF.vhp(lambda t: (t ** 3).sum(), x, v)
    assert np.allclose(hv.numpy(), 6 * x.numpy() * v.numpy()) and np.allclose(vh.numpy(), hv.numpy())


def test_strategy_and_vector_errors_are_pytorchs():
    import pytest

    x = _t([0.5, -1.0, 2.0])
    with pytest.raises(AssertionError, match='Expected strategy to be either "forward-mode" or "reverse-mode". Hint'):
        AF.jacobian(lambda t: t * 2, x, strategy="sideways")
    with pytest.raises(NotImplementedError, match=r"only implemented for `vectorize=True`\."):
        AF.jacobian(lambda t: t * 2, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and `strategy=\"forward-mode\"`"):
        AF.jacobian(lambda t: t * 2, x, strategy="forward-mode", vectorize=True, create_graph=True)
    j = AF.jacobian(lambda t: t * 2, x, strategy="forward-mode", vectorize=True)
    assert np.allclose(j.numpy(), 2 * np.eye(3))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.hessian(lambda t: (t ** 3).sum(), x, outer_jacobian_strategy="forward-mode")
    with pytest.raises(RuntimeError, match="^The vector v can only be None if the user-provided function returns a "
                                           "single Tensor with a single element.$"):
        AF.vjp(lambda t: t * 2, x)
    with pytest.raises(RuntimeError, match="^The vector v can only be None if the input to the user-provided "
                                           "function is a single Tensor with a single element.$"):
        AF.hvp(lambda t: (t ** 3).sum(), x)
    with pytest.raises(RuntimeError, match=r"^v has invalid size: should be \w+.Size\(\[3\]\) but got "
                                           r"\w+.Size\(\[2\]\).$"):
        AF.jvp(lambda t: t * 2, x, _t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="^v is a tuple of invalid length: should be 2 but got 1.$"):
        AF.vjp(lambda t: (t * 2, t * 3), x, (x,))


@pytest.mark.parametrize("fn", ["hessian", "hvp", "vhp"])
def test_second_order_functions_want_one_single_element_tensor(fn):
    z = _t([1.0, 2.0])
    call = (lambda f: AF.hessian(f, z)) if fn == "hessian" else (lambda f: getattr(AF, fn)(f, z, z))
    with pytest.raises(RuntimeError) as e:
        call(lambda v: v * 2)
    assert str(e.value) == f"The Tensor returned by the function given to {fn} should contain a single element"
    with pytest.raises(RuntimeError) as e:
        call(lambda v: (v.sum(), v.sum()))
    assert str(e.value) == f"The function given to {fn} should return a single Tensor"
    with pytest.raises(TypeError) as e:
        call(lambda v: 3.0)
    assert str(e.value) == (f"The outputs of the user-provided function given to {fn} must be either a Tensor or a "
                            "tuple of Tensors but the given outputs of the user-provided function has type "
                            "<class 'float'>.")
    assert np.allclose(call(lambda v: (v**2).sum().view(1, 1)) if fn == "hessian" else
                       call(lambda v: (v**2).sum().view(1, 1))[1].numpy(), 2 * (np.eye(2) if fn == "hessian" else z))


def test_inputs_and_outputs_must_be_tensors_or_tuples():
    z = _t([1.0, 2.0])
    with pytest.raises(TypeError) as e:
        AF.jacobian(lambda a, b: a * b, [z, z])  # a list is not a tuple, as in PyTorch
    assert str(e.value) == ("The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the given "
                            "inputs has type <class 'list'>.")
    with pytest.raises(TypeError) as e:
        AF.vjp(lambda a: (a, 1.0), z, (z, z))
    assert str(e.value) == ("The outputs of the user-provided function given to vjp must be either a Tensor or a "
                            "tuple of Tensors but the value at index 1 has type <class 'float'>.")
    with pytest.raises(TypeError, match="^The v given to jvp must be either a Tensor or a tuple of Tensors"):
        AF.jvp(lambda a: a * 2, z, [z])


def test_gradcheck_without_a_differentiable_input_says_so():
    import pytest

    from ember.autograd import gradcheck

    with pytest.raises(ValueError, match="^gradcheck expects at least one input tensor to require gradient, but "
                                         "none of them have requires_grad=True.$"):
        gradcheck(lambda t: t * 2, (_t([1.0]),))


def test_strict_mode_refuses_in_pytorchs_words():
    hessian, jacobian, vhp, vjp = AF.hessian, AF.jacobian, AF.vhp, AF.vjp
    x, y = E.tensor([1.0, 2.0]), E.tensor([3.0])
    with pytest.raises(RuntimeError, match="^Output 1 of the user-provided function does not require gradients. The "
                                           "outputs must be computed in a differentiable manner from the input when "
                                           "running in strict mode.$"):
        jacobian(lambda a: (a * 2, E.ones(1)), x, strict=True)
    with pytest.raises(RuntimeError, match="^Output 1 of the user-provided function is independent of input 1. This "
                                           "is not allowed in strict mode.$"):
        jacobian(lambda a, b: (a * 2 + b, a.sum() * 3), (x, y), strict=True)
    with pytest.raises(RuntimeError, match="^The output of the user-provided function is independent of input 1. "
                                           "This is not allowed in strict mode.$"):
        vjp(lambda a, b: a * 2, (x, y), E.ones(2), strict=True)
    linear = "^While computing the hessian, found that the jacobian of the user-provided function with respect to " \
             "input 0 is independent of the input. This is not allowed in strict mode."
    with pytest.raises(RuntimeError, match=linear):
        hessian(lambda a: (a * 2).sum(), x, strict=True)
    with pytest.raises(RuntimeError, match=linear):
        vhp(lambda a: (a * 2).sum(), x, E.ones(2), strict=True)
    assert jacobian(lambda a, b: a * 2, (x, y))[1].tolist() == [[0.0], [0.0]]  # not strict: zeros


def test_strict_refused_with_vectorize_and_forward_mode():
    x = _t([0.5, -1.0, 2.0])
    with pytest.raises(RuntimeError) as e:
        AF.jacobian(lambda t: t * 2, x, strict=True, vectorize=True)
    assert str(e.value) == ("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                            "together. Please either set `strict=False` or `vectorize=False`.")
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True`"):
        AF.hessian(lambda t: (t ** 3).sum(), x, strict=True, vectorize=True)
    for vectorize in (True, False):
        with pytest.raises(RuntimeError) as e:
            AF.jacobian(lambda t: t * 2, x, strict=True, vectorize=vectorize, strategy="forward-mode")
        assert str(e.value) == ('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                                'not supported together (yet). Please either set `strict=False` or '
                                '`strategy="reverse-mode"`.')


def test_forward_mode_jacobian_of_tuple_inputs_returns_lists_as_pytorch():
    x, y = E.tensor([1.0, 2.0]), E.tensor([3.0, 4.0, 5.0])
    jj = AF.jacobian(lambda a, b: (a * 2, b.sum()), (x, y), vectorize=True, strategy="forward-mode")
    assert type(jj) is list and all(type(r) is list for r in jj)
    np.testing.assert_allclose(jj[0][0].numpy(), 2 * np.eye(2))
    np.testing.assert_allclose(jj[1][1].numpy(), np.ones(3))
    j = AF.jacobian(lambda a, b: a * b.sum(), (x, y), vectorize=True, strategy="forward-mode")
    assert type(j) is list and [tuple(t.shape) for t in j] == [(2, 2), (2, 3)]
    j = AF.jacobian(lambda a: (a * 2, a.sum()), x, vectorize=True, strategy="forward-mode")
    assert type(j) is tuple
    h = AF.hessian(lambda a, b: (a * b[:2]).sum(), (x, y), vectorize=True, outer_jacobian_strategy="forward-mode")
    assert type(h) is list and type(h[1]) is list
    np.testing.assert_allclose(h[0][1].numpy(), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    r = AF.jacobian(lambda a, b: (a * 2, b.sum()), (x, y), vectorize=True)
    assert type(r) is tuple and type(r[0]) is tuple
