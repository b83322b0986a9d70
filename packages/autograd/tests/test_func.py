"""torch.func's transforms against closed-form float64 derivatives, finite differences, nesting,
and PyTorch's errors."""

import re

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp, vmap


def t(a):
    return E.tensor(np.asarray(a, dtype=np.float64))


def f_cubic(x):
    return (x ** 3).sum() + (x[0] * x[1])


def test_grad_matches_closed_form_and_composes_to_second_order():
    x = t([1.5, -2.0, 0.5])
    want = 3 * x.numpy() ** 2 + np.array([x.numpy()[1], x.numpy()[0], 0])
    np.testing.assert_allclose(grad(f_cubic)(x).numpy(), want, rtol=1e-12)
    # d/dx of sum(d f/dx) = 6x + [1, 1, 0]
    np.testing.assert_allclose(grad(lambda v: grad(f_cubic)(v).sum())(x).numpy(), 6 * x.numpy() + [1, 1, 0])
    h = hessian(f_cubic)(x).numpy()
    np.testing.assert_allclose(h, np.diag(6 * x.numpy()) + np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]))
    assert not grad(f_cubic)(x).requires_grad and not x.requires_grad


def test_grad_over_argnums_pytrees_aux_and_unused_inputs():
    params = {"w": t([[1.0, 2.0], [3.0, 4.0]]), "b": t([0.5, -0.5])}
    x = t([1.0, -1.0])

    def loss(p, x, unused):
        y = p["w"] @ x + p["b"]
        return (y ** 2).sum(), y

    g, y = grad(loss, has_aux=True)(params, x, t([7.0]))
    yw = params["w"].numpy() @ x.numpy() + params["b"].numpy()
    np.testing.assert_allclose(g["w"].numpy(), 2 * np.outer(yw, x.numpy()))
    np.testing.assert_allclose(g["b"].numpy(), 2 * yw)
    np.testing.assert_allclose(y.numpy(), yw)
    gx, gu = grad(lambda p, x, u: loss(p, x, u)[0], argnums=(1, 2))(params, x, t([7.0]))
    np.testing.assert_allclose(gx.numpy(), 2 * params["w"].numpy().T @ yw)
    assert gu.tolist() == [0.0]  # an input the function does not use gets zeros
    (gw, value) = grad_and_value(lambda w: (w * w).sum())(t([3.0]))
    assert gw.tolist() == [6.0] and value.item() == 9.0


def test_grad_of_a_parameter_that_requires_grad_stays_differentiable_by_autograd():
    w = t([2.0]).requires_grad_()
    g = grad(lambda v: (v ** 3).sum())(w)  # 3 w^2, connected to w's graph
    g.sum().backward()
    assert w.grad.tolist() == [12.0]


def test_results_stay_differentiable_in_closed_over_tensors_that_require_grad():
    w = E.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=E.float64, requires_grad=True)
    x = E.tensor([0.3, -0.7], dtype=E.float64)

    def f(inp):
        return E.tanh(w @ inp)

    J = jacrev(f)(x)  # d tanh(Wx)/dx = diag(1 - tanh^2) W, a function of W
    assert J.requires_grad
    J.pow(2).sum().backward()
    wn, xn = w.detach().numpy(), x.numpy()

    def penalty(m):
        t = np.tanh(m @ xn)
        return (((1 - t ** 2)[:, None] * m) ** 2).sum()

    eps, num = 1e-6, np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            d = np.zeros((2, 2))
            d[i, j] = eps
            num[i, j] = (penalty(wn + d) - penalty(wn - d)) / (2 * eps)
    np.testing.assert_allclose(w.grad.numpy(), num, rtol=1e-6)
    g = grad(lambda inp: f(inp).sum())(x)
    out, fn = vjp(f, x)
    assert g.requires_grad and out.requires_grad and fn(E.ones(2, dtype=E.float64))[0].requires_grad
    with E.no_grad():  # under no_grad nothing is kept
        assert not jacrev(f)(x).requires_grad
    assert not jacrev(lambda inp: E.tanh(inp * 2))(x).requires_grad  # no outer leaf: a plain result


def test_vjp_jvp_linearize_and_jacobians_against_the_analytic_jacobian():
    a = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])

    def f(x):
        return E.tensor(a) @ x.sin()

    x0 = np.array([0.3, -0.7, 1.1])
    jac = a * np.cos(x0)
    x = t(x0)
    np.testing.assert_allclose(jacrev(f)(x).numpy(), jac, rtol=1e-12)
    np.testing.assert_allclose(jacfwd(f)(x).numpy(), jac, rtol=1e-12)
    out, fn = vjp(f, x)
    np.testing.assert_allclose(out.numpy(), a @ np.sin(x0))
    (g,) = fn(t([1.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), np.array([1.0, 2.0]) @ jac)
    v = np.array([0.5, 1.0, -2.0])
    out, tangent = jvp(f, (x,), (t(v),))
    np.testing.assert_allclose(tangent.numpy(), jac @ v, rtol=1e-12)
    _, jfn = linearize(f, x)
    np.testing.assert_allclose(jfn(t(v)).numpy(), jac @ v, rtol=1e-12)
    # two inputs: a tuple of Jacobians, shaped output + input
    j0, j1 = jacrev(lambda p, q: p * q.sum(), argnums=(0, 1))(t([1.0, 2.0]), t([3.0, 4.0, 5.0]))
    assert tuple(j0.shape) == (2, 2) and tuple(j1.shape) == (2, 3)
    np.testing.assert_allclose(j0.numpy(), 12 * np.eye(2))
    np.testing.assert_allclose(j1.numpy(), [[1, 1, 1], [2, 2, 2]])


def test_vmap_matches_a_loop_with_in_dims_out_dims_and_nested_outputs():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 4))
    got = vmap(E.dot, in_dims=(0, 1))(t(a), t(b))
    np.testing.assert_allclose(got.numpy(), np.einsum("ij,ji->i", a, b))
    got = vmap(lambda x, s: (x * s, x.sum()), in_dims=(1, None), out_dims=(1, 0))(t(b), t([2.0]))
    np.testing.assert_allclose(got[0].numpy(), b * 2)
    np.testing.assert_allclose(got[1].numpy(), b.sum(0))
    # per-sample gradients: vmap of grad
    w = t([1.0, -2.0, 0.5])
    xs = t(a[:, :3])
    per = vmap(grad(lambda w, x: (w @ x) ** 2), in_dims=(None, 0))(w, xs)
    np.testing.assert_allclose(per.numpy(), 2 * (a[:, :3] @ w.numpy())[:, None] * a[:, :3])
    # nested vmap is an outer product; an empty batch keeps f's output shape
    np.testing.assert_allclose(vmap(vmap(lambda x, y: x * y, in_dims=(None, 0)), in_dims=(0, None))(
        t([1.0, 2.0]), t([3.0, 4.0, 5.0])).numpy(), np.outer([1, 2], [3, 4, 5]))
    assert tuple(vmap(lambda x: x.sum(0, keepdim=True))(E.ones(0, 3)).shape) == (0, 1)


@pytest.mark.parametrize("draw", [
    lambda p, q: E.multinomial(p, 2), lambda p, q: E.bernoulli(p), lambda p, q: E.bernoulli(p, 0.3),
    lambda p, q: E.normal(p, 1.0), lambda p, q: E.poisson(p), lambda p, q: E.binomial(E.ones(4), p),
])
def test_vmap_same_randomness_refuses_draws_from_a_mapped_tensor(draw):
    x = E.full((3, 4), 0.5)
    with pytest.raises(RuntimeError, match="^Vmap does not currently support same randomness with a batched tensor "
                                           "input. Please file an issue with functorch$"):
        vmap(draw, in_dims=(0, None), randomness="same")(x, E.ones(4))
    assert vmap(draw, in_dims=(0, None), randomness="different")(x, E.ones(4)).shape[0] == 3
    # an unmapped input and in-place draws into mapped tensors are PyTorch's "same" draws
    same = vmap(lambda p, q: draw(q.clone().fill_(0.5), q) + 0 * p[0], in_dims=(0, None), randomness="same")(
        x, E.ones(4))
    assert (same == same[0]).all()
    assert vmap(lambda p: p.clone().bernoulli_(0.3), randomness="same")(x).shape == (3, 4)


_UNBATCHED_FILL = ("vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear like "
                   "same randomness. If this is necessary for your usage, please file an issue with functorch.")


@pytest.mark.parametrize("fill", [
    lambda t: t.normal_(), lambda t: t.uniform_(), lambda t: t.bernoulli_(0.5), lambda t: t.exponential_(),
    lambda t: t.random_(3), lambda t: t.cauchy_(), lambda t: t.log_normal_(), lambda t: t.geometric_(0.5),
])
def test_vmap_different_randomness_refuses_in_place_draws_into_unmapped_tensors(fill):
    x = E.ones(3, 4)
    with pytest.raises(RuntimeError) as info:
        vmap(lambda v: v + fill(E.empty(4)), randomness="different")(x)
    assert str(info.value) == _UNBATCHED_FILL
    # a tensor made like a mapped one is mapped (PyTorch's batching rules), so each sample fills its own
    for make in (E.empty_like, E.zeros_like, E.ones_like, lambda v: E.full_like(v, 2.0), lambda v: v.new_empty(4),
                 lambda v: v.new_zeros(4), lambda v: v.new_ones(4), lambda v: v.new_full((4,), 2.0), E.rand_like,
                 E.randn_like, lambda v: v.clone()):
        out = vmap(lambda v: fill(make(v)), randomness="different")(x)
        assert out.shape == (3, 4)
    assert vmap(lambda v: v + fill(E.empty(4)), randomness="same")(x).shape == (3, 4)  # "same": one draw, allowed


def test_vmap_in_place_bernoulli_with_a_mapped_probability():
    x = E.full((3, 4), 0.5)
    with pytest.raises(RuntimeError, match=r"^vmap: inplace bernoulli\(self, \*extra_args\) is not possible because "
                                           r"there exists a Tensor `other` in extra_args that has more elements than "
                                           r"`self`. .* instead of inplace bernoulli. "):
        vmap(lambda p: E.empty(4).bernoulli_(p), randomness="different")(x)
    with pytest.raises(RuntimeError, match="^Vmap does not currently support same randomness with a batched tensor"):
        vmap(lambda p: E.empty(4).bernoulli_(p), randomness="same")(x)


def test_vmap_writes_into_a_tensor_made_like_a_mapped_one():
    buf = vmap(lambda v: E.zeros_like(v).copy_(v * 2))(E.arange(6.0).reshape(3, 2))
    np.testing.assert_array_equal(buf.numpy(), np.arange(6.0).reshape(3, 2) * 2)
    # under "same" randomness rand_like draws one unmapped tensor, so adding a mapped value into it is refused
    x = E.ones(3, 4)
    assert vmap(lambda v: E.rand_like(v).add_(v), randomness="different")(x).shape == (3, 4)
    with pytest.raises(RuntimeError):
        vmap(lambda v: E.rand_like(v).add_(v), randomness="same")(x)


def test_vmap_randomness_modes():
    x = E.zeros(4, 2)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        vmap(lambda v: v + E.rand(2))(x)
    E.manual_seed(3)
    same = vmap(lambda v: v + E.rand(2), randomness="same")(x)
    assert all(same[i].tolist() == same[0].tolist() for i in range(4))
    diff = vmap(lambda v: v + E.rand(2), randomness="different")(x)
    assert diff[0].tolist() != diff[1].tolist()


def test_errors_match_pytorch():
    with pytest.raises(RuntimeError, match=r"Expected f\(\*args\) to return a scalar Tensor, got tensor with 1 dims"):
        grad(lambda x: x * 2)(E.ones(3))
    with pytest.raises(RuntimeError, match="Got argnum=1, but only 1 positional inputs"):
        grad(lambda x: x.sum(), argnums=1)(E.ones(3))
    with pytest.raises(ValueError, match="Got in_dim=0 for an input but the input is of type <class 'float'>"):
        vmap(lambda x, y: x * y)(E.ones(3), 2.0)
    with pytest.raises(ValueError, match=r"got sizes \[3, 4\] for the mapped dimension"):
        vmap(lambda x, y: x + y)(E.ones(3, 2), E.ones(4, 2))
    with pytest.raises(ValueError, match=r"Got in_dim=2 for some input, but that input is a Tensor of dimensionality "
                                         r"2 so expected in_dim to satisfy -2 <= in_dim < 2"):
        vmap(lambda x: x, in_dims=2)(E.ones(3, 2))
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'float'>"):
        vmap(lambda x: 1.0)(E.ones(3, 2))
    with pytest.raises(ValueError, match="expected `in_dims` to be int or a"):
        vmap(lambda x: x, in_dims=None)(E.ones(3, 2))
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(lambda x: x, randomness="sometimes")
    jac = jacfwd(E.sin, randomness="x")  # PyTorch's jacfwd checks it when called, in its vmap over the basis
    with pytest.raises(RuntimeError, match="^Only allowed values for randomness are 'error', 'different', or "
                                           "'same'. Got x$"):
        jac(E.ones(2))


@pytest.mark.torch
def test_against_torch_func():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    w, xs = rng.standard_normal((3, 2)), rng.standard_normal((5, 3))

    def ours(w, x):
        return E.tanh(x @ w).pow(2).sum()

    def theirs(w, x):
        return torch.tanh(x @ w).pow(2).sum()

    a = vmap(grad(ours), in_dims=(None, 0))(t(w), t(xs)).numpy()
    b = torch.func.vmap(torch.func.grad(theirs), in_dims=(None, 0))(torch.tensor(w), torch.tensor(xs)).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-12)
    h1 = hessian(lambda x: ours(t(w), x))(t(xs[0])).numpy()
    h2 = torch.func.hessian(lambda x: theirs(torch.tensor(w), x))(torch.tensor(xs[0])).numpy()
    np.testing.assert_allclose(h1, h2, rtol=1e-10, atol=1e-12)


def test_vmap_refuses_reading_python_values_of_mapped_tensors_as_pytorch():
    x = E.ones(3, 2)
    with pytest.raises(RuntimeError, match=r"^vmap: It looks like you're calling \.item\(\) on a Tensor\. We don't"):
        vmap(lambda a: a.sum().item())(x)
    with pytest.raises(RuntimeError, match=r"^vmap: It looks like you're calling \.item\(\)"):
        vmap(lambda a: float(a[0]))(x)
    with pytest.raises(RuntimeError, match=r"^vmap: It looks like you're attempting to use a Tensor in some "
                                           r"data-dependent control flow"):
        vmap(lambda a: a * 2 if a.sum() > 0 else a)(x)
    with pytest.raises(RuntimeError, match="^Cannot access data pointer of Tensor that doesn't have storage$"):
        vmap(lambda a: a.tolist())(x)
    scale = E.tensor(2.0)  # an unmapped tensor's value may be read; so may ember's own code read mapped ones
    assert vmap(lambda a: E.cross_entropy(a.unsqueeze(0), E.tensor([1])) * scale.item())(x).shape == (3,)
    assert vmap(lambda a: a.sum())(x).tolist() == [2.0, 2.0, 2.0]  # the record ends with the call


def test_vmap_refuses_dynamic_shape_ops_as_pytorch_even_when_shapes_agree():
    x = E.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 4.0]])
    msg = r"^vmap: We do not support batching operators that can output dynamic shape\. Attempted to vmap over " \
          r"aten::{}\."
    for fn, aten in [(E.unique, "_unique2"), (lambda a: a.unique(return_counts=True)[1], "_unique2"),
                     (lambda a: E.unique(a[None], dim=1), "unique_dim"), (E.unique_consecutive, "unique_consecutive"),
                     (E.nonzero, "nonzero"), (lambda a: a.nonzero(), "nonzero"),
                     (lambda a: E.where(a > 0)[0], "where")]:
        with pytest.raises(RuntimeError, match=msg.format(aten)):
            vmap(fn)(x)
    with pytest.raises(RuntimeError, match=r"^Batching rule not implemented for aten::nonzero_numpy\."):
        vmap(lambda a: E.nonzero(a, as_tuple=True)[0])(x)
    assert vmap(E.argwhere)(x).tolist() == [[[0], [2]], [[1], [2]]]  # PyTorch batches argwhere
    for fn in (lambda a: a.masked_select(a > 0), lambda a: E.masked_select(E.ones(3), a > 0)):
        with pytest.raises(RuntimeError, match=r"^vmap: Attempted to vmap over `mask` in torch\.masked_select\(self, "
                                               r"mask\) We cannot support this"):
            vmap(fn)(x)
    with pytest.raises(RuntimeError, match=r"^vmap: We do not support batching operators that can support dynamic "
                                           r"shape\. Attempting to batch over indexing with a boolean mask\.$"):
        vmap(lambda a: a[a > 0])(x)
    with pytest.raises(RuntimeError, match="Attempting to batch over indexing with a boolean mask"):
        vmap(lambda a: a[a[:, 0] > 0])(E.ones(2, 3, 4))  # a mask over some of the dims (through nonzero)
    keep = E.tensor([True, False, True])
    assert vmap(lambda a: E.masked_select(a, keep))(x).tolist() == [[1.0, 2.0], [0.0, 4.0]]  # an unmapped mask
    assert vmap(lambda a: a[keep])(x).tolist() == [[1.0, 2.0], [0.0, 4.0]]
    mask = E.tensor([1.0, 0.0, 1.0])
    assert vmap(lambda a: a + E.nonzero(mask).sum())(x).tolist() == [[3.0, 2.0, 4.0], [2.0, 5.0, 6.0]]  # unmapped


def test_vmap_refuses_writing_mapped_values_into_an_unmapped_tensor_as_pytorch():
    x = E.arange(6.0).reshape(2, 3)
    advice = ("(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has "
              "more elements than `self`. This happened due to `other` being vmapped over but `self` not being "
              "vmapped over {}. Please try to use out-of-place operators instead of {}. If said operator is being "
              "called inside the PyTorch framework, please file a bug report instead.")

    def into_zeros(write):
        def f(r):
            z = E.zeros(3)
            write(z, r)
            return z
        return f

    def setitem(z, r):
        z[:] = r

    def masked_setitem(z, r):
        z[r > 2] = 5.0

    arithmetic = "vmap: inplace arithmetic" + advice.format("in a vmap", "inplace arithmetic")
    cases = [(lambda z, r: z.copy_(r), arithmetic), (setitem, arithmetic), (lambda z, r: z.mul_(r), arithmetic),
             (lambda z, r: z.masked_fill_(r > 2, 1.0), arithmetic),
             (masked_setitem, "vmap: index_put_" + advice.format("in a vmap", "index_put_")),
             (lambda z, r: z.clamp_(min=r), "vmap: aten::clamp_" + advice.format("at level 1", "aten::clamp_")),
             (lambda z, r: z.add_(r), "output with shape [3] doesn't match the broadcast shape [2, 3]"),
             (lambda z, r: E.add(z, r, out=z), "Batching rule not implemented for aten::add.out; the fallback "
                                                "path doesn't work on out= or view ops.")]
    for write, message in cases:
        with pytest.raises(RuntimeError) as info:
            vmap(into_zeros(write))(x)
        assert str(info.value) == message
    # writes into mapped tensors, and ember's own composites filling fresh buffers, are allowed
    np.testing.assert_allclose(vmap(lambda r: r.clone().add_(E.ones(3)))(x).numpy(), x.numpy() + 1)
    np.testing.assert_allclose(vmap(lambda r: E.cat([r, r]).sum())(x).numpy(), 2 * x.numpy().sum(1))
    np.testing.assert_allclose(vmap(lambda r: E.pad(r, (1, 1)))(x).numpy(), np.pad(x.numpy(), ((0, 0), (1, 1))))
    np.testing.assert_allclose(vmap(lambda r: E.diag_embed(r))(x).numpy(), [np.diag(row) for row in x.numpy()])


def test_has_aux_and_output_errors_name_the_call_as_pytorch():
    x = E.ones(2)
    cases = [(lambda: grad(lambda t: t.sum(), has_aux=True)(x), "grad_and_value(f)(*args)"),
             (lambda: grad(lambda t: [t.sum(), 1], has_aux=True)(x), "grad_and_value(f)(*args)"),
             (lambda: vjp(lambda t: t * 2, x, has_aux=True), "vjp(f, *primals)"),
             (lambda: jacrev(lambda t: t * 2, has_aux=True)(x), "vjp(f, *primals)"),
             (lambda: jacfwd(lambda t: t * 2, has_aux=True)(x), "jvp(f, primals, tangents)")]
    for fn, call in cases:
        with pytest.raises(RuntimeError, match=re.escape(f"{call}: output of function f should be a tuple: (output, "
                                                         "aux) if has_aux is True")):
            fn()
    with pytest.raises(RuntimeError, match=re.escape("Expected f(*args) to return a Tensor, got <class 'float'>")):
        grad(lambda t: t.sum().item())(x)


def test_vmap_in_dims_structure_mismatch_prints_pytorchs_treespecs():
    """in_dims must mirror the inputs' structure (an int or None covers a subtree); the error shows both as
    PyTorch's TreeSpec reprs."""
    x = E.ones(2, 3)
    expected = ("vmap(<lambda>, in_dims=(0, [0]), ...)(<inputs>): in_dims is not compatible with the structure of "
                "`inputs`. in_dims has structure TreeSpec(tuple, None, [*,\n  TreeSpec(list, None, [*])]) but inputs "
                "has structure TreeSpec(tuple, None, [*,\n  *]).")
    with pytest.raises(ValueError) as info:
        vmap(lambda a, b: a + b, in_dims=(0, [0]))(x, x)
    assert str(info.value) == expected
    with pytest.raises(ValueError, match=r"in_dims has structure TreeSpec\(tuple, None, \[\*\]\) but inputs"):
        vmap(lambda a, b: a + b, in_dims=(0,))(x, x)
    out = vmap(lambda a, d: a + d["u"] * d["v"], in_dims=(0, {"u": 1, "v": None}))(x, {"u": x.t(), "v": 2.0})
    assert out.tolist() == [[3.0] * 3] * 2


def test_vmap_refuses_filling_a_mapped_value_into_an_unmapped_tensor():
    # PyTorch 2.13's words; a mapped tensor filled with its own mapped value, or any tensor with an unmapped one, works
    with pytest.raises(RuntimeError, match=re.escape(
            "vmap: fill_(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that "
            "has more elements than `self`. This happened due to `other` being vmapped over but `self` not being "
            "vmapped over in a vmap. Please try to use out-of-place operators instead of fill_.")):
        vmap(lambda r: E.zeros(3).fill_(r[0]))(E.ones(2, 3))
    x = E.arange(6.0).reshape(2, 3)
    assert vmap(lambda r: r.clone().fill_(r[0]))(x).tolist() == [[0.0] * 3, [3.0] * 3]
    assert vmap(lambda r: E.zeros(3).fill_(E.tensor(2.0)))(x).tolist() == [[2.0] * 3] * 2


_CAPTURED = ("During a grad (vjp, jvp, grad, etc) transform, the function provided attempted to call in-place "
             "operation ({}) that would mutate a captured Tensor. This is not supported; please rewrite the function "
             "being transformed to explicitly accept the mutated Tensor(s) as inputs.")


@pytest.mark.parametrize("write, aten", [
    (lambda buf, w: buf.add_(1), "aten::add_.Tensor"), (lambda buf, w: buf.mul_(2), "aten::mul_.Tensor"),
    (lambda buf, w: buf.copy_(w), "aten::copy_"), (lambda buf, w: buf.fill_(1.0), "aten::fill_.Scalar"),
    (lambda buf, w: buf[0:2].add_(1), "aten::add_.Tensor"), (lambda buf, w: buf.__setitem__(0, 1.0), "aten::copy_")])
def test_grad_refuses_writing_into_a_captured_tensor(write, aten):
    # PyTorch 2.13's words; the captured tensor is left as it was
    buf, w = E.zeros(3), E.ones(3)
    with pytest.raises(RuntimeError, match=re.escape(_CAPTURED.format(aten))):
        grad(lambda w: (write(buf, w) or buf * w).sum())(w)
    with pytest.raises(RuntimeError, match=re.escape(_CAPTURED.format(aten))):
        vjp(lambda w: write(buf, w) or buf * w, w)
    with pytest.raises(RuntimeError, match=re.escape(_CAPTURED.format(aten))):
        jvp(lambda w: write(buf, w) or buf * w, (w,), (w,))
    assert buf.tolist() == [0.0, 0.0, 0.0]


def test_grad_lets_the_function_write_into_what_it_makes():
    def f(w):
        t, e, a = E.zeros(3), E.empty(3), E.arange(3.0)
        t.add_(w)
        e.copy_(w)
        e[0] = 5.0
        a += w
        w2 = w.clone()
        w2.mul_(2)
        return (t + e + a + w2).sum()

    assert grad(f)(E.ones(3)).tolist() == [4.0, 5.0, 5.0]


def test_argnums_checked_with_pytorchs_messages():
    f = lambda x, y: (x * y).sum()  # noqa: E731
    cases = [((), "argnums must be non-empty"),
             (0.5, "argnums must be int or Tuple[int, ...], got: <class 'float'>"),
             ((0.5,), "argnum must be int, got: <class 'float'>"),
             ((0, 0), "argnums elements must be unique, got (0, 0)"),
             (-3, "Got argnum=-3, but only 2 positional inputs")]
    for argnums, msg in cases:
        for transform in (grad, jacrev):
            with pytest.raises(RuntimeError) as e:
                transform(f, argnums=argnums)(E.ones(2), E.ones(2))
            assert str(e.value) == msg


def test_vmap_out_dims_out_of_range_is_pytorchs_index_error():
    for out_dims, msg in [(3, "[-2, 1], but got 3"), (-3, "[-2, 1], but got -3")]:
        with pytest.raises(IndexError) as e:
            vmap(lambda r: r, out_dims=out_dims)(E.ones(3, 2))
        assert str(e.value) == f"Dimension out of range (expected to be in range of {msg})"
    assert vmap(lambda r: r, out_dims=-2)(E.ones(3, 2)).shape == (3, 2)


def test_non_tensor_outputs_refused_with_pytorchs_messages():
    vjp_msg = "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type <class 'float'>"
    jvp_msg = ("jvp(f, primals, tangents): expected f(*primals) to return only tensors, got unsupported type "
               "<class 'int'>")
    calls = [(lambda: vjp(lambda t: 3.0, E.ones(2)), vjp_msg),
             (lambda: jacrev(lambda t: (t, 3.0))(E.ones(2)), vjp_msg),
             (lambda: hessian(lambda t: 3.0)(E.ones(2)), vjp_msg),
             (lambda: jvp(lambda t: 3, (E.ones(2),), (E.ones(2),)), jvp_msg),
             (lambda: jacfwd(lambda t: [t, 3])(E.ones(2)), jvp_msg)]
    for call, msg in calls:
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == msg


def test_jacrev_refuses_a_chunk_size_below_one():
    for bad in (0, -2):
        with pytest.raises(ValueError, match="jacrev: `chunk_size` should be greater than 0."):
            jacrev(lambda t: t, chunk_size=bad)
    assert jacrev(lambda t: t * 2, chunk_size=1)(E.ones(2)).tolist() == [[2.0, 0.0], [0.0, 2.0]]


def test_jvp_and_vjp_structure_errors_are_pytorchs():
    a = E.ones(3)
    with pytest.raises(RuntimeError) as e:
        jvp(E.mul, (a, a), (a,))
    assert str(e.value) == ("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                            "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                            "primals with structure TreeSpec(tuple, None, [*,\n  *]) and tangents with structure "
                            "TreeSpec(tuple, None, [*])")
    with pytest.raises(RuntimeError, match=r"Got primals with structure TreeSpec\(tuple, None, \[\*\]\) and tangents "
                                           r"with structure \*$"):
        jvp(E.sin, (a,), a)
    _, fn = vjp(lambda t: (t, t.sum()), a)
    with pytest.raises(RuntimeError) as e:
        fn((a,))
    assert str(e.value) == ("Expected pytree structure of cotangents to be the same as pytree structure of outputs to "
                            "the function. cotangents: (*,), primal output: (*, *)")
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of \w+\.Size\(\[4\]\) "
                                           r"and output\[0\] has a shape of \w+\.Size\(\[3\]\)\.$"):
        fn((E.ones(4), E.tensor(1.0)))


def test_forward_over_reverse_hvp_through_recomputed_double_backwards():
    # jvp(grad(f)) differentiates the double backward of cross_entropy/layer_norm once more (third order)
    from ember.core.dispatch import get_op

    x = E.tensor(np.random.default_rng(0).standard_normal(8), dtype=E.float64)
    v = E.tensor(np.random.default_rng(1).standard_normal(8), dtype=E.float64)
    w = E.tensor([0.5, -1.0, 2.0, 1.5], dtype=E.float64)
    fs = [lambda t: E.cross_entropy(t.view(2, 4), E.tensor([0, 3])),
          lambda t: E.cross_entropy(t.view(2, 4), E.full((2, 4), 0.25, dtype=E.float64), label_smoothing=0.1),
          lambda t: (get_op("layer_norm")(t.view(2, 4), (4,), w, w, 1e-5)[0] ** 2 * w).sum()]
    for f in fs:
        hv = jvp(grad(f), (x,), (v,))[1]
        np.testing.assert_allclose(hv.numpy(), (hessian(f)(x) @ v).numpy(), rtol=1e-9, atol=1e-12)


def test_jacfwd_runs_f_as_under_vmap():
    # PyTorch's jacfwd vmaps f: a custom Function needs a vmap rule, a random op needs a randomness flag
    from ember.autograd import Function

    class Sq(Function):
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            return 2 * g * ctx.saved_tensors[0]

    for transform in (jacfwd(Sq.apply), hessian(lambda t: Sq.apply(t).sum())):
        with pytest.raises(RuntimeError, match="You tried to vmap over Sq, but it does not have vmap support"):
            transform(E.ones(2))
    assert jacrev(Sq.apply)(E.ones(2)).tolist() == [[2.0, 0.0], [0.0, 2.0]]
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode"):
        jacfwd(lambda t: t * E.rand(()))(E.ones(2))
    assert jacfwd(lambda t: t * E.rand(()), randomness="same")(E.ones(2)).shape == (2, 2)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', 'different', or 'same'. "
                                           "Got x"):
        jacfwd(lambda t: t, randomness="x")(E.ones(2))  # checked when called, as PyTorch's vmap over the basis


def test_jvp_of_a_jacrev_returns_plain_tensors_unless_a_parameter_is_reached():
    """An inner jacrev keeps its graph to its own fresh leaf; that leaf is no outside parameter, so jvp's results
    do not require grad (a loop of computed-torque steps must not grow a graph), as PyTorch's."""
    x = E.tensor([0.5, -1.0], dtype=E.float64)
    t = E.tensor([1.0, 2.0], dtype=E.float64)
    out, tangent = jvp(lambda q: jacrev(lambda v: (v * v * q.cos()).sum())(t), (x,), (t,))
    assert not out.requires_grad and not tangent.requires_grad
    np.testing.assert_allclose(tangent.numpy(), (-2 * t * x.sin() * t).numpy())
    w = E.tensor([2.0, 3.0], dtype=E.float64, requires_grad=True)
    _, tangent = jvp(lambda q: jacrev(lambda v: (v * v * q.cos() * w).sum())(t), (x,), (t,))
    tangent.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), (-2 * t * x.sin() * t).numpy())


def test_an_inner_transform_still_differentiates_through_the_enclosing_transforms_input():
    x0 = E.tensor([0.5, -1.0], dtype=E.float64)
    t = E.tensor([1.0, 2.0], dtype=E.float64)
    g = grad(lambda x: jvp(lambda y: (y * x).sin(), (x0,), (t,))[1].sum())(x0)
    # d/dx sum(cos(x0 * x) * x * t) at x = x0
    ref = (-(x0 * x0).sin() * x0 * x0 * t + (x0 * x0).cos() * t).numpy()
    np.testing.assert_allclose(g.numpy(), ref)


@pytest.mark.parametrize("transform", ["jvp", "jacfwd", "hessian"])
def test_forward_transforms_refuse_grid_sample_as_pytorch(transform):
    # PyTorch has no forward derivative for grid_sampler; ember's double-vjp jvp would compute one
    img = E.ones(1, 1, 3, 3)
    grid = E.zeros(1, 1, 1, 2)

    def f(p):
        return E.grid_sample(img, p, align_corners=True).sum()

    with pytest.raises(NotImplementedError, match="^Trying to use forward AD with grid_sampler_2d that does not"):
        if transform == "jvp":
            jvp(f, (grid,), (E.ones(1, 1, 1, 2),))
        else:
            {"jacfwd": jacfwd, "hessian": hessian}[transform](f)(grid)
    assert jacrev(f)(grid).shape == (1, 1, 1, 2)


def test_vmap_different_randomness_draws_randn_for_the_whole_batch():
    # PyTorch's batched randn is one (B, *shape) draw; its vectorised normal fill (16 values at a time) gives other
    # numbers than B fills of 24, so per-sample draws would not be PyTorch's
    E.manual_seed(1)
    got = vmap(lambda _: E.randn(8, 3) * 2 + E.randn(3), randomness="different")(E.arange(5))
    E.manual_seed(1)
    first, second = E.randn(5, 8, 3), E.randn(5, 3)
    np.testing.assert_array_equal(got.numpy(), (first * 2 + second[:, None, :]).numpy())
    E.manual_seed(1)
    like = vmap(lambda x: E.randn_like(x), randomness="different")(E.zeros(6, 4))
    E.manual_seed(1)
    np.testing.assert_array_equal(like.numpy(), E.randn(6, 4).numpy())
    E.manual_seed(5)
    drawn = vmap(lambda _: E.normal(2.0, 0.5, size=(4, 5)), randomness="different")(E.arange(3))
    E.manual_seed(5)
    np.testing.assert_array_equal(drawn.numpy(), E.normal(2.0, 0.5, size=(3, 4, 5)).numpy())


def test_vmap_randn_outside_different_randomness_is_unchanged():
    E.manual_seed(2)
    same = vmap(lambda _: E.randn(20), randomness="same")(E.arange(3))
    E.manual_seed(2)
    np.testing.assert_array_equal(same.numpy(), np.broadcast_to(E.randn(20).numpy(), (3, 20)))
    E.manual_seed(3)  # a nested vmap draws per inner sample; the shapes are still right
    nested = vmap(vmap(lambda _: E.randn(4), randomness="different"), randomness="different")(E.zeros(2, 3))
    assert nested.shape == (2, 3, 4)
    E.manual_seed(4)
    plain = E.randn(17)
    E.manual_seed(4)
    np.testing.assert_array_equal(E.randn(17).numpy(), plain.numpy())


@pytest.mark.parametrize("transform", ["jvp", "jacfwd"])
def test_forward_transforms_sample_a_parameter_that_carries_no_tangent(transform):
    """Only a tensor computed from the transform's inputs carries its tangent: grid_sample of a closed-over
    parameter that requires grad runs, as PyTorch's (its tangent is zero there)."""
    param = E.arange(9.0).reshape(1, 1, 3, 3).requires_grad_()
    grid = E.zeros(1, 1, 1, 2)

    def f(x):
        return (x * 2).sum() + E.grid_sample(param, grid, align_corners=True).sum()

    x = E.ones(3)
    if transform == "jvp":
        out, t = jvp(f, (x,), (E.ones(3),))
        assert out.item() == 6.0 + 4.0 and t.item() == 6.0
    else:
        np.testing.assert_array_equal(jacfwd(f)(x).detach().numpy(), [2.0, 2.0, 2.0])


def test_forward_mode_jacobians_sign_structural_zeros_by_column_as_pytorchs():
    x, y = t([0.5, -2.0, 4.0]), t([1.0, 2.0, -3.0])
    # PyTorch's forward mode multiplies each column's one-hot tangent by sin(x): -0.0 fills the rows of the
    # negative entries (reverse mode would fill their columns)
    want = [[False, False, False], [True, True, True], [True, True, True]]
    for j in (jacfwd(lambda v: E.sin(x) * v)(y),
              E.autograd.functional.jacobian(lambda v: E.sin(x) * v, y, strategy="forward-mode", vectorize=True),
              hessian(lambda v: (E.sin(v) * v).sum())(y)):
        assert np.signbit(j.numpy()).tolist() == want
    np.testing.assert_allclose(np.diag(hessian(lambda v: (E.sin(v) * v).sum())(y).numpy()),
                               [0.2391, -2.6509, -2.4033], atol=1e-4)


def test_jacobians_refuse_complex_inputs_and_outputs_as_pytorchs():
    a, th = t([0.0, 2.0]), t([0.3, -1.0])
    with pytest.raises(RuntimeError, match="^jacfwd: Expected all outputs to be real but received complex tensor at "
                                           "flattened input idx: 0$"):
        jacfwd(E.polar, argnums=(0, 1))(a, th)
    with pytest.raises(RuntimeError, match="^jacrev: Expected all inputs to be real but received complex tensor at "
                                           "flattened input idx: 1$"):
        jacrev(lambda u, z: u * z.abs())(a, E.polar(a, th))


def test_jvp_primal_over_a_closed_over_tracked_tensor_is_an_alias_as_pytorchs():
    x = t([1.0, -2.0]).requires_grad_()
    w, ones = t([0.5, 3.0]), t([1.0, 1.0])
    (p, q), (tp, tq) = jvp(lambda v: (v * x, v + 1), (w,), (ones, ))
    assert p.grad_fn.name() == "AliasBackward0" and p._base is not None  # PyTorch's alias of the function's output
    assert q.grad_fn is None and not q.requires_grad  # an output that does not reach x is not tracked
    assert tp.requires_grad and not tq.requires_grad
    tp.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    x.grad = None
    p.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.5, 3.0])


def test_jvp_tangent_takes_the_wider_floating_dtype_of_the_tangents_as_pytorchs():
    """PyTorch 2.13: a float64 tangent of float32 primals gives a float64 output tangent (a float16 one keeps
    float32); the primal output keeps its dtype."""
    x = E.tensor([1.0, 2.0])
    o, jt = jvp(lambda v: (v * v).sin(), (x,), (E.tensor([1.0, 0.5], dtype=E.float64),))
    assert (o.dtype, jt.dtype) == (E.float32, E.float64)
    np.testing.assert_allclose(jt.numpy(), 2 * np.array([1.0, 1.0]) * np.cos([1.0, 4.0]), rtol=1e-6)
    assert jvp(lambda v: v, (x,), (E.tensor([1.0, 0.5], dtype=E.float64),))[1].dtype == E.float64
    assert jvp(lambda v: v.sum(), (x,), (E.tensor([1.0, 0.5], dtype=E.float16),))[1].dtype == E.float32


def test_jvp_refuses_integer_primals_and_tangents_before_their_sizes():
    with pytest.raises(ValueError, match="^Expected primal to be floating point or complex, but got: \\w+\\.int64$"):
        jvp(lambda v: v * 2, (E.tensor([1, 2]),), (t([1.0, 2.0]),))
    with pytest.raises(ValueError, match="^Expected tangent to be floating point or complex, but got: \\w+\\.int64$"):
        jvp(lambda v: v * 2, (t([1.0, 2.0]),), (E.tensor([1, 2, 3]),))
