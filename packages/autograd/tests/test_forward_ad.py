"""torch.autograd.forward_ad: tangents of dual tensors against finite differences and PyTorch,
and PyTorch's errors."""

import numpy as np
import pytest

import ember.autograd as torch
import ember.autograd.forward_ad as fwAD
from ember.autograd import Function, func, gradcheck
from ember.core import from_numpy


def _f(x, w):
    return (x.sin() * x).reshape(2, 3) @ w + x.reshape(2, 3).exp().sum(1, keepdim=True)


def _fd(f, x, t, eps=1e-6):
    """Central finite difference of f at x in direction t (float64)."""
    return (f(x + eps * t).numpy() - f(x - eps * t).numpy()) / (2 * eps)


def test_tangent_matches_finite_differences():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal(6))
    t = torch.tensor(rng.standard_normal(6))
    w = torch.tensor(rng.standard_normal((3, 3)))
    with fwAD.dual_level():
        y = _f(fwAD.make_dual(x, t), w)
        primal, tangent = fwAD.unpack_dual(y)
    np.testing.assert_allclose(primal.numpy(), _f(x, w).numpy(), rtol=1e-12)
    np.testing.assert_allclose(tangent.numpy(), _fd(lambda v: _f(v, w), x, t), rtol=1e-6, atol=1e-8)
    assert not primal.requires_grad and not tangent.requires_grad


OPS = {
    "conv2d": lambda v, w: torch.conv2d(v, w, padding=1),
    "max_pool2d": lambda v, w: torch.max_pool2d(v, 2),
    "log_softmax": lambda v, w: torch.log_softmax(v, 1),
    "layer_norm": lambda v, w: torch.layer_norm(v, (6,)),
    "batch_norm": lambda v, w: torch.batch_norm(v, None, None, training=True),
    "gelu": lambda v, w: torch.gelu(v),
    "attention": lambda v, w: torch.softmax(v @ v.transpose(-1, -2) / 6 ** 0.5, -1) @ v,
    "sort": lambda v, w: v.sort(-1)[0],
    "cumprod": lambda v, w: v.cumprod(-1),
    "inv": lambda v, w: torch.linalg.inv(v[..., :3, :3]),
    "eigvalsh": lambda v, w: torch.linalg.eigvalsh(v[..., :3, :3] + v[..., :3, :3].transpose(-1, -2)),
    "rfft_abs": lambda v, w: torch.fft.rfft(v).abs(),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_tangents_through_ops_match_finite_differences(name):
    rng = np.random.default_rng(2)
    x, t = torch.tensor(rng.standard_normal((2, 3, 6, 6))), torch.tensor(rng.standard_normal((2, 3, 6, 6)))
    w = torch.tensor(rng.standard_normal((4, 3, 3, 3)))
    f = OPS[name]
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(f(fwAD.make_dual(x, t), w)).tangent
    np.testing.assert_allclose(tangent.numpy(), _fd(lambda v: f(v, w), x, t), rtol=1e-5, atol=1e-6)


def test_tangents_of_two_duals_add():
    x, tx = torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([0.5, -1.0], dtype=torch.float64)
    w, tw = torch.tensor([3.0, -2.0], dtype=torch.float64), torch.tensor([1.0, 2.0], dtype=torch.float64)
    with fwAD.dual_level():
        y = fwAD.make_dual(x, tx) * fwAD.make_dual(w, tw)
        tangent = fwAD.unpack_dual(y).tangent
    np.testing.assert_allclose(tangent.numpy(), (tx * w + x * tw).numpy())


def test_dual_itself_returns_its_tangent_and_non_dependents_have_none():
    x, t = torch.randn(3), torch.randn(3)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        assert fwAD.unpack_dual(d).tangent is t
        assert fwAD.unpack_dual(x * 2).tangent is None
        assert fwAD.unpack_dual(d.detach()).tangent is None
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        np.testing.assert_array_equal(fwAD.unpack_dual(d.round()).tangent.numpy(), np.zeros(3))
    y = d * 2
    assert fwAD.unpack_dual(y).tangent is None  # the level closed: no tangents
    assert fwAD.unpack_dual(y).primal is y


def test_tangent_is_differentiable_when_it_requires_grad():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    t = torch.tensor([1.0, 1.0], dtype=torch.float64, requires_grad=True)
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(fwAD.make_dual(x, t) ** 3).tangent
    tangent.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), 3 * x.numpy() ** 2)


def test_tangent_and_primal_stay_differentiable_in_a_weight_that_requires_grad():
    # y = w * d with d = (x, t): the tangent w * t depends on w, as PyTorch's through a module's parameter
    w = torch.tensor([2.0, -3.0], dtype=torch.float64, requires_grad=True)
    x = torch.tensor([1.0, 4.0], dtype=torch.float64)
    t = torch.tensor([0.5, 1.0], dtype=torch.float64)
    with fwAD.dual_level():
        primal, tangent = fwAD.unpack_dual((w * fwAD.make_dual(x, t)).exp())
        assert primal.requires_grad and tangent.requires_grad
        tangent.sum().backward()
    # the tangent is exp(w x) w t, so d/dw of its sum is exp(w x) (1 + w x) t
    wx = w.detach().numpy() * x.numpy()
    np.testing.assert_allclose(w.grad.numpy(), np.exp(wx) * (1 + wx) * t.numpy())
    with fwAD.dual_level():
        primal, tangent = fwAD.unpack_dual(fwAD.make_dual(x, t) * 2)
    assert not primal.requires_grad and not tangent.requires_grad


def test_reverse_mode_flows_through_a_dual_of_a_tracked_primal():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(2))
        (d * d).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_in_place_writes_into_a_dual_are_refused():
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.ones(2))
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            d.mul_(3)
        tracked = fwAD.make_dual(torch.tensor([1.0, 2.0], requires_grad=True) * 1, torch.ones(2))
        tracked.mul_(3)
        with pytest.raises(RuntimeError, match="modified in place after make_dual"):
            fwAD.unpack_dual(tracked)


def test_dual_level_as_decorator():
    @fwAD.dual_level()
    def level():
        return fwAD._current_level

    assert level() == 0
    assert fwAD._current_level == -1


def test_errors_are_pytorchs():
    x = torch.randn(3)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, torch.randn(3))
    with pytest.raises(RuntimeError, match="Dual level must be a positive number"):
        fwAD.exit_dual_level()
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[3\] while the given forward gradient is of "
                                               r"size \[4\]"):
            fwAD.make_dual(x, torch.randn(4))
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex, but got"):
            fwAD.make_dual(torch.arange(3), torch.randn(3))
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex, but got"):
            fwAD.make_dual(x, torch.arange(3))
        with pytest.raises(RuntimeError, match="Invalid level given to _make_dual"):
            fwAD.make_dual(x, torch.randn(3), level=5)
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level 0"):
            fwAD.make_dual(fwAD.make_dual(x, torch.randn(3)), torch.randn(3))
        with pytest.raises(TypeError, match="must be Tensor, not float"):
            fwAD.unpack_dual(3.0)
        with pytest.raises(RuntimeError, match="not the last one that was created"):
            fwAD.exit_dual_level(level=3)
    assert fwAD._current_level == -1


@pytest.mark.torch
def test_matches_pytorch():
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    xs, ts, ws = rng.standard_normal(6), rng.standard_normal(6), rng.standard_normal((3, 3))
    with fwAD.dual_level():
        ours = fwAD.unpack_dual(_f(fwAD.make_dual(torch.tensor(xs), torch.tensor(ts)), torch.tensor(ws))).tangent
    rf = real.autograd.forward_ad
    with rf.dual_level():
        x = rf.make_dual(real.tensor(xs), real.tensor(ts))
        theirs = rf.unpack_dual((x.sin() * x).reshape(2, 3) @ real.tensor(ws)
                                + x.reshape(2, 3).exp().sum(1, keepdim=True)).tangent
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


class _ExpJvpOnly(Function):
    """exp with only a forward derivative, as the forward-mode AD tutorial's Fn."""

    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gx):
        out = gx * ctx.result
        del ctx.result
        return out


def test_custom_function_jvp_gives_the_output_tangent():
    x = from_numpy(np.linspace(-1.0, 1.0, 6)).requires_grad_()
    t = from_numpy(np.arange(6.0))
    with fwAD.dual_level():
        y = _ExpJvpOnly.apply(fwAD.make_dual(x, t)) * 2.0
        tangent = fwAD.unpack_dual(y).tangent
    np.testing.assert_allclose(tangent.detach().numpy(), 2.0 * np.exp(np.linspace(-1.0, 1.0, 6)) * np.arange(6.0))


def test_custom_function_without_jvp_raises_pytorch_message_and_gradcheck_uses_jvp():
    x = from_numpy(np.linspace(-1.0, 1.0, 4)).requires_grad_()
    assert gradcheck(_ExpJvpOnly.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                     check_undefined_grad=False, check_batched_grad=False)
    with pytest.raises(NotImplementedError, match="You must implement the jvp function for custom"):
        Function.jvp(None, x)


def test_func_jvp_errors_are_pytorchs():
    x = from_numpy(np.ones(3))
    with pytest.raises(RuntimeError, match=r"Expected primals to be a tuple\. E\.g\. it should be valid"):
        func.jvp(lambda u: u.sum(), [x], (x,))
    with pytest.raises(RuntimeError, match=r"Tensor is of size \[3\] while the given forward gradient is of size"):
        func.jvp(lambda u: u.sum(), (x,), (from_numpy(np.ones(2)),))


def test_a_wider_real_tangent_keeps_its_dtype_as_pytorchs():
    # PyTorch: make_dual keeps the tangent's dtype, and an op's tangent promotes it with the primal's
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.ones(2), torch.ones(2, dtype=torch.float64))
        assert fwAD.unpack_dual(d).tangent.dtype is torch.float64
        t = fwAD.unpack_dual(d * 3).tangent
        assert t.dtype is torch.float64 and t.tolist() == [3.0, 3.0]
        assert fwAD.unpack_dual(d.sin()).tangent.dtype is torch.float64
        h = fwAD.make_dual(torch.ones(2), torch.ones(2, dtype=torch.float16))
        assert fwAD.unpack_dual(h).tangent.dtype is torch.float16
        assert fwAD.unpack_dual(h.exp()).tangent.dtype is torch.float32


def _tangents_of_ops(mode):
    """The tangents of a few ops on a dual (x = linspace, t = arange), the ops run inside `mode`."""
    x = from_numpy(np.linspace(-1.0, 1.0, 6).reshape(2, 3))
    w = from_numpy(np.ones((4, 3))).requires_grad_()
    with fwAD.dual_level():
        with mode():
            d = fwAD.make_dual(x, from_numpy(np.arange(6.0).reshape(2, 3)))
            c = d.clone()
            c.mul_(3)
            e = torch.zeros(2, 3)
            e.add_(d)
            f = torch.zeros(2, 3)
            f[0].add_(d[0])
            outs = {"dual": d, "mul": d * 2, "exp": d.exp(), "view": d.view(3, 2), "t": d.t(), "mul_": c,
                    "add_ into a plain tensor": e, "add_ into a view": f, "mm": d @ w.t()}
            tangents = {k: fwAD.unpack_dual(y).tangent for k, y in outs.items()}
            plain = w * 2  # no tangent: recorded neither by forward AD nor (no_grad) by reverse mode
            assert fwAD.unpack_dual(plain).tangent is None and plain.requires_grad is (mode is torch.enable_grad)
    return tangents


def test_tangents_flow_under_no_grad_as_pytorchs():
    # PyTorch's forward AD does not depend on grad mode; its no_grad tangents do not require grad
    x, t = np.linspace(-1.0, 1.0, 6).reshape(2, 3), np.arange(6.0).reshape(2, 3)
    want = {"dual": t, "mul": 2 * t, "exp": np.exp(x) * t, "view": t.reshape(3, 2), "t": t.T, "mul_": 3 * t,
            "add_ into a plain tensor": t, "add_ into a view": np.vstack([t[0], np.zeros(3)]),
            "mm": t @ np.ones((3, 4))}
    got = _tangents_of_ops(torch.no_grad)
    assert set(got) == set(want)
    for k, v in want.items():
        np.testing.assert_allclose(got[k].detach().numpy(), v, err_msg=k)
    assert not got["mm"].requires_grad
    for k, v in _tangents_of_ops(torch.enable_grad).items():
        np.testing.assert_allclose(v.detach().numpy(), want[k], err_msg=k)


def test_inference_mode_drops_tangents_as_pytorchs():
    assert all(t is None for t in _tangents_of_ops(torch.inference_mode).values())


def test_an_open_level_turns_off_the_untracked_shortcut_only_while_open():
    # a composite computing without dispatching (`dispatch.untracked`) would drop a dual's tangent
    from ember.core import dispatch

    assert dispatch.untracked
    with fwAD.dual_level():
        assert not dispatch.untracked
    assert dispatch.untracked


def test_a_tensor_of_an_earlier_level_carries_no_tangent_in_a_later_one():
    x = from_numpy(np.ones(2))
    with fwAD.dual_level():
        y = fwAD.make_dual(x, from_numpy(np.ones(2))) * 2
    with fwAD.dual_level(), torch.no_grad():
        z = y.detach() * 3
        assert fwAD.unpack_dual(y * 3).tangent is None and fwAD.unpack_dual(z).tangent is None



def test_grid_sampler_refuses_forward_ad_as_pytorchs_missing_formula():
    """PyTorch 2.13 has no forward derivative for grid_sampler_2d/3d: an op on a dual raises when called."""
    from ember.core.ops.sampling import grid_sampler_op

    cases = ((torch.ones(1, 1, 3, 3), torch.zeros(1, 2, 2, 2), "grid_sampler_2d"),
             (torch.ones(1, 1, 2, 2, 2), torch.zeros(1, 1, 1, 2, 3), "grid_sampler_3d"))
    with fwAD.dual_level():
        for x, g, aten in cases:
            with pytest.raises(NotImplementedError, match=f"^Trying to use forward AD with {aten} that does not "
                                                          "support it because it has not been implemented yet."):
                grid_sampler_op(fwAD.make_dual(x, torch.ones_like(x)), g, 0, 0, True)
        assert fwAD.unpack_dual(grid_sampler_op(torch.ones(1, 1, 3, 3), torch.zeros(1, 2, 2, 2), 0, 0, True)).tangent \
            is None


def test_logcumsumexp_tangent_is_the_running_softmax_average_of_the_tangent():
    # d r_i = sum_{j <= i} softmax(x_{<=i})_j t_j; the backward's log|cotangent| made it NaN at a zero cotangent
    x = np.array([[0.5, -1.0], [0.0, 3.0], [2.0, 0.25], [-40.0, 1.0]])
    t = np.array([[1.0, 0.5], [2.0, -1.0], [1.0, 0.0], [3.0, 2.0]])
    want = np.stack([(np.exp(x[:i + 1]) * t[:i + 1]).sum(0) / np.exp(x[:i + 1]).sum(0) for i in range(4)])
    with fwAD.dual_level():
        y = fwAD.make_dual(torch.tensor(x), torch.tensor(t)).logcumsumexp(0)
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.numpy(), want, rtol=1e-12)


class _DoubleBackwardOnly(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_dual_input_of_a_function_without_jvp_raises_pytorchs_error():
    x = from_numpy(np.array([0.5, -1.0]))
    assert _DoubleBackwardOnly.apply(x.clone().requires_grad_()).grad_fn is not None  # no level: reverse mode works
    with fwAD.dual_level():
        plain = _DoubleBackwardOnly.apply(x)  # no tangent among the inputs: the Function runs
        np.testing.assert_allclose(plain.numpy(), [1.0, -2.0])
        with pytest.raises(NotImplementedError, match="^You must implement the jvp function for custom "
                                                      "autograd.Function to use it with forward mode AD.$"):
            _DoubleBackwardOnly.apply(fwAD.make_dual(x, from_numpy(np.ones(2))))


class _SquareWrongJvp(Function):
    """k x^2 + y whose `jvp` says 3 k x (its backward the true 2 k x): which of the two a transform used shows."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x, k, y):
        return x * x * k + y

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k, y = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        ctx.k = k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g * ctx.k, None, g

    @staticmethod
    def jvp(ctx, tx, tk, ty):
        (x,) = ctx.saved_tensors
        return 3 * x * tx * ctx.k + ty


_X = np.array([1.0, -2.0])
_Y = np.array([0.5, 0.5])


def _square(a):
    return _SquareWrongJvp.apply(a, 2.0, from_numpy(_Y))


def test_a_custom_jvp_gives_the_tangent_where_pytorch_calls_it():
    x, ones = from_numpy(_X), from_numpy(np.ones(2))
    with fwAD.dual_level():
        y = _square(fwAD.make_dual(x, ones))
        np.testing.assert_array_equal(fwAD.unpack_dual(y).tangent.numpy(), [6.0, -12.0])  # PyTorch's
        np.testing.assert_allclose(fwAD.unpack_dual((y * 2).sin()).tangent.numpy(), [3.4039, 6.6039], atol=1e-4)
    np.testing.assert_array_equal(func.jvp(_square, (x,), (ones,))[1].numpy(), [6.0, -12.0])
    np.testing.assert_array_equal(func.jacfwd(_square)(x).numpy(), [[6.0, 0.0], [0.0, -12.0]])
    np.testing.assert_array_equal(torch.autograd.functional.jacobian(
        _square, x, strategy="forward-mode", vectorize=True).numpy(), [[6.0, 0.0], [0.0, -12.0]])
    # reverse mode and the double-backward jvp keep using backward, as PyTorch's
    np.testing.assert_array_equal(torch.autograd.functional.jvp(_square, (x,), (ones,))[1].numpy(), [4.0, -8.0])
    np.testing.assert_array_equal(func.jacrev(_square)(x).numpy(), [[4.0, 0.0], [0.0, -8.0]])
    np.testing.assert_array_equal(func.hessian(lambda a: _square(a).sum())(x).numpy(), [[4.0, 0.0], [0.0, 4.0]])
    xr = x.clone().requires_grad_()
    with fwAD.dual_level():
        _square(fwAD.make_dual(xr, ones)).sum().backward()
    np.testing.assert_array_equal(xr.grad.numpy(), [4.0, -8.0])
    with pytest.raises(torch.autograd.GradcheckError,
                       match="^Jacobian computed with forward mode mismatch for output 0 with respect to input 0,"):
        gradcheck(_square, (xr,), check_forward_ad=True)


def test_jvp_gets_pytorchs_arguments_and_save_for_forward_tensors():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.save_for_backward(x * 10)
            ctx.save_for_forward(y, x)
            return x * k + y

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, g

        @staticmethod
        def jvp(ctx, tx, tk, ty):
            seen.update(tk=tk, ty=ty.numpy().tolist(), grad=torch.is_grad_enabled(),
                        saved=[(t.numpy().tolist(), t.requires_grad) for t in ctx.saved_tensors])
            return tx * 5

    y = from_numpy(np.array([7.0, 8.0]))
    with fwAD.dual_level():
        out = Probe.apply(fwAD.make_dual(from_numpy(_X), from_numpy(np.ones(2))), 2.0, y)
        np.testing.assert_array_equal(fwAD.unpack_dual(out).tangent.numpy(), [5.0, 5.0])
    # PyTorch: None for a non-tensor, zeros for a tensor without tangent, the save_for_forward tensors (a dual of an
    # untracked primal does not require grad), grad mode on
    assert seen == {"tk": None, "ty": [0.0, 0.0], "saved": [([7.0, 8.0], False), ([1.0, -2.0], False)], "grad": True}


def _jvp_of(jvp, forward=lambda ctx, x: x * 2):
    class F(Function):
        @staticmethod
        def backward(ctx, *g):
            return g[0] * 2

    F.forward, F.jvp = staticmethod(forward), staticmethod(jvp)
    with fwAD.dual_level():
        out = F.apply(fwAD.make_dual(from_numpy(_X), from_numpy(np.ones(2))))
        return [None if t is None else t.numpy().tolist()
                for t in (fwAD.unpack_dual(o).tangent for o in (out if isinstance(out, tuple) else (out,)))]


def _two(ctx, x):
    return x * 2, x * 3


def _with_mask(ctx, x):
    a, b = x * 2, x > 0
    ctx.mark_non_differentiable(b)
    return a, b


def _with_marked_float(ctx, x):
    a, b = x * 2, x * 3
    ctx.mark_non_differentiable(b)
    return a, b


@pytest.mark.parametrize("jvp, forward, message", [
    (lambda ctx, t: (t, t), None, "Function's jvp returned an invalid number of forward gradients (expected 1 but got "
                                  "2)"),
    (lambda ctx, t: (t,), _two, "Function's jvp returned an invalid number of forward gradients (expected 2 but got "
                                "1)"),
    (lambda ctx, t: t[:1], None, "Trying to set a forward gradient that has a different size than that of the "
                                 "original Tensor, this is not supported. Tensor is of size [2] while the given "
                                 "forward gradient is of size [1]."),
    (lambda ctx, t: 3, None, "expected Variable or None (got int) for grad output 0."),
    (lambda ctx, t: None, None, "Expected both tensor and its forward grad to be floating point or complex"),
    (lambda ctx, t: (t, t), _with_mask, "Function's jvp returned a gradient at position 1, but  the corresponding "
                                        "forward output is not a differentiable Tensor.You should return None at that "
                                        "position instead."),
    (lambda ctx, t: (t, t), _with_marked_float, "Function's jvp returned a gradient at position 1, but  the "
                                                "corresponding forward output is not a differentiable Tensor."),
])
def test_a_wrong_jvp_raises_pytorchs_error(jvp, forward, message):
    with pytest.raises(RuntimeError) as info:
        _jvp_of(jvp, forward or (lambda ctx, x: x * 2))
    assert message in str(info.value)


def test_jvp_results_pytorch_accepts():
    assert _jvp_of(lambda ctx, t: (t * 5,)) == [[5.0, 5.0]]  # a one-tuple for one output
    assert _jvp_of(lambda ctx, t: (t * 2, None), _with_mask) == [[2.0, 2.0], None]
    assert _jvp_of(lambda ctx, t: t[:1].expand(2)) == [[1.0, 1.0]]


def test_once_differentiable_backward_leaves_forward_mode_to_jvp():
    from ember.autograd.function import once_differentiable

    class Seven(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 7

    with fwAD.dual_level():
        out = Seven.apply(fwAD.make_dual(from_numpy(_X), from_numpy(np.ones(2))))
        np.testing.assert_array_equal(fwAD.unpack_dual(out).tangent.numpy(), [7.0, 7.0])  # PyTorch's


def test_transforms_refuse_a_function_without_jvp_as_pytorchs():
    class NoJvp(Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = from_numpy(_X)
    message = "^You must implement the jvp function for custom autograd.Function to use it with forward mode AD.$"
    for call in (lambda: func.jvp(NoJvp.apply, (x,), (x,)), lambda: func.jacfwd(NoJvp.apply)(x),
                 lambda: func.hessian(lambda a: NoJvp.apply(a).sum())(x),
                 lambda: torch.autograd.functional.jacobian(NoJvp.apply, x, strategy="forward-mode", vectorize=True)):
        with pytest.raises(NotImplementedError, match=message):
            call()
    np.testing.assert_array_equal(func.jacrev(NoJvp.apply)(x).numpy(), [[2.0, 0.0], [0.0, -4.0]])


def test_func_jvp_tangent_through_a_custom_jvp_stays_differentiable_in_a_closed_over_weight():
    w = from_numpy(np.array([3.0, 4.0])).requires_grad_()

    class Mul(Function):
        @staticmethod
        def forward(x, w):
            return x * w

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)
            ctx.save_for_forward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * w, g * x

        @staticmethod
        def jvp(ctx, tx, tw):
            x, w = ctx.saved_tensors
            return tx * w * 10 + tw * x

    _, t = func.jvp(lambda a: Mul.apply(a, w), (from_numpy(_X),), (from_numpy(np.ones(2)),))
    np.testing.assert_array_equal(t.detach().numpy(), [30.0, 40.0])  # PyTorch's: the jvp's, in grad mode
    assert t.requires_grad
    t.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [10.0, 10.0])


class _SoftClipTenfoldJvp(Function):
    """2 tanh(x / 2), whose backward reads the saved output and whose jvp is ten times the true one."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return 2.0 * (x / 2.0).tanh()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 - (y / 2.0) ** 2)

    @staticmethod
    def jvp(ctx, tx):
        (y,) = ctx.saved_tensors
        return tx * (1 - (y / 2.0) ** 2) * 10


def test_forward_over_reverse_takes_the_saved_outputs_tangent_from_jvp_as_pytorchs():
    x, t = from_numpy(np.array([0.3, -1.2, 2.0])), from_numpy(np.array([1.0, 0.5, -1.0]))

    def f(a):
        return _SoftClipTenfoldJvp.apply(a).pow(2).sum()

    want = [18.2561, 0.9587, 6.2163]  # PyTorch's: the backward's saved output carries the jvp's tangent
    np.testing.assert_allclose(func.jvp(func.grad(f), (x,), (t,))[1].numpy(), want, atol=1e-4)
    with fwAD.dual_level():
        np.testing.assert_allclose(fwAD.unpack_dual(func.grad(f)(fwAD.make_dual(x, t))).tangent.numpy(), want,
                                   atol=1e-4)
    for h in (func.hessian(f)(x), func.jacrev(func.jacfwd(f))(x)):
        np.testing.assert_allclose(np.diag(h.numpy()), [18.2561, 1.9175, -6.2163], atol=1e-4)


def _as_is(ctx, x):
    return x


def _viewed(ctx, x):
    return x.view(2, 1)


@pytest.mark.parametrize("forward, jvp, message", [
    (_as_is, lambda ctx, t: t * 2, "A custom Function's forward is returning a view (or an input as-is) but the jvp "
                                   "is not returning a view."),
    (_as_is, lambda ctx, t: t, "A custom Function's forward is returning a view (or an input as-is) but the jvp is "
                               "not returning a view."),
    (_viewed, lambda ctx, t: t.clone().view(2, 1), "A custom Function is returning a view but the jvp is not "
                                                   "returning a view of the given grad input."),
])
def test_a_view_output_needs_a_view_of_the_input_tangent_as_pytorchs(forward, jvp, message):
    with pytest.raises(RuntimeError) as info:
        _jvp_of(jvp, forward)
    assert str(info.value) == message


def test_a_view_output_takes_a_view_of_the_input_tangent():
    assert _jvp_of(lambda ctx, t: t.view(2, 1), _viewed) == [[[1.0], [1.0]]]


def test_a_tangent_of_another_layout_is_stored_as_a_copy_laid_out_as_the_primal():
    base = from_numpy(np.arange(4.0))
    x = from_numpy(np.ones(2))
    with fwAD.dual_level():
        same = from_numpy(np.arange(2.0))
        assert fwAD.unpack_dual(fwAD.make_dual(x, same)).tangent is same  # PyTorch keeps a tangent of x's layout
        for t in (base[::2], base[:2]):  # strided, or a view of a bigger storage: PyTorch copies it
            g = fwAD.unpack_dual(fwAD.make_dual(x, t)).tangent
            assert g is not t and not g._is_view() and g.stride() == (1,)
            np.testing.assert_array_equal(g.numpy(), t.numpy())
        xt = from_numpy(np.ones((2, 3))).t()
        assert fwAD.unpack_dual(fwAD.make_dual(xt, from_numpy(np.ones((3, 2))))).tangent.stride() == (1, 3)
