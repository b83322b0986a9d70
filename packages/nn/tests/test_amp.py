"""autocast (dtypes per PyTorch's op lists, nesting, decorator, casts recorded by autograd, the
hooks installed only inside regions) and GradScaler (scale, unscale_, skip on inf, update,
state_dict, the disabled pass-through), against float64 references and PyTorch."""

import warnings

import numpy as np
import pytest

import ember.autograd as E
import ember.nn.functional as F
from ember.core import dispatch


def _inputs(requires_grad=False):
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((4, 8), (5, 8), (5,)))
    return x, w, b, [E.tensor(v, requires_grad=requires_grad) for v in (x, w, b)]


def test_op_lists_set_output_dtypes_on_cpu():
    _, _, _, (x, w, b) = _inputs()
    img, k = E.ones(1, 2, 5, 5), E.ones(3, 2, 3, 3)
    with E.autocast("cpu"):
        assert (x @ w.t()).dtype is E.bfloat16                      # lower: mm
        assert F.linear(x, w, b).dtype is E.bfloat16                # lower, bias cast with it
        assert E.addmm(b, x, w.t()).dtype is E.bfloat16
        assert F.conv2d(img, k).dtype is E.bfloat16
        y = F.linear(x, w, b)
        assert F.mse_loss(y, E.zeros(4, 5)).dtype is E.float32      # fp32: losses
        assert F.cross_entropy(y, E.tensor([0, 1, 2, 3])).dtype is E.float32
        assert F.layer_norm(y, (5,)).dtype is E.bfloat16            # norms: float32 inside, input's dtype out
        assert y.softmax(1).dtype is E.bfloat16                     # not listed on the CPU: as given
        assert E.cat([y, x[:, :5]]).dtype is E.float32              # promote: the widest
        assert (y + 1).dtype is E.bfloat16                          # unlisted: ordinary promotion
        assert (x.double() @ w.double().t()).dtype is E.float64     # float64 is never cast


def test_cpu_matmul_family_as_pytorchs_cpu_autocast():
    # matmul and linalg.vecdot are listed (so `v @ v` too); mv is one unlisted kernel (float32 out); einsum is
    # unlisted but contracts through bmm: lower exactly when an index shared by operands is summed out
    m, v = E.ones(3, 4), E.ones(4)
    with E.autocast("cpu"):
        assert (v @ v).dtype is E.bfloat16 and E.matmul(m, v).dtype is E.bfloat16
        assert E.linalg.vecdot(m, m).dtype is E.bfloat16
        assert E.mv(m, v).dtype is E.float32
        assert E.einsum("ij,kj->ik", m, m).dtype is E.bfloat16 and E.einsum("i,i", v, v).dtype is E.bfloat16
        assert E.einsum(m, [0, 1], m, [2, 1], [0, 2]).dtype is E.bfloat16
        for eq, ops in (("ij,ij->ij", (m, m)), ("ij->j", (m,)), ("ij,k->ijk", (m, v)), ("ij,kl->", (m, m))):
            assert E.einsum(eq, *ops).dtype is E.float32, eq


def test_cpu_lstsq_matrix_rank_and_eig_run_in_float32_as_pytorchs_cpu_list():
    # both are on PyTorch's CPU fp32 list: a bfloat16 matrix is upcast (matrix_rank refused it) and lstsq's
    # inner products stay float32 (ember's composite lowered them to a bfloat16 solution)
    a, b = E.tensor([[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), E.tensor([1.0, 2.0, 3.0])
    with E.autocast("cpu"):
        h = a @ E.eye(2)                                            # bfloat16
        assert E.linalg.matrix_rank(h).item() == 2
        r = E.linalg.lstsq(a, b)
        assert r.solution.dtype is E.float32 and E.linalg.lstsq(h, b.bfloat16()).solution.dtype is E.float32
    np.testing.assert_allclose(r.solution.numpy(), np.linalg.lstsq(a.numpy(), b.numpy(), rcond=None)[0], rtol=1e-5)
    with E.autocast("cpu"):  # linalg.eig and eigvals too: a bfloat16 matrix has complex64 eigenvalues
        sq = E.tensor([[2.0, 0.5], [0.5, 1.0]]) @ E.eye(2)
        assert E.linalg.eigvals(sq).dtype is E.complex64 and E.linalg.eig(sq)[1].dtype is E.complex64


def test_cpu_norms_compute_in_float32_and_keep_running_stats():
    x = E.tensor(np.linspace(-2, 3, 24, dtype=np.float32).reshape(4, 6), requires_grad=True)
    mean, var = E.zeros(6), E.ones(6)
    w = E.ones(6, requires_grad=True)
    with E.autocast("cpu"):
        h = x @ E.eye(6)                                            # bfloat16
        y = F.batch_norm(h, mean, var, w, training=True, momentum=1.0)
        ln = F.layer_norm(h, (6,), w)
    assert y.dtype is E.bfloat16 and ln.dtype is E.bfloat16 and mean.dtype is E.float32
    hv = x.detach().bfloat16().float().numpy().astype(np.float64)
    np.testing.assert_allclose(mean.numpy(), hv.mean(0), rtol=1e-6)   # the float32 buffer, updated in place
    ref = (hv - hv.mean(0)) / np.sqrt(hv.var(0) + 1e-5)
    np.testing.assert_allclose(y.detach().float().numpy(), ref, rtol=2 ** -8, atol=1e-6)
    (y.float().sum() + ln.float().pow(2).sum()).backward()
    assert x.grad.dtype is E.float32 and w.grad.dtype is E.float32


def test_values_are_the_float32_computation_rounded():
    x, w, b, (ex, ew, eb) = _inputs()
    with E.autocast("cpu"):
        y = F.linear(ex, ew, eb)
    ref = x.astype(np.float64) @ w.T + b
    # inputs rounded to bfloat16 (8 bits), float32 accumulation, the result rounded once more
    np.testing.assert_allclose(y.float().numpy(), ref, rtol=2 ** -6, atol=0.05)


def test_gradients_flow_back_in_the_parameters_dtype():
    x, w, b, (ex, ew, eb) = _inputs(requires_grad=True)
    with E.autocast("cpu"):
        loss = F.linear(ex, ew, eb).float().sum()
    loss.backward()
    assert ew.grad.dtype is E.float32 and eb.grad.dtype is E.float32 and ex.grad.dtype is E.float32
    # d sum(x w^T + b) / dw = column sums of x (in bfloat16: x rounded)
    np.testing.assert_allclose(ew.grad.numpy(), np.tile(x.sum(0), (5, 1)), rtol=2 ** -6, atol=0.05)
    np.testing.assert_array_equal(eb.grad.numpy(), np.full(5, 4.0, np.float32))


def test_parameter_cast_is_cached_within_a_region():
    _, _, _, (x, w, b) = _inputs(requires_grad=True)
    cache = E.amp._tls.cache
    with E.autocast("cpu"):
        F.linear(x, w, b)
        F.linear(x.detach(), w, b)
        # one cast each of the leaves x, w and b; the detached x is no leaf requiring grad
        assert sorted(id(k) for k, _ in cache.values()) == sorted(map(id, (x, w, b)))
        assert all(v.dtype is E.bfloat16 for _, v in cache.values())
    assert not cache


def test_nesting_disabled_and_decorator():
    x = E.ones(2, 2)

    @E.autocast("cpu")
    def f():
        with E.autocast("cpu", enabled=False):
            inner = (x @ x).dtype, E.is_autocast_enabled("cpu")
        with E.autocast("cpu", dtype=E.float16):
            half = (x @ x).dtype
        return (x @ x).dtype, inner, half, E.get_autocast_dtype("cpu")

    assert f() == (E.bfloat16, (E.float32, False), E.float16, E.bfloat16)
    assert not E.is_autocast_enabled("cpu") and (x @ x).dtype is E.float32


def test_hooks_installed_only_inside_regions():
    before = list(dispatch._hooks)
    with E.autocast("cpu"):
        assert len(dispatch._hooks) == len(before) + 1 and dispatch._composite_hook is not None
        with E.autocast("cpu", enabled=False):
            assert len(dispatch._hooks) == len(before)
    assert dispatch._hooks == before and dispatch._composite_hook is None


def test_region_state_is_restored_after_an_exception():
    with pytest.raises(ValueError), E.autocast("cpu"):
        raise ValueError("boom")
    assert not E.is_autocast_enabled("cpu") and dispatch._composite_hook is None


def test_bad_arguments():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        E.autocast(0)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'meta'"):
        E.autocast("meta")
    with pytest.warns(UserWarning, match=r"target dtype is not supported. Disabling autocast.\nCPU Autocast only "
                                         r"supports dtypes of torch.bfloat16, torch.float16 currently.$"):
        ac = E.autocast("cpu", dtype=E.float64)
    with ac:
        assert not E.is_autocast_enabled("cpu")
    from ember.autograd.amp import _cuda_available

    if not _cuda_available():
        with pytest.warns(UserWarning, match=r"^CUDA is not available or torch_xla is imported. Disabling autocast.$"):
            E.autocast("cuda")


def test_deprecated_spellings_warn_and_work():
    with pytest.warns(FutureWarning, match=r"torch.amp.autocast\('cpu', args...\)"):
        ac = E.amp.cpu_autocast()
    with ac:
        assert (E.ones(2, 2) @ E.ones(2, 2)).dtype is E.bfloat16


@pytest.mark.torch
def test_matches_pytorch_cpu_autocast():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x, w, b, (ex, ew, eb) = _inputs(requires_grad=True)
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    target = np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5)
    with E.autocast("cpu"):
        ey = F.linear(ex, ew, eb)
        el = F.mse_loss(ey, E.tensor(target))
    with torch.autocast("cpu"):
        ty = tf.linear(tx, tw, tb)
        tl = tf.mse_loss(ty, torch.tensor(target))
    assert (ey.dtype.name, el.dtype.name) == (str(ty.dtype)[6:], str(tl.dtype)[6:])
    np.testing.assert_allclose(ey.float().detach().numpy(), ty.float().detach().numpy(), rtol=2 ** -7, atol=0.02)
    np.testing.assert_allclose(el.item(), tl.item(), rtol=2 ** -7)
    el.backward()
    tl.backward()
    for e, t in ((ew, tw), (eb, tb), (ex, tx)):
        assert e.grad.dtype is E.float32 and t.grad.dtype is torch.float32
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=2 ** -6, atol=0.02)


# --- GradScaler -----------------------------------------------------------------------------
class _SGD:
    """The smallest optimizer GradScaler drives: param_groups and step()."""

    def __init__(self, params, lr=0.1):
        self.param_groups = [{"params": list(params)}]
        self.lr, self.steps = lr, 0

    def step(self):
        self.steps += 1
        with E.no_grad():
            for p in self.param_groups[0]["params"]:
                p.sub_(self.lr * p.grad)


def _scaler_run(make, grads_of):
    """Scale history and applied steps over 6 iterations, an inf injected in the 3rd."""
    scaler, w, opt = make()
    history = []
    for i in range(6):
        w.grad = None
        loss = scaler.scale((w * w).sum())
        loss.backward()
        if i == 2:
            grads_of(w)
        scaler.step(opt)
        scaler.update()
        history.append((scaler.get_scale(), scaler._get_growth_tracker(), float(w.detach().sum())))
    return history


def _ember_scaler():
    w = E.tensor([1.0, -2.0], requires_grad=True)
    return E.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2), w, _SGD([w])


def test_grad_scaler_skips_inf_steps_and_adapts_the_scale():
    def inject(w):
        w.grad[0] = float("inf")
    history = _scaler_run(_ember_scaler, inject)
    scales = [h[0] for h in history]
    # grows after 2 good steps, halves on the inf (step skipped, tracker reset), grows again after 2 more
    assert scales == [4.0, 8.0, 4.0, 4.0, 8.0, 8.0]
    assert [h[1] for h in history] == [1, 0, 0, 1, 0, 1]
    assert history[2][2] == history[1][2]  # the weights did not move on the skipped step
    # the unscaled gradient is 2w: w <- w - 0.1 * 2w = 0.8 w per applied step (5 of them)
    np.testing.assert_allclose(history[-1][2], -1.0 * 0.8 ** 5, rtol=1e-6)


def test_grad_scaler_unscale_and_errors():
    scaler, w, opt = _ember_scaler()
    scaler.scale((w * w).sum()).backward()
    np.testing.assert_array_equal(w.grad.numpy(), [8.0, -16.0])
    scaler.unscale_(opt)
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, -4.0])
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0)


def test_grad_scaler_state_dict_round_trip():
    scaler, w, opt = _ember_scaler()
    scaler.scale((w * w).sum()).backward()
    scaler.step(opt)
    scaler.update()
    sd = scaler.state_dict()
    assert sd == {"scale": 4.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
                  "_growth_tracker": 1}
    other = E.amp.GradScaler("cpu")
    other.load_state_dict(sd)
    assert other.get_scale() == 4.0 and other._get_growth_tracker() == 1
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        other.load_state_dict({})


def test_grad_scaler_without_cuda_disables_itself_and_passes_through(monkeypatch):
    from ember.autograd import grad_scaler

    monkeypatch.setattr(grad_scaler, "_cuda_available", lambda: False)
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        scaler = E.amp.GradScaler()
    w = E.tensor([1.0], requires_grad=True)
    opt = _SGD([w])
    loss = (w * w).sum()
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert opt.steps == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not grad_scaler.CudaGradScaler().is_enabled()


@pytest.mark.torch
def test_grad_scaler_sequence_matches_pytorch():
    torch = pytest.importorskip("torch")

    def torch_scaler():
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        return torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2), w, torch.optim.SGD([w], lr=0.1)

    def inject_torch(w):
        with torch.no_grad():
            w.grad[0] = float("inf")

    def inject(w):
        w.grad[0] = float("inf")

    ours, theirs = _scaler_run(_ember_scaler, inject), _scaler_run(torch_scaler, inject_torch)
    assert [h[:2] for h in ours] == [h[:2] for h in theirs]
    np.testing.assert_allclose([h[2] for h in ours], [h[2] for h in theirs], rtol=1e-6)


def test_checkpoint_recomputes_in_the_forwards_autocast_state():
    from ember.autograd.checkpoint import checkpoint

    _, _, _, (x, w, b) = _inputs(requires_grad=True)

    def segment(x):
        return F.linear(x, w, b).relu()

    with E.autocast("cpu"):
        y = checkpoint(segment, x, use_reentrant=False)
        ref = segment(x)
    assert y.dtype is E.bfloat16
    y.float().sum().backward()
    gw, gx = w.grad.clone(), x.grad.clone()
    w.grad = x.grad = b.grad = None
    ref.float().sum().backward()
    np.testing.assert_array_equal(gw.numpy(), w.grad.numpy())
    np.testing.assert_array_equal(gx.numpy(), x.grad.numpy())


def test_older_spellings_of_the_state_queries():
    assert not E.is_autocast_cpu_enabled() and E.get_autocast_cpu_dtype() is E.bfloat16
    assert E.get_autocast_gpu_dtype() is E.float16
    with E.autocast("cpu", dtype=E.float16):
        assert E.is_autocast_cpu_enabled() and E.get_autocast_cpu_dtype() is E.float16
    E.set_autocast_enabled("cpu", True)
    try:
        assert (E.ones(2, 2) @ E.ones(2, 2)).dtype is E.bfloat16
    finally:
        E.set_autocast_enabled("cpu", False)
    assert dispatch._composite_hook is None


def test_grad_scaler_refuses_float16_gradients():
    w = E.ones(2, dtype=E.float16, requires_grad=True)
    scaler = E.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale((w * w).sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        scaler.unscale_(_SGD([w]))


def test_grad_scaler_update_with_new_scale_and_pickling():
    import pickle

    scaler, w, opt = _ember_scaler()
    scaler.scale((w * w).sum()).backward()
    scaler.step(opt)
    scaler.update(new_scale=32.0)
    assert scaler.get_scale() == 32.0
    with pytest.raises(ValueError, match="new_scale should be a float"):
        scaler.update(new_scale=E.ones(2))
    again = pickle.loads(pickle.dumps(scaler))
    assert again.get_scale() == 32.0 and again._scale is None


def test_custom_fwd_casts_inputs_and_turns_autocast_off():
    seen = []

    class Square(E.autograd.Function):
        @staticmethod
        @E.amp.custom_fwd(device_type="cpu", cast_inputs=E.float32)
        def forward(ctx, x):
            seen.append((x.dtype, E.is_autocast_enabled("cpu"), (x @ x.t()).dtype))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @E.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = E.ones(2, 2, dtype=E.bfloat16, requires_grad=True)
    with E.autocast("cpu"):
        y = Square.apply(x)
    assert seen == [(E.float32, False, E.float32)] and y.dtype is E.float32
    y.sum().backward()
    assert x.grad.dtype is E.bfloat16 and x.grad.float().tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_custom_bwd_runs_backward_in_the_forwards_autocast_state():
    # PyTorch's custom_fwd stores the autocast state on the ctx; custom_bwd re-enters it around backward
    seen = []

    class Mm(E.autograd.Function):
        @staticmethod
        @E.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a @ b

        @staticmethod
        @E.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen.append((E.is_autocast_enabled("cpu"), E.get_autocast_dtype("cpu"), g.dtype))
            return g @ b.t(), a.t() @ g  # float32 saved tensors with a bfloat16 grad: autocast casts them

    w = _inputs()[1]
    a, b = E.tensor(w[:, :4], requires_grad=True), E.tensor(w[:4], requires_grad=True)
    with E.autocast("cpu", dtype=E.float16):
        y = Mm.apply(a, b)
    assert y.dtype is E.float16
    y.float().sum().backward()
    assert seen == [(True, E.float16, E.float16)]
    assert a.grad.dtype is E.float32 and b.grad.dtype is E.float32
    b16 = w[:4].astype(np.float16).astype(np.float32)
    want = (np.ones((5, 8), np.float32) @ b16.T).astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(a.grad.numpy(), want)
    Mm.apply(a, b).sum().backward()  # outside autocast the backward runs outside it too
    assert seen[1] == (False, E.bfloat16, E.float32)


def test_cpu_autocast_runs_an_lstm_in_the_lower_dtype_and_a_gru_in_float32():
    # PyTorch's CPU LSTM (no projections) is oneDNN's mkldnn_rnn_layer, on the lower-precision list: input,
    # states and weights are cast; GRU's cells mix the float32 state back in
    import ember.nn as nn

    E.manual_seed(0)
    lstm, gru = nn.LSTM(4, 5, num_layers=2, bidirectional=True), nn.GRU(4, 5)
    x = E.randn(6, 2, 4, requires_grad=True)
    ref, (rh, rc) = lstm(x)
    with E.autocast("cpu", dtype=E.bfloat16):
        out, (h, c) = lstm(x, (E.zeros(4, 2, 5), E.zeros(4, 2, 5)))
        g_out, g_h = gru(x)
        p_out, (p_h, p_c) = nn.LSTM(4, 5, proj_size=3)(x)  # PyTorch's default path: its linears' dtype
    assert (out.dtype, h.dtype, c.dtype) == (E.bfloat16,) * 3
    assert (g_out.dtype, g_h.dtype) == (E.float32, E.float32)
    assert (p_out.dtype, p_c.dtype) == (E.bfloat16, E.float32)
    assert float((out.detach().float() - ref.detach()).abs().max()) < 0.03
    assert float((c.detach().float() - rc.detach()).abs().max()) < 0.03
    out.float().sum().backward()
    assert x.grad.dtype is E.float32 and lstm.weight_hh_l1_reverse.grad.dtype is E.float32


def test_custom_fwd_on_a_setup_context_forward_leaves_its_first_input_alone():
    # there args[0] is the input: PyTorch's ctx attributes would land on it, and ember's Tensor._dtype is its dtype
    class Sq(E.autograd.Function):
        @staticmethod
        @E.amp.custom_fwd(device_type="cpu")
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            return 2 * ctx.saved_tensors[0] * g

    x = E.tensor([1.5, 2.0], requires_grad=True)
    with E.autocast("cpu", dtype=E.bfloat16):
        y = Sq.apply(x)
    assert x.dtype is E.float32 and y.dtype is E.float32 and y.tolist() == [2.25, 4.0]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]


def test_an_autocast_device_name_is_parsed_as_a_device_first():
    # PyTorch's is_autocast_available parses the name: no device type at all is the parser's error
    assert E.amp.is_autocast_available("cpu") and E.amp.is_autocast_available("cuda:0")
    assert not E.amp.is_autocast_available("meta")
    for call in (lambda: E.amp.is_autocast_available("tpu"), lambda: E.autocast("tpu")):
        with pytest.raises(RuntimeError, match="device type at start of device string: tpu"):
            call()


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_inference_under_cpu_autocast_returns_the_autocast_dtype(norm_first):
    # PyTorch's fused inference kernel adds the residual in place into the bfloat16 attention output; in training
    # (or with grad-requiring weights) the module path promotes it back to float32
    import ember.nn as nn

    E.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=norm_first).eval()
    src = E.randn(2, 3, 8)
    with E.no_grad():
        want = layer(src)
        with E.autocast("cpu", dtype=E.bfloat16):
            fused = layer(src)
    with E.autocast("cpu", dtype=E.bfloat16):
        with_grad = layer(src)
    assert fused.dtype is E.bfloat16 and with_grad.dtype is E.float32
    assert float((fused.float() - want).abs().max()) < 0.1
    layer.train()
    with E.no_grad(), E.autocast("cpu", dtype=E.bfloat16):
        assert layer(src).dtype is E.float32


@pytest.mark.torch
def test_conv_norm_chain_matches_pytorch_dtypes_and_values():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    rng = np.random.default_rng(3)
    x, k = rng.standard_normal((2, 3, 5, 5)).astype(np.float32), rng.standard_normal((4, 3, 3, 3)).astype(np.float32)

    def chain(m, f, x, k, mean, var):
        h = f.conv2d(x, k, padding=1)
        b = f.batch_norm(h, mean, var, training=True)
        g = f.group_norm(b, 2)
        return h, b, f.layer_norm(g, (5,)), f.softmax(g, 1)

    stats = [(E.zeros(4), E.ones(4)), (torch.zeros(4), torch.ones(4))]
    with E.autocast("cpu"):
        ours = chain(E, F, E.tensor(x), E.tensor(k), *stats[0])
    with torch.autocast("cpu"):
        theirs = chain(torch, tf, torch.tensor(x), torch.tensor(k), *stats[1])
    for e, t in zip(ours, theirs, strict=True):
        assert str(e.dtype)[6:] == str(t.dtype)[6:]
        np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), rtol=2 ** -6, atol=0.03)
    np.testing.assert_allclose(stats[0][0].numpy(), stats[1][0].numpy(), rtol=1e-3, atol=1e-4)


def test_cpu_lists_cover_attention_contractions_distances_and_samplers_as_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    arrays = {k: rng.standard_normal(s).astype(np.float32) for k, s in
              (("x", (2, 3, 4)), ("v", (3, 4)), ("z", (1, 1, 4, 4)), ("q", (1, 2, 3, 4)))}

    def calls(m, fn, t):
        return {
            "einsum_bmm": lambda: m.einsum("bij,bkj->bik", t["x"], t["x"]),
            "einsum_mul": lambda: m.einsum("ij,ij->ij", t["v"], t["v"]),
            "einsum_dot": lambda: m.einsum("i,i->", t["v"][0], t["v"][0]), "dot": lambda: t["v"][0] @ t["v"][0],
            "vecdot": lambda: m.linalg.vecdot(t["v"], t["v"]), "cdist": lambda: m.cdist(t["v"], t["v"]),
            "grid_sample": lambda: fn.grid_sample(t["z"], t["z"].reshape(1, 2, 4, 2).tanh(), align_corners=False),
            "reflect": lambda: fn.pad(t["z"], (1, 1, 1, 1), mode="reflect"), "constant": lambda: fn.pad(t["z"], (1, 1)),
            "quantile": lambda: m.quantile(t["v"], 0.5), "polar": lambda: m.polar(t["v"], t["v"]),
            "sdpa": lambda: fn.scaled_dot_product_attention(t["q"], t["q"], t["q"]),
            "sdpa3": lambda: fn.scaled_dot_product_attention(t["x"], t["x"], t["x"]),
        }

    for low in (False, True):
        et = {k: E.tensor(a).bfloat16() if low else E.tensor(a) for k, a in arrays.items()}
        tt = {k: torch.tensor(a).bfloat16() if low else torch.tensor(a) for k, a in arrays.items()}
        with E.autocast("cpu"):
            got = {k: f() for k, f in calls(E, F, et).items()}
        with torch.autocast("cpu"):
            want = {k: f() for k, f in calls(torch, torch.nn.functional, tt).items()}
        for k in got:
            assert got[k].dtype.name == str(want[k].dtype)[6:], (k, low)
        for k in ("sdpa", "sdpa3"):  # float32 inside, rounded once
            np.testing.assert_allclose(got[k].float().numpy(), want[k].float().numpy(), atol=2 ** -7)


def test_cpu_autocast_runs_3d_pools_and_pads_in_pytorchs_dtypes():
    # PyTorch 2.13's CPU list: the 3-D pools (and fractional max pools, lp_pool3d through avg_pool3d), max_unpool,
    # replication pads and the 1-D/2-D reflection pads in float32; reflection_pad3d, 2-D pools and upsampling as given
    x = E.tensor(np.random.default_rng(0).standard_normal((2, 2, 4, 4, 4)).astype(np.float32)).bfloat16()
    want = {"avg_pool3d": "float32", "max_pool3d": "float32", "adaptive_avg_pool3d": "float32",
            "adaptive_max_pool3d": "float32", "lp_pool3d": "float32", "fractional_max_pool3d": "float32",
            "fractional_max_pool2d": "float32", "replicate3d": "float32", "reflect2d": "float32",
            "reflect3d": "bfloat16", "max_pool2d": "bfloat16", "trilinear": "bfloat16"}
    with E.autocast("cpu"):
        got = {"avg_pool3d": F.avg_pool3d(x, 2), "max_pool3d": F.max_pool3d(x, 2),
               "adaptive_avg_pool3d": F.adaptive_avg_pool3d(x, 2), "adaptive_max_pool3d": F.adaptive_max_pool3d(x, 2),
               "lp_pool3d": F.lp_pool3d(x, 2, 2), "fractional_max_pool3d": F.fractional_max_pool3d(x, 2, output_size=2),
               "fractional_max_pool2d": F.fractional_max_pool2d(x[0], 2, output_size=2),
               "replicate3d": F.pad(x, (1,) * 6, mode="replicate"), "reflect2d": F.pad(x[0], (1,) * 4, mode="reflect"),
               "reflect3d": F.pad(x, (1,) * 6, mode="reflect"), "max_pool2d": F.max_pool2d(x[0], 2),
               "trilinear": F.interpolate(x, scale_factor=2, mode="trilinear")}
    assert {k: v.dtype.name for k, v in got.items()} == want
    assert E.equal(got["max_pool3d"], F.max_pool3d(x.float(), 2))
    with pytest.raises(NotImplementedError, match="\"avg_pool3d_out_frame\" not implemented for 'BFloat16'"):
        F.avg_pool3d(x, 2)  # outside the region PyTorch's CPU kernel has no bfloat16


def test_cpu_autocast_runs_ctc_ffts_and_view_as_complex_in_float32():
    # PyTorch 2.13's CPU fp32 list holds ctc_loss, the fft_* transforms (not the 2-D/n-D Hermitian ones),
    # view_as_complex and multilabel_margin_loss: bfloat16 inputs that their kernels refuse outside a region
    rng = np.random.default_rng(0)
    logits = E.tensor(rng.standard_normal((6, 2, 4)).astype(np.float32), requires_grad=True)
    lp = logits.log_softmax(-1).bfloat16()
    targets, il, tl = E.tensor([[1, 2], [3, 3]]), E.tensor([6, 5]), E.tensor([2, 2])
    sig = E.tensor(rng.standard_normal((4, 8)).astype(np.float32)).bfloat16()
    with E.autocast("cpu"):
        loss = F.ctc_loss(lp, targets, il, tl)
        spectra = {n: getattr(E.fft, n)(sig) for n in ("fft", "rfft", "irfft", "fftn", "ihfft", "hfft")}
        pairs = E.view_as_complex(sig.view(4, 4, 2))
        margin = F.multilabel_margin_loss(sig[:, :4], E.tensor([[1, -1, 0, 0]] * 4))
    assert loss.dtype is E.float32 and margin.dtype is E.float32 and pairs.dtype is E.complex64
    assert {n: s.dtype.name for n, s in spectra.items()} == {"fft": "complex64", "rfft": "complex64",
                                                            "irfft": "float32", "fftn": "complex64",
                                                            "ihfft": "complex64", "hfft": "float32"}
    assert E.allclose(loss, F.ctc_loss(lp.float(), targets, il, tl))
    np.testing.assert_allclose(spectra["rfft"].numpy(), np.fft.rfft(sig.float().numpy()), rtol=1e-5, atol=1e-5)
    loss.backward()
    assert logits.grad.dtype is E.float32 and E.isfinite(logits.grad).all()
    with pytest.raises(NotImplementedError, match="\"ctc_loss_cpu\" not implemented for 'BFloat16'"):
        F.ctc_loss(lp, targets, il, tl)
    with E.autocast("cpu"), pytest.raises(RuntimeError, match="^Unsupported dtype BFloat16$"):
        E.fft.hfft2(sig)  # not on the list
