"""Gradients of the long-tail functions composed in ember.core (logaddexp, nan_to_num, deg2rad,
ldexp, frexp, trapezoid, sum_to_size ...) against float64 central differences."""

import math

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd import gradcheck

F64 = E.float64


def _x(*values, shape=None):
    t = E.tensor(values, dtype=F64)
    return (t.view(*shape) if shape else t).requires_grad_(True)


@pytest.mark.parametrize("fn", [E.logaddexp, E.logaddexp2])
def test_logaddexp_gradients(fn):
    a, b = _x(0.3, -2.0, 5.0, 1.0), _x(-0.7, 4.0, 5.5, 2.5)
    assert gradcheck(fn, (a, b))


@pytest.mark.parametrize("fn, name", [(E.logaddexp, "LogaddexpBackward0"), (E.logaddexp2, "Logaddexp2Backward0")])
def test_logaddexp_node_has_pytorchs_name(fn, name):
    assert fn(_x(0.3, -2.0), _x(1.0, 4.0)).grad_fn.name() == name


def test_logaddexp_gradient_at_a_tie_is_one_half():
    a, b = _x(1.0), _x(1.0)
    E.logaddexp(a, b).backward()
    assert a.grad.tolist() == [0.5] and b.grad.tolist() == [0.5]


def test_nan_to_num_passes_gradient_only_through_finite_elements():
    x = E.tensor([math.nan, math.inf, 2.0, -math.inf], dtype=F64, requires_grad=True)
    E.nan_to_num(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize("fn", [E.deg2rad, E.rad2deg, lambda x: E.ldexp(x, E.tensor([1.0, -2.0, 3.0], dtype=F64))])
def test_scaling_gradients(fn):
    assert gradcheck(fn, (_x(0.5, -1.5, 2.0),))


def test_ldexp_is_pytorchs_one_node_and_its_integer_exponent_scales_the_gradient_in_integers():
    """PyTorch's LdexpBackward0 multiplies the gradient by pow(2, other) in other's dtype: 2**-1 is 0 for an int64
    exponent (PyTorch 2.13's numbers); a floating exponent gets grad * result * log(2)."""
    x = _x(1.5, -2.0, 3.0)
    r = E.ldexp(x, E.tensor([1, 2, -1]))
    assert type(r.grad_fn).__name__ == "LdexpBackward0"
    assert [type(f).__name__ if f else None for f, _ in r.grad_fn.next_functions] == ["AccumulateGrad", None]
    r.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 0.0]
    e = _x(1.0, 2.0, -1.0)
    assert gradcheck(lambda a, b: E.ldexp(a, b), (_x(1.5, -2.0, 3.0), e))
    E.ldexp(_x(1.5, -2.0, 3.0), e).sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), [3 * math.log(2), -8 * math.log(2), 1.5 * math.log(2)], rtol=1e-15)


def test_ldexp_saves_its_result_when_only_the_input_requires_grad():
    """PyTorch's LdexpBackward0 keeps `_saved_result` for either input's formula, `_saved_other` for the input's."""
    x = _x(1.5, -2.0, 3.0)
    r = E.ldexp(x, E.tensor([1, 2, -1]))
    assert r.grad_fn._saved_result.tolist() == [3.0, -8.0, 1.5]
    assert r.grad_fn._saved_other.tolist() == [1, 2, -1]
    r2 = E.ldexp(E.tensor([1.5]), _x(2.0))
    assert r2.grad_fn._saved_result.tolist() == [6.0] and r2.grad_fn._saved_other is None


def test_frexp_mantissa_gradient_is_two_to_minus_exponent():
    x = _x(3.0, -0.3, 40.0)
    m, e = E.frexp(x)
    m.sum().backward()
    assert x.grad.tolist() == [2.0 ** -k for k in e.tolist()]


def test_trapezoid_gradients():
    y = _x(1.0, 2.0, 4.0, 3.0, 5.0, 9.0, shape=(2, 3))
    x = _x(0.0, 1.0, 3.0)
    assert gradcheck(lambda y, x: E.trapezoid(y, x), (y, x))
    assert gradcheck(lambda y: E.cumulative_trapezoid(y, dx=0.5, dim=0), (y,))


def test_sum_to_size_gradient_expands_back():
    x = _x(*range(6), shape=(2, 3))
    assert gradcheck(lambda x: x.sum_to_size(1, 3), (x,))


def test_in_place_view_op_on_a_leaf_that_requires_grad_raises():
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"):
        E.zeros(2, 3, requires_grad=True).t_()
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an in-pl"):
        E.zeros(6, requires_grad=True).reshape(2, 3).t_()
    w = E.zeros(2, 3, requires_grad=True)
    with E.no_grad():  # PyTorch's no_grad: the leaf changes its geometry in place
        assert w.t_().shape == (3, 2) and w.grad_fn is None and w.requires_grad


W = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


@pytest.mark.parametrize("op, node, weight, grad", [  # PyTorch 2.13's nodes and gradients of x = arange(6)
    (lambda y: y.reshape(2, 3).t_(), "TBackward1", E.tensor(W).t(), [1, 2, 3, 4, 5, 6]),
    (lambda y: y.t_(), "TBackward1", E.arange(6.0), [0, 1, 2, 3, 4, 5]),
    (lambda y: y.reshape(2, 3).transpose_(0, 1), "TransposeBackward1", E.tensor(W).t(), [1, 2, 3, 4, 5, 6]),
    (lambda y: y.reshape(2, 3).swapdims_(0, 1), "TransposeBackward1", E.tensor(W).t(), [1, 2, 3, 4, 5, 6]),
    (lambda y: y.unsqueeze_(0), "UnsqueezeBackward1", E.arange(6.0).unsqueeze(0), [0, 1, 2, 3, 4, 5]),
    (lambda y: y.reshape(1, 6).squeeze_(), "SqueezeBackward3", E.arange(6.0), [0, 1, 2, 3, 4, 5]),
    (lambda y: y.reshape(1, 6).squeeze_(0), "SqueezeBackward4", E.arange(6.0), [0, 1, 2, 3, 4, 5]),
    (lambda y: y.reshape(1, 6, 1).squeeze_((0, 2)), "SqueezeBackward5", E.arange(6.0), [0, 1, 2, 3, 4, 5]),
    (lambda y: y.as_strided_((2, 2), (1, 2)), "AsStridedBackward1", E.tensor([[1.0, 2.0], [3.0, 4.0]]),
     [1, 3, 2, 4, 0, 0]),
])
def test_in_place_view_ops_in_the_graph_re_record_as_pytorchs(op, node, weight, grad):
    x = E.arange(6.0, requires_grad=True)
    y = x.clone()
    r = op(y)
    assert type(r.grad_fn).__name__ == node and r._version == 1 and tuple(r.shape) == tuple(weight.shape)
    (r * weight).sum().backward()
    assert x.grad.tolist() == grad


def test_an_in_place_view_op_of_a_view_extends_its_view_chain():
    x = E.arange(6.0, requires_grad=True)
    v = x.clone().reshape(2, 3)[0:2].t_()  # as PyTorch: TBackward1 over the slice's node
    assert type(v.grad_fn).__name__ == "TBackward1"
    assert type(v.grad_fn.next_functions[0][0]).__name__ == "SliceBackward0"
    (v * E.tensor(W).t()).sum().backward()
    assert x.grad.tolist() == [1, 2, 3, 4, 5, 6]


def _rand(*shape, seed=0):
    import numpy as np

    return E.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=F64).requires_grad_(True)


def test_solve_triangular_and_cholesky_solve_gradients():
    A = _rand(3, 3)
    with E.no_grad():
        A += 3 * E.eye(3, dtype=F64)
    B = _rand(3, 2, seed=1)
    assert gradcheck(lambda A, B: E.linalg.solve_triangular(A, B, upper=True), (A, B))
    assert gradcheck(lambda A, B: E.linalg.solve_triangular(A, B, upper=False, left=False, unitriangular=True),
                     (A, B.detach().t().requires_grad_(True)))
    assert gradcheck(lambda A, B: E.cholesky_solve(B, A.tril()), (A, B))


def test_lu_matrix_exp_and_householder_gradients():
    A = _rand(3, 3, seed=2)
    assert gradcheck(lambda A: E.linalg.lu_factor(A).LU, (A,))
    assert gradcheck(lambda A: E.linalg.lu(A).U, (A,))
    assert gradcheck(E.linalg.matrix_exp, (A,))
    assert gradcheck(lambda A: E.linalg.matrix_exp(A * 5), (A,))
    tau = _rand(2, seed=3)
    assert gradcheck(lambda A, t: E.linalg.householder_product(A, t), (A, tau))


def test_lstsq_vander_tensorinv_gradients():
    A, B = _rand(5, 3, seed=4), _rand(5, 2, seed=5)
    assert gradcheck(lambda A, B: E.linalg.lstsq(A, B).solution, (A, B))
    assert gradcheck(lambda x: E.linalg.vander(x, N=4), (_rand(3, seed=6),))
    assert gradcheck(lambda a: E.linalg.tensorinv(a, ind=1), (_rand(4, 2, 2, seed=7),))


def test_renorm_gradient_and_as_strided_scatter_gradient():
    x = _rand(3, 4, seed=8)
    assert gradcheck(lambda x: E.renorm(x, 2, 0, 1.0), (x,))
    src = _rand(2, seed=9)
    assert gradcheck(lambda x, s: E.as_strided_scatter(x, s, (2,), (3,)), (_rand(6, seed=10), src))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_torch_gradient_is_differentiable(edge_order):
    y = _rand(5, seed=11)
    xs = E.tensor([0.0, 0.5, 1.5, 1.7, 3.0], dtype=F64)
    assert gradcheck(lambda y: E.gradient(y, spacing=(xs,), edge_order=edge_order)[0], (y,))


def test_geqrf_gradient():
    A = _rand(4, 3, seed=12)
    assert gradcheck(lambda A: E.geqrf(A).a, (A,))
    assert gradcheck(lambda A: E.geqrf(A).tau, (A,))


def test_module_load_copies_or_assigns_detached():
    x = E.ones(2)
    r = x.module_load(E.tensor([3.0, 4.0], requires_grad=True))
    assert x.tolist() == [3.0, 4.0] and not r.requires_grad
    src = E.tensor([5.0, 6.0], requires_grad=True)
    r = x.module_load(src, assign=True)
    assert r.tolist() == [5.0, 6.0] and not r.requires_grad and x.tolist() == [3.0, 4.0]


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "prod"])
def test_segment_reduce_gradient(reduce):
    d = _rand(5, 2, seed=13)
    assert gradcheck(lambda d: E.segment_reduce(d, reduce, lengths=E.tensor([2, 3])), (d,))
    assert type(E.segment_reduce(d, reduce, lengths=E.tensor([2, 3])).grad_fn).__name__ == "SegmentReduceBackward0"
    rows = E.tensor([[2, 1], [1, 2]])
    assert gradcheck(lambda d: E.segment_reduce(d.view(2, 3), reduce, lengths=rows, axis=1), (_rand(6, seed=14),))


def test_renorm_gradient_and_node_name():
    x = _x(1.0, 2.0, 3.0, 4.0, 0.1, 0.2, shape=(3, 2))
    assert gradcheck(lambda t: E.renorm(t, 2, 0, 2.5), (x,))
    assert type(E.renorm(x, 2, 0, 2.5).grad_fn).__name__ == "RenormBackward0"


@pytest.mark.parametrize("fn, name", [
    (lambda x: E.addcdiv(x, x, x.exp(), value=0.5), "AddcdivBackward0"),
    (lambda x: E.rad2deg(x), "Rad2DegBackward0"),
    (lambda x: E.deg2rad(x), "Deg2RadBackward0"),
    (lambda x: E.celu(x), "CeluBackward0"),
    (lambda x: E.celu(x.clone(), inplace=True), "CeluBackward1"),
    (lambda x: E.rrelu(x), "RreluWithNoiseBackward0"),
    (lambda x: E.pixel_unshuffle(x.view(1, 1, 2, 2), 2), "PixelUnshuffleBackward0"),
    (lambda x: E.pixel_shuffle(x.view(1, 4, 1, 1), 2), "PixelShuffleBackward0"),
    (lambda x: E.linalg.matrix_norm(x.view(2, 2), ord=2), "AmaxBackward0"),
    (lambda x: E.linalg.matrix_norm(x.view(2, 2), ord=-2, keepdim=True), "PermuteBackward0"),
    (lambda x: E.linalg.matrix_norm(x.view(2, 2), ord="nuc"), "SumBackward1"),
    (lambda x: E.linalg.matrix_norm(x.view(2, 2), ord=1), "AmaxBackward0"),
    (lambda x: E.linalg.matrix_norm(x.view(1, 2, 2), ord=-math.inf, dim=(0, 2), keepdim=True), "AminBackward0"),
    (lambda x: E.cov(x.view(2, 2)), "SqueezeBackward0"),  # PyTorch's cov ends in squeeze() for any shape
    (lambda x: E.cov(x), "SqueezeBackward0"),
    (lambda x: E.linalg.solve(x.view(2, 2), E.ones(2, dtype=x.dtype)), "LinalgSolveExBackward0"),  # solve_ex's node
    (lambda x: E.linalg.solve(x.view(2, 2), E.ones(3, 2, dtype=x.dtype), left=False), "LinalgSolveExBackward0"),
    (lambda x: E.linalg.solve_triangular(x.view(2, 2), E.ones(3, 2, dtype=x.dtype), upper=True, left=False),
     "LinalgSolveTriangularBackward0"),
])


def test_composed_ops_carry_pytorchs_node_names(fn, name):
    assert type(fn(_x(0.5, -1.0, 2.0, 0.25)).grad_fn).__name__ == name


def test_matrix_norm_one_and_inf_reduce_the_right_dims_without_keepdim():
    a = E.tensor([[[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]], dtype=F64)  # (1, 2, 3)
    assert E.linalg.matrix_norm(a, ord=1, dim=(2, 1)).tolist() == [15.0]  # abs sums over dim 2, max over dim 1
    assert E.linalg.matrix_norm(a, ord=math.inf, dim=(0, 2)).tolist() == [6.0, 15.0]
    assert E.linalg.matrix_norm(a, ord=-1, dim=(1, 2), keepdim=True).shape == (1, 1, 1)


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_a_rounding_mode_sends_zero_gradients_as_pytorchs_divbackward2(mode):
    """PyTorch records DivBackward2 for a rounded quotient, with a zero gradient for each operand requiring grad."""
    w = E.tensor([1.5, 2.5, -3.0, -7.0], requires_grad=True)
    o = E.tensor([1.0, 2.0, -2.0, 2.0], requires_grad=True)
    r = E.div(w, o, rounding_mode=mode)
    assert type(r.grad_fn).__name__ == "DivBackward2"
    want = np.floor if mode == "floor" else np.trunc
    np.testing.assert_array_equal(r.detach().numpy(), want(np.array([1.5, 1.25, 1.5, -3.5], dtype=np.float32)))
    r.sum().backward()
    assert w.grad.tolist() == [0.0] * 4 and o.grad.tolist() == [0.0] * 4
    assert E.div(w, 2, rounding_mode=mode).requires_grad
    assert not E.div(E.tensor([5, -5]), 2, rounding_mode=mode).requires_grad
    with E.no_grad():
        assert not E.div(w, 2, rounding_mode=mode).requires_grad


@pytest.mark.parametrize("decimals, want", [(0, [1.0, 2.0, -3.0]), (1, [1.3, 2.5, -3.0]), (-1, [0.0, 0.0, -0.0])])
def test_round_with_decimals_is_pytorchs_roundbackward1_with_zero_gradients(decimals, want):
    """`round(decimals=)` is PyTorch's `round.decimals` node, RoundBackward1, out of place and in place; its
    gradient is zeros even where the incoming one is NaN or infinite (as every flat step's)."""
    x = E.tensor([1.26, 2.5, -3.0], requires_grad=True)
    for r in (x.round(decimals=decimals), E.round(x, decimals=decimals), (x * 1).round_(decimals=decimals)):
        assert type(r.grad_fn).__name__ == "RoundBackward1"
        np.testing.assert_allclose(r.detach().numpy(), want, rtol=1e-6)
        r.backward(E.tensor([math.nan, math.inf, 1.0]))
        assert x.grad.tolist() == [0.0] * 3
        x.grad = None
    assert type(x.round().grad_fn).__name__ == "RoundBackward0"
    with pytest.raises(RuntimeError, match=r"^round\(\): functions with out=\.\.\. arguments don't support"):
        E.round(x, decimals=decimals, out=E.empty(3))


@pytest.mark.parametrize("name", ["sign", "floor", "ceil", "trunc", "round"])
def test_flat_steps_send_zeros_whatever_the_incoming_gradient(name):
    x = E.tensor([1.26, 2.5, -3.0], requires_grad=True)
    getattr(x, name)().backward(E.tensor([math.nan, -math.inf, 1.0]))
    assert x.grad.tolist() == [0.0] * 3  # PyTorch's zeros_like(grad), not grad * 0


def test_linalg_cross_is_one_node_whose_gradients_are_cross_products():
    # PyTorch records LinalgCrossBackward0: d/da = other x grad, d/db = grad x input (broadcast dims summed back)
    rng = np.random.default_rng(7)
    a = E.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    b = E.tensor(rng.standard_normal((1, 3)), requires_grad=True)
    assert type(E.linalg.cross(a, b).grad_fn).__name__ == "LinalgCrossBackward0"
    assert gradcheck(lambda x, y: E.linalg.cross(x, y), (a, b))
    assert gradcheck(lambda x, y: E.cross(x.T, y.T.expand(3, 4), dim=0), (a, b))
    g = rng.standard_normal((4, 3))
    E.linalg.cross(a, b).backward(E.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), np.cross(b.detach().numpy(), g))
    np.testing.assert_allclose(b.grad.numpy(), np.cross(g, a.detach().numpy()).sum(0, keepdims=True))


@pytest.mark.parametrize("name, shapes", [
    ("addmm", ((2, 4), (2, 3), (3, 4))), ("addmm", ((4,), (2, 3), (3, 4))), ("addmv", ((2,), (2, 3), (3,))),
    ("addr", ((2, 3), (2,), (3,))), ("baddbmm", ((3, 2, 4), (3, 2, 3), (3, 3, 4))),
    ("addbmm", ((2, 4), (3, 2, 3), (3, 3, 4))),
])
def test_beta_zero_ignores_the_input_but_still_gives_it_a_zero_gradient(name, shapes):
    # PyTorch: the input's NaN never reaches the result, and its gradient is grad * beta (zeros), not None
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(s) for s in shapes]
    arrays[0][..., 0] = np.nan
    xs = [E.tensor(a, requires_grad=True) for a in arrays]
    out = getattr(E, name)(*xs, beta=0, alpha=2)
    assert type(out.grad_fn).__name__ == name.capitalize() + "Backward0"
    assert not out.isnan().any()
    expected = getattr(E, name)(*(E.tensor(a) for a in [np.zeros(shapes[0])] + arrays[1:]), alpha=2)
    np.testing.assert_allclose(out.detach().numpy(), expected.numpy(), rtol=1e-12)
    out.sum().backward()
    assert xs[0].grad is not None and xs[0].grad.shape == shapes[0] and not xs[0].grad.abs().sum()


def test_vdot_is_one_vdot_node_with_conjugated_gradients():
    z = E.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    w = E.tensor([2 - 1j, 1j], requires_grad=True)
    r = E.vdot(z, w)
    assert type(r.grad_fn).__name__ == "VdotBackward0" and r.item() == -1 - 2j
    r.real.backward()
    assert z.grad.tolist() == [2 - 1j, 1j] and w.grad.tolist() == [1 + 2j, 3 - 1j]  # PyTorch 2.13's


@pytest.mark.parametrize("p", [2, 1, 3.5, math.inf])
def test_dist_is_one_distbackward_node_with_the_norms_gradient(p):
    a, b = _x(0.3, -2.0, 5.0, 1.0, shape=(2, 2)), _x(-0.7, 4.0)
    d = E.dist(a, b, p)
    assert type(d.grad_fn).__name__ == "DistBackward0"
    assert gradcheck(lambda u, v: E.dist(u, v, p), (a, b))


def test_combinations_node_is_stack_and_r0_is_outside_the_graph():
    x = _x(1.0, 2.0, 3.0)
    assert E.combinations(x).grad_fn.name() == "StackBackward0"
    assert E.combinations(x, r=3, with_replacement=True).grad_fn.name() == "StackBackward0"
    empty = E.combinations(x, r=0)
    assert empty.grad_fn is None and not empty.requires_grad and tuple(empty.shape) == (0,)
    E.combinations(x).pow(2).sum().backward()
    assert x.grad.tolist() == [4.0, 8.0, 12.0]


def test_half_embedding_bag_per_sample_weights_gradient_is_a_float32_dot_rounded_once():
    rng = np.random.default_rng(7)
    w = rng.standard_normal((6, 16)).astype(np.float16)
    g = rng.standard_normal((3, 16)).astype(np.float16)
    idx, bag_of = np.array([0, 3, 3, 5, 1, 2]), np.array([0, 0, 1, 1, 2, 2])
    psw = E.ones(6, dtype=E.float16, requires_grad=True)
    out = E.embedding_bag(E.tensor(idx), E.tensor(w), E.tensor([0, 2, 4]), mode="sum", per_sample_weights=psw)
    out.backward(E.tensor(g))
    want = (w[idx].astype(np.float32) * g[bag_of].astype(np.float32)).sum(1).astype(np.float16)
    assert np.array_equal(psw.grad.numpy(), want)
