"""ember.nn / ember.optim against PyTorch itself: outputs, gradients, optimizer trajectories,
schedules and reprs, given the same weights and inputs. Skipped when torch is not installed."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ember.autograd as ea  # noqa: E402
from ember import nn, optim  # noqa: E402
from ember.nn import functional as F  # noqa: E402
from ember.optim import lr_scheduler as S  # noqa: E402

pytestmark = pytest.mark.torch
tnn, tF = torch.nn, torch.nn.functional


def to_ember(module_t, module_e):
    """Copy a torch module's state into the ember module (float64 on both sides)."""
    module_t.double()
    module_e.double()
    sd = {k: ea.from_numpy(v.detach().numpy().copy()) for k, v in module_t.state_dict().items()}
    module_e.load_state_dict(sd)


def pair_input(*shape, requires_grad=True, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (torch.tensor(a, requires_grad=requires_grad),
            ea.tensor(a, dtype=ea.float64, requires_grad=requires_grad))


def outputs(y):
    return [y] if not isinstance(y, tuple) else [t for item in y for t in (item if isinstance(item, tuple) else [item])]


LAYERS = [
    ("Linear", lambda m: m.Linear(5, 3), (4, 5)),
    ("Bilinear", None, None),
    ("Conv1d", lambda m: m.Conv1d(3, 4, 3, padding=2, dilation=2), (2, 3, 9)),
    ("Conv2d", lambda m: m.Conv2d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 7, 7)),
    ("Conv2dReflect", lambda m: m.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), (1, 2, 5, 6)),
    ("ConvTranspose2d", lambda m: m.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1), (2, 3, 4, 4)),
    ("MaxPool2d", lambda m: m.MaxPool2d(3, stride=2, padding=1), (2, 3, 7, 7)),
    ("AvgPool2d", lambda m: m.AvgPool2d(2), (2, 3, 6, 6)),
    ("AdaptiveAvgPool2d", lambda m: m.AdaptiveAvgPool2d((2, 3)), (2, 3, 7, 8)),
    ("BatchNorm1d", lambda m: m.BatchNorm1d(4), (6, 4)),
    ("BatchNorm2d", lambda m: m.BatchNorm2d(3, momentum=None), (4, 3, 3, 3)),
    ("LayerNorm", lambda m: m.LayerNorm([3, 4]), (2, 3, 4)),
    ("BatchNorm3d", lambda m: m.BatchNorm3d(2), (3, 2, 2, 2, 3)),
    ("InstanceNorm1d", lambda m: m.InstanceNorm1d(3, affine=True), (2, 3, 5)),
    ("InstanceNorm2d", lambda m: m.InstanceNorm2d(3, track_running_stats=True), (2, 3, 4, 4)),
    ("InstanceNorm2dUnbatched", lambda m: m.InstanceNorm2d(3), (3, 4, 4)),
    ("UpsampleBilinear", lambda m: m.Upsample(scale_factor=2, mode="bilinear"), (1, 2, 3, 4)),
    ("UpsampleBilinearAligned", lambda m: m.Upsample(size=(5, 7), mode="bilinear", align_corners=True), (1, 2, 3, 4)),
    ("GroupNorm", lambda m: m.GroupNorm(2, 4), (2, 4, 5)),
    ("LSTM", lambda m: m.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), (2, 5, 3)),
    ("GRU", lambda m: m.GRU(3, 4, num_layers=2), (5, 2, 3)),
    ("LSTMProj", lambda m: m.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True), (4, 2, 3)),
    ("RNN", lambda m: m.RNN(3, 4, nonlinearity="relu"), (5, 2, 3)),
    ("LSTMCell", lambda m: m.LSTMCell(3, 4), (2, 3)),
    ("GRUCell", lambda m: m.GRUCell(3, 4), (2, 3)),
    ("TransformerEncoderLayer", lambda m: m.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
     (2, 5, 8)),
    ("TransformerEncoderLayerNormFirst",
     lambda m: m.TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=True, activation="gelu"), (5, 2, 8)),
    ("Upsample", lambda m: m.Upsample(scale_factor=2, mode="nearest"), (1, 2, 3, 3)),
    ("Mish", lambda m: m.Mish(), (3, 4)),
    ("MaxPool1d", lambda m: m.MaxPool1d(3, stride=2, padding=1), (2, 3, 9)),
    ("AvgPool1d", lambda m: m.AvgPool1d(2, count_include_pad=False, padding=1), (2, 3, 8)),
    ("AdaptiveAvgPool1d", lambda m: m.AdaptiveAvgPool1d(3), (2, 3, 8)),
    ("AdaptiveMaxPool2d", lambda m: m.AdaptiveMaxPool2d((2, 3)), (2, 3, 5, 7)),
    ("ConvTranspose1d", lambda m: m.ConvTranspose1d(3, 2, 3, stride=2, padding=1), (2, 3, 5)),
    ("Hardshrink", lambda m: m.Hardshrink(0.3), (3, 4)),
    ("Softshrink", lambda m: m.Softshrink(0.3), (3, 4)),
    ("SELU", lambda m: m.SELU(), (3, 4)),
    ("CELU", lambda m: m.CELU(0.7), (3, 4)),
    ("PReLU", lambda m: m.PReLU(3, 0.1), (2, 3, 4)),
    ("RMSNorm", lambda m: m.RMSNorm([3, 4]), (2, 3, 4)),
    ("RMSNormEps", lambda m: m.RMSNorm(4, eps=1e-3), (2, 3, 4)),
    ("Softmax2d", lambda m: m.Softmax2d(), (2, 3, 2, 2)),
    ("PixelShuffle", lambda m: m.PixelShuffle(2), (1, 8, 2, 3)),
    ("PixelUnshuffle", lambda m: m.PixelUnshuffle(2), (1, 2, 4, 6)),
    ("ZeroPad2d", lambda m: m.ZeroPad2d((1, 2, 0, 1)), (1, 2, 3, 3)),
    ("ConstantPad1d", lambda m: m.ConstantPad1d(2, 3.5), (1, 2, 3)),
    ("ReflectionPad2d", lambda m: m.ReflectionPad2d(1), (1, 2, 3, 3)),
    ("ReplicationPad1d", lambda m: m.ReplicationPad1d((2, 1)), (1, 2, 3)),
    ("CircularPad2d", lambda m: m.CircularPad2d(1), (1, 2, 3, 3)),
    ("Unfold", lambda m: m.Unfold((2, 3), dilation=1, padding=1, stride=2), (2, 3, 5, 6)),
    ("Fold", lambda m: m.Fold((4, 5), 2, padding=1), (2, 8, 30)),
    ("LPPool2d", lambda m: m.LPPool2d(2, 2), (1, 2, 4, 6)),
    ("LPPool1d", lambda m: m.LPPool1d(3, 2, stride=1), (1, 2, 5)),
    ("ChannelShuffle", lambda m: m.ChannelShuffle(2), (1, 6, 2, 2)),
    ("UpsamplingNearest2d", lambda m: m.UpsamplingNearest2d(scale_factor=2), (1, 2, 3, 3)),
    ("UpsamplingBilinear2d", lambda m: m.UpsamplingBilinear2d(size=(5, 7)), (1, 2, 3, 4)),
    ("GELU", lambda m: m.GELU(approximate="tanh"), (3, 4)),
]


@pytest.mark.parametrize("name, make, shape", [case for case in LAYERS if case[1] is not None],
                         ids=[c[0] for c in LAYERS if c[1] is not None])
def test_layer_outputs_and_gradients_match_torch(name, make, shape):
    torch.manual_seed(0)
    mt, me = make(tnn), make(nn)
    to_ember(mt, me)
    xt, xe = pair_input(*shape)
    yt, ye = mt(xt), me(xe)
    outs_t, outs_e = outputs(yt), outputs(ye)
    assert len(outs_t) == len(outs_e)
    for a, b in zip(outs_t, outs_e):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-8, atol=1e-10)
    sum(o.sum() * (i + 1) for i, o in enumerate(outs_t)).backward()
    sum(o.sum() * (i + 1) for i, o in enumerate(outs_e)).backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-7, atol=1e-9)
    grads_t = {n: p.grad for n, p in mt.named_parameters()}
    for n, p in me.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), grads_t[n].numpy(), rtol=1e-7, atol=1e-9, err_msg=n)
    for n, b in mt.named_buffers():
        np.testing.assert_allclose(me.get_buffer(n).numpy(), b.numpy(), rtol=1e-10, err_msg=n)


def test_multihead_attention_matches_torch_with_masks():
    mt, me = tnn.MultiheadAttention(8, 2), nn.MultiheadAttention(8, 2)
    with torch.no_grad():
        mt.in_proj_bias.normal_()
        mt.out_proj.bias.normal_()
    to_ember(mt, me)
    qt, qe = pair_input(4, 3, 8, seed=1)
    kt, ke = pair_input(6, 3, 8, seed=2)
    kpm = np.zeros((3, 6), bool)
    kpm[1, 4:] = True
    am = np.zeros((4, 6), bool)
    am[0, 1] = True
    yt, wt = mt(qt, kt, kt, key_padding_mask=torch.tensor(kpm), attn_mask=torch.tensor(am))
    ye, we = me(qe, ke, ke, key_padding_mask=ea.tensor(kpm), attn_mask=ea.tensor(am))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(we.detach().numpy(), wt.detach().numpy(), rtol=1e-8, atol=1e-10)
    yt.sum().backward()
    ye.sum().backward()
    np.testing.assert_allclose(qe.grad.numpy(), qt.grad.numpy(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(me.in_proj_weight.grad.numpy(), mt.in_proj_weight.grad.numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("norm_first, batch_first", [(False, False), (True, True)])
def test_transformer_matches_torch(norm_first, batch_first):
    torch.manual_seed(0)
    kw = {"d_model": 8, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 2, "dim_feedforward": 16,
          "dropout": 0.0, "norm_first": norm_first, "batch_first": batch_first}
    mt, me = tnn.Transformer(**kw), nn.Transformer(**kw)
    to_ember(mt, me)
    st, se = pair_input(*((2, 5, 8) if batch_first else (5, 2, 8)), seed=6)
    tt, te = pair_input(*((2, 4, 8) if batch_first else (4, 2, 8)), seed=7)
    mask_t = tnn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    mask_e = nn.Transformer.generate_square_subsequent_mask(4, dtype=ea.float64)
    np.testing.assert_array_equal(mask_e.numpy(), mask_t.numpy())
    kpm = np.zeros((2, 5), bool)
    kpm[1, 3:] = True
    yt = mt(st, tt, tgt_mask=mask_t, src_key_padding_mask=torch.tensor(kpm), memory_key_padding_mask=torch.tensor(kpm))
    ye = me(se, te, tgt_mask=mask_e, src_key_padding_mask=ea.tensor(kpm), memory_key_padding_mask=ea.tensor(kpm))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-8, atol=1e-10)
    yt.sum().backward()
    ye.sum().backward()
    np.testing.assert_allclose(te.grad.numpy(), tt.grad.numpy(), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(se.grad.numpy(), st.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_embedding_and_bag_match_torch():
    et, ee = tnn.Embedding(7, 3, padding_idx=1), nn.Embedding(7, 3, padding_idx=1)
    to_ember(et, ee)
    idx = np.array([[0, 1, 6], [1, 2, 2]])
    et(torch.tensor(idx)).sum().backward()
    ee(ea.tensor(idx)).sum().backward()
    np.testing.assert_allclose(ee.weight.grad.numpy(), et.weight.grad.numpy())
    bt, be = tnn.EmbeddingBag(7, 3, mode="sum"), nn.EmbeddingBag(7, 3, mode="sum")
    to_ember(bt, be)
    flat, off = np.array([0, 3, 4, 4, 6]), np.array([0, 1, 3])
    np.testing.assert_allclose(be(ea.tensor(flat), ea.tensor(off)).detach().numpy(),
                               bt(torch.tensor(flat), torch.tensor(off)).detach().numpy(), rtol=1e-12)


LOSSES = [
    ("mse", lambda F, x, y: F.mse_loss(x, y)),
    ("l1_sum", lambda F, x, y: F.l1_loss(x, y, reduction="sum")),
    ("smooth_l1", lambda F, x, y: F.smooth_l1_loss(x, y, beta=0.3)),
    ("huber_none", lambda F, x, y: F.huber_loss(x, y, reduction="none", delta=0.4)),
    ("bce", lambda F, x, y: F.binary_cross_entropy(x.sigmoid(), y.sigmoid().detach())),
    ("bce_logits", lambda F, x, y: F.binary_cross_entropy_with_logits(x, (y > 0).double(),
                                                                      pos_weight=x.new_full((4,), 2.0))),
    ("kl_div", lambda F, x, y: F.kl_div(x.log_softmax(1), y.softmax(1).detach(), reduction="batchmean")),
    ("kl_div_log_target", lambda F, x, y: F.kl_div(x.log_softmax(1), y.log_softmax(1).detach(), log_target=True,
                                                   reduction="sum")),
    ("cosine_embedding", lambda F, x, y: F.cosine_embedding_loss(x, y.detach(), (y[:, 0] > 0).long() * 2 - 1,
                                                                 margin=0.2)),
    ("cosine_similarity", lambda F, x, y: F.cosine_similarity(x, y).sum()),
    ("gaussian_nll", lambda F, x, y: F.gaussian_nll_loss(x, y.detach(), (y.detach() ** 2)[:, :1] * 0.5, full=True)),
    ("gaussian_nll_var_grad", lambda F, x, y: F.gaussian_nll_loss(y.detach(), y.detach() * 0.5, x.abs() + 1e-9)),
    ("poisson_nll", lambda F, x, y: F.poisson_nll_loss(x, (y.detach().abs() * 3).floor(), full=True)),
    ("poisson_nll_linear", lambda F, x, y: F.poisson_nll_loss(x.abs(), y.detach().abs(), log_input=False,
                                                              reduction="sum")),
    ("hinge_embedding", lambda F, x, y: F.hinge_embedding_loss(x, (y.detach() > 0).double() * 2 - 1, margin=0.5)),
    ("multi_margin", lambda F, x, y: F.multi_margin_loss(x, (y.detach()[:, 0].abs() * 2).long().clamp(0, 3),
                                                         margin=0.7)),
    ("multi_margin_p2_weight", lambda F, x, y: F.multi_margin_loss(x, (y.detach()[:, 0].abs() * 2).long().clamp(0, 3),
                                                                   p=2, weight=y.detach()[0].abs(), reduction="none")),
    ("triplet", lambda F, x, y: F.triplet_margin_loss(x, y.detach(), y.detach().flip(0), margin=2.0)),
    ("triplet_swap_p1", lambda F, x, y: F.triplet_margin_loss(x, y.detach(), y.detach() * 0.5, p=1, swap=True,
                                                              reduction="sum")),
    ("multilabel_soft_margin", lambda F, x, y: F.multilabel_soft_margin_loss(x, (y.detach() > 0).double(),
                                                                             weight=y.detach()[1].abs())),
    ("pairwise_distance", lambda F, x, y: F.pairwise_distance(x, y, p=3.0, keepdim=True)),
    ("normalize", lambda F, x, y: F.normalize(x, dim=0).sum() * 0 + (F.normalize(x, dim=0) * y.detach()).sum()),
]


@pytest.mark.parametrize("name, fn", LOSSES, ids=[n for n, _ in LOSSES])
def test_losses_match_torch(name, fn):
    xt, xe = pair_input(3, 4, seed=3)
    yt, ye = pair_input(3, 4, seed=4)
    lt, le = fn(tF, xt, yt), fn(F, xe, ye)
    np.testing.assert_allclose(le.detach().numpy(), lt.detach().numpy(), rtol=1e-10, atol=1e-12)
    lt.sum().backward()
    le.sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("kw", [{}, {"weight": True}, {"label_smoothing": 0.15},
                                {"weight": True, "label_smoothing": 0.1}, {"reduction": "sum"},
                                {"reduction": "none", "ignore_index": 2}])
def test_cross_entropy_matches_torch(kw):
    xt, xe = pair_input(4, 5, 3, seed=5)
    tgt = np.array([[0, 1, 2], [4, 2, 2], [3, 3, 0], [1, 0, 4]])
    if kw.pop("weight", False):
        kw["weight"] = np.array([0.5, 1.0, 2.0, 1.5, 0.7])
    kt = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    ke = {k: (ea.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    lt = tnn.CrossEntropyLoss(**kt)(xt, torch.tensor(tgt))
    le = nn.CrossEntropyLoss(**ke)(xe, ea.tensor(tgt))
    np.testing.assert_allclose(le.detach().numpy(), lt.detach().numpy(), rtol=1e-10)
    lt.sum().backward()
    le.sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-12)


OPTIMS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-2}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.2, "maximize": True}),
    ("Adam", {"lr": 1e-2, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 1e-2, "betas": (0.8, 0.99)}),
    ("AdamW", {"lr": 1e-2}),
    ("AdamW", {"lr": 1e-2, "amsgrad": True, "maximize": True, "weight_decay": 0.5}),
    ("RMSprop", {"lr": 1e-2, "centered": True, "momentum": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 1e-2, "alpha": 0.9}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1, "weight_decay": 0.1}),
    ("Adamax", {"lr": 1e-2, "weight_decay": 0.1}),
    ("Adamax", {"lr": 1e-2, "betas": (0.5, 0.9), "maximize": True}),
    ("NAdam", {"lr": 1e-2, "weight_decay": 0.1}),
    ("NAdam", {"lr": 1e-2, "momentum_decay": 0.01, "decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("RAdam", {"lr": 1e-2}),
    ("RAdam", {"lr": 1e-2, "weight_decay": 0.1, "decoupled_weight_decay": True, "betas": (0.8, 0.5)}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.1}),
    ("Adadelta", {"rho": 0.5, "maximize": True}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, kw", OPTIMS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMS)])
def test_optimizer_trajectories_match_torch(name, kw, dtype):
    rng = np.random.default_rng(0)
    p0 = rng.standard_normal((4, 3)).astype(dtype)
    pt = torch.nn.Parameter(torch.tensor(p0))
    pe = nn.Parameter(ea.tensor(p0))
    ot = getattr(torch.optim, name)([pt], **kw, foreach=False)
    oe = getattr(optim, name)([pe], **kw)
    for _ in range(8):
        g = rng.standard_normal((4, 3)).astype(dtype)
        pt.grad, pe.grad = torch.tensor(g), ea.tensor(g)
        ot.step()
        oe.step()
    rtol = 1e-13 if dtype == "float64" else 2e-6
    np.testing.assert_allclose(pe.detach().numpy(), pt.detach().numpy(), rtol=rtol, atol=rtol)
    st, se = ot.state_dict(), oe.state_dict()
    assert set(st["state"][0]) == set(se["state"][0])
    for k, v in st["state"][0].items():
        np.testing.assert_allclose(se["state"][0][k].numpy(), v.numpy(), rtol=rtol, atol=rtol, err_msg=k)


SCHEDULES = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 4, 4], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    ("LinearLR", {"start_factor": 0.2, "total_iters": 4}),
    ("ConstantLR", {"factor": 0.4, "total_iters": 3}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 16}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 16, "three_phase": True, "anneal_strategy": "linear"}),
    ("PolynomialLR", {"total_iters": 6, "power": 2.0}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01}),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "step_size_up": 3, "step_size_down": 2}),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "step_size_up": 2, "mode": "triangular2"}),
    ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0, "step_size_up": 2, "mode": "exp_range", "gamma": 0.9}),
]


@pytest.mark.parametrize("name, kw", SCHEDULES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULES)])
def test_schedules_match_torch(name, kw):
    ot = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.5, momentum=0.9)
    oe = optim.SGD([nn.Parameter(ea.zeros(1))], lr=0.5, momentum=0.9)
    st, se = getattr(torch.optim.lr_scheduler, name)(ot, **kw), getattr(S, name)(oe, **kw)
    for _ in range(15):
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
        assert oe.param_groups[0]["momentum"] == pytest.approx(ot.param_groups[0]["momentum"], rel=1e-12)
        ot.step()
        oe.step()
        st.step()
        se.step()


def test_sequential_and_plateau_match_torch():
    ot = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    oe = optim.SGD([nn.Parameter(ea.zeros(1))], lr=1.0)
    st = torch.optim.lr_scheduler.SequentialLR(
        ot, [torch.optim.lr_scheduler.LinearLR(ot, 0.1, total_iters=3),
             torch.optim.lr_scheduler.CosineAnnealingLR(ot, T_max=6)], milestones=[3])
    se = S.SequentialLR(oe, [S.LinearLR(oe, 0.1, total_iters=3), S.CosineAnnealingLR(oe, T_max=6)], milestones=[3])
    for _ in range(10):
        assert oe.param_groups[0]["lr"] == pytest.approx(ot.param_groups[0]["lr"], rel=1e-12)
        ot.step()
        oe.step()
        st.step()
        se.step()
    pt = torch.optim.lr_scheduler.ReduceLROnPlateau(ot, patience=1, cooldown=1, factor=0.5)
    pe = S.ReduceLROnPlateau(oe, patience=1, cooldown=1, factor=0.5)
    for m in [3, 2, 2, 2, 2, 1, 1, 1, 1, 1]:
        pt.step(m)
        pe.step(m)
        assert pe.get_last_lr() == pytest.approx(pt.get_last_lr(), rel=1e-12)


REPRS = [
    lambda m: m.Sequential(m.Conv2d(1, 4, 3, padding=1, bias=False), m.BatchNorm2d(4), m.ReLU(inplace=True),
                           m.MaxPool2d(2), m.Flatten(), m.Linear(16, 2), m.Dropout(0.2), m.LogSoftmax(dim=1)),
    lambda m: m.ModuleDict({"lstm": m.LSTM(3, 4, 2, dropout=0.1, bidirectional=True), "gru": m.GRUCell(2, 3)}),
    lambda m: m.TransformerEncoderLayer(8, 2, 16),
    lambda m: m.LSTM(3, 5, proj_size=2),
    lambda m: m.Transformer(8, 2, 1, 1, 16),
    lambda m: m.ModuleList([m.Embedding(5, 2, padding_idx=0), m.EmbeddingBag(5, 2), m.LayerNorm(3),
                            m.GroupNorm(1, 2), m.ConvTranspose2d(2, 2, 2, stride=2), m.AvgPool2d(2, 1),
                            m.AdaptiveAvgPool2d(1), m.Upsample(size=4), m.ELU(alpha=0.5), m.Softplus(),
                            m.Hardtanh(-2, 2), m.ReLU6(), m.SiLU(), m.Mish(), m.GELU(), m.Identity(),
                            m.Unflatten(1, (2, 2)), m.Bilinear(2, 3, 4), m.Conv1d(2, 2, 3, stride=2)]),
    lambda m: m.ModuleList([m.Unfold(2), m.Fold((4, 5), 2), m.Unfold((2, 3), stride=2)]),
    lambda m: m.ModuleList([m.UpsamplingNearest2d(scale_factor=2), m.UpsamplingBilinear2d(size=(3, 4)),
                            m.ChannelShuffle(2), m.LPPool2d(2, 2), m.LPPool1d(3, 2, stride=1)]),
    lambda m: m.ModuleList([m.InstanceNorm2d(3), m.InstanceNorm1d(2, affine=True), m.BatchNorm3d(4)]),
    lambda m: m.ParameterList([m.Parameter(__import__("torch").zeros(2, 3)) if m is tnn else
                               m.Parameter(ea.zeros(2, 3))]),
]


@pytest.mark.parametrize("make", REPRS)
def test_reprs_match_torch(make):
    expected = repr(make(tnn)).replace("torch.", "ember.")
    assert repr(make(nn)) == expected


def test_default_init_statistics_match_torch():
    """Same fan-based bounds: each layer's weights fill the same interval with the same spread."""
    for make in (lambda m: m.Linear(50, 40), lambda m: m.Conv2d(8, 16, 3), lambda m: m.LSTM(10, 20),
                 lambda m: m.Embedding(100, 30)):
        for (n, a), (_, b) in zip(make(tnn).named_parameters(), make(nn).named_parameters()):
            a, b = a.detach().numpy(), b.detach().numpy()
            if a.size < 500:  # too few samples for stable statistics
                continue
            if make(nn)._get_name() != "Embedding":
                assert np.abs(b).max() == pytest.approx(np.abs(a).max(), rel=0.1), n
            assert b.std() == pytest.approx(a.std(), rel=0.15), n


@pytest.mark.parametrize("cls, kw", [("LSTM", {"bidirectional": True, "num_layers": 2}), ("GRU", {}),
                                     ("RNN", {"bidirectional": True}), ("LSTM", {"proj_size": 2})])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences_match_torch(cls, kw, enforce_sorted):
    torch.manual_seed(0)
    mt, me = getattr(tnn, cls)(3, 4, batch_first=True, **kw), getattr(nn, cls)(3, 4, batch_first=True, **kw)
    to_ember(mt, me)
    lengths = [5, 3, 2] if enforce_sorted else [2, 5, 3]
    xt, xe = pair_input(3, 5, 3, seed=8)
    from ember.nn.utils import rnn as ernn
    pt = tnn.utils.rnn.pack_padded_sequence(xt, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    pe = ernn.pack_padded_sequence(xe, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    np.testing.assert_array_equal(pe.batch_sizes.numpy(), pt.batch_sizes.numpy())
    np.testing.assert_array_equal(pe.data.detach().numpy(), pt.data.detach().numpy())
    yt, ht = mt(pt)
    ye, he = me(pe)
    np.testing.assert_allclose(ye.data.detach().numpy(), yt.data.detach().numpy(), rtol=1e-8, atol=1e-10)
    for a, b in zip(outputs(ht), outputs(he)):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-8, atol=1e-10)
    padt, lent = tnn.utils.rnn.pad_packed_sequence(yt, batch_first=True, padding_value=-1.0)
    pade, lene = ernn.pad_packed_sequence(ye, batch_first=True, padding_value=-1.0)
    np.testing.assert_array_equal(lene.numpy(), lent.numpy())
    np.testing.assert_allclose(pade.detach().numpy(), padt.detach().numpy(), rtol=1e-8, atol=1e-10)
    padt.sum().backward()
    pade.sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_pack_sequence_matches_torch():
    seqs = [np.arange(6.0).reshape(3, 2), np.ones((1, 2)), np.full((2, 2), 2.0)]
    from ember.nn.utils import rnn as ernn
    pt = tnn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    pe = ernn.pack_sequence([ea.tensor(s) for s in seqs], enforce_sorted=False)
    np.testing.assert_array_equal(pe.data.numpy(), pt.data.numpy())
    np.testing.assert_array_equal(pe.sorted_indices.numpy(), pt.sorted_indices.numpy())
    np.testing.assert_array_equal(pe.unsorted_indices.numpy(), pt.unsorted_indices.numpy())


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim):
    torch.manual_seed(0)
    mt, me = tnn.Conv2d(2, 3, 3), nn.Conv2d(2, 3, 3)
    to_ember(mt, me)
    with pytest.warns(FutureWarning):
        tnn.utils.weight_norm(mt, dim=dim)
    with pytest.warns(FutureWarning):
        nn.utils.weight_norm(me, dim=dim)
    assert [n for n, _ in me.named_parameters()] == [n for n, _ in mt.named_parameters()]
    np.testing.assert_allclose(me.weight_g.detach().numpy(), mt.weight_g.detach().numpy(), rtol=1e-12)
    xt, xe = pair_input(1, 2, 5, 5, seed=9)
    mt(xt).sum().backward()
    me(xe).sum().backward()
    np.testing.assert_allclose(me.weight_g.grad.numpy(), mt.weight_g.grad.numpy(), rtol=1e-9)
    np.testing.assert_allclose(me.weight_v.grad.numpy(), mt.weight_v.grad.numpy(), rtol=1e-9, atol=1e-12)
    tnn.utils.remove_weight_norm(mt)
    nn.utils.remove_weight_norm(me)
    assert isinstance(me.weight, nn.Parameter) and "weight_g" not in dict(me.named_parameters())
    np.testing.assert_allclose(me.weight.detach().numpy(), mt.weight.detach().numpy(), rtol=1e-12)


def test_parametrizations_match_torch():
    torch.manual_seed(0)
    mt, me = tnn.Linear(3, 3), nn.Linear(3, 3)
    to_ember(mt, me)
    tnn.utils.parametrizations.weight_norm(mt)
    nn.utils.parametrizations.weight_norm(me)
    assert repr(me) == repr(mt)
    assert list(me.state_dict()) == list(mt.state_dict())

    def symmetric(m):
        class Symmetric(m.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).transpose(-1, -2)

        return Symmetric()

    tnn.utils.parametrize.register_parametrization(mt, "bias", tnn.Identity())
    nn.utils.parametrize.register_parametrization(me, "bias", nn.Identity())
    xt, xe = pair_input(2, 3, seed=10)
    mt(xt).sum().backward()
    me(xe).sum().backward()
    for (n, a), (_, b) in zip(mt.named_parameters(), me.named_parameters()):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-9, err_msg=n)
    st, se = tnn.Linear(3, 3).double(), nn.Linear(3, 3).double()
    tnn.utils.parametrize.register_parametrization(st, "weight", symmetric(tnn))
    nn.utils.parametrize.register_parametrization(se, "weight", symmetric(nn))
    w = se.weight.detach().numpy()
    np.testing.assert_array_equal(w, w.T)
    assert type(se).__name__ == type(st).__name__ == "ParametrizedLinear"
    nn.utils.parametrize.remove_parametrizations(se, "weight")
    assert type(se) is nn.Linear and isinstance(se.weight, nn.Parameter)
    np.testing.assert_array_equal(se.weight.detach().numpy(), w)


@pytest.mark.parametrize("make", [lambda m: m.Linear(5, 4), lambda m: m.Conv2d(2, 3, 3),
                                  lambda m: m.ConvTranspose2d(3, 2, 3)])
def test_spectral_norm_matches_torch_given_the_same_vectors(make):
    torch.manual_seed(0)
    mt, me = tnn.utils.parametrizations.spectral_norm(make(tnn)), nn.utils.parametrizations.spectral_norm(make(nn))
    assert list(me.state_dict()) == list(mt.state_dict())
    to_ember(mt, me)
    shape = (2, 5) if isinstance(mt, tnn.Linear) else (1, mt.in_channels, 5, 5)
    xt, xe = pair_input(*shape, seed=11)
    for train in (True, False):
        mt.train(train)
        me.train(train)
        yt, ye = mt(xt), me(xe)
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-9, atol=1e-12)
    yt.sum().backward()
    ye.sum().backward()
    np.testing.assert_allclose(me.parametrizations.weight.original.grad.numpy(),
                               mt.parametrizations.weight.original.grad.numpy(), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(me.parametrizations.weight[0]._u.numpy(), mt.parametrizations.weight[0]._u.numpy(),
                               rtol=1e-10)
