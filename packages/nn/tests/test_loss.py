"""Losses against float64 numpy formulas, for every reduction."""

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import functional as F

REDUCTIONS = ["none", "mean", "sum"]


def reduce(a, reduction):
    return {"none": a, "mean": a.mean(), "sum": a.sum()}[reduction]


def log_softmax(a, axis=1):
    m = a.max(axis, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(axis, keepdims=True))


def pair(*shape):
    return torch.randn(*shape, dtype=torch.float64), torch.randn(*shape, dtype=torch.float64)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(reduction):
    x, y = pair(4, 5)
    a, b = x.numpy(), y.numpy()
    d = np.abs(a - b)
    cases = [
        (nn.MSELoss(reduction=reduction), (a - b) ** 2),
        (nn.L1Loss(reduction=reduction), d),
        (nn.SmoothL1Loss(reduction=reduction, beta=0.5), np.where(d < 0.5, 0.5 * d ** 2 / 0.5, d - 0.25)),
        (nn.HuberLoss(reduction=reduction, delta=0.7), np.where(d < 0.7, 0.5 * d ** 2, 0.7 * (d - 0.35))),
    ]
    for loss, ref in cases:
        np.testing.assert_allclose(loss(x, y).numpy(), reduce(ref, reduction), rtol=1e-12, err_msg=repr(loss))


def test_invalid_reduction_and_broadcast_warning():
    x, y = pair(3)
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        F.mse_loss(x, y, reduction="bogus")
    with pytest.warns(UserWarning, match="Using a target size") as record:
        F.mse_loss(x, torch.zeros(1, dtype=torch.float64))
    assert record[0].filename == __file__  # the caller's line, through the composite's frame
    with pytest.warns(UserWarning, match="Using a target size") as record:
        F.l1_loss(x, torch.zeros(1, dtype=torch.float64))
    assert record[0].filename == __file__
    assert F.mse_loss(x, y, size_average=False).item() == pytest.approx(((x.numpy() - y.numpy()) ** 2).sum())


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_and_with_logits(reduction):
    logits = torch.randn(6, 3, dtype=torch.float64) * 3
    target = (torch.rand(6, 3) > 0.5).double()
    weight = torch.rand(3, dtype=torch.float64)
    pos_weight = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
    z, t, wt, pw = logits.numpy(), target.numpy(), weight.numpy(), pos_weight.numpy()
    p = 1 / (1 + np.exp(-z))
    bce = -(t * np.maximum(np.log(p), -100) + (1 - t) * np.maximum(np.log(1 - p), -100)) * wt
    np.testing.assert_allclose(nn.BCELoss(weight, reduction=reduction)(torch.sigmoid(logits), target).numpy(),
                               reduce(bce, reduction), rtol=1e-10)
    ref = -(pw * t * np.log(p) + (1 - t) * np.log(1 - p)) * wt
    got = nn.BCEWithLogitsLoss(weight, reduction=reduction, pos_weight=pos_weight)(logits, target)
    np.testing.assert_allclose(got.numpy(), reduce(ref, reduction), rtol=1e-10)


def test_bce_with_logits_is_stable_for_large_logits():
    x = torch.tensor([100.0, -100.0], dtype=torch.float64)
    t = torch.tensor([0.0, 1.0], dtype=torch.float64)
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(x, t, reduction="none").numpy(), [100.0, 100.0])
    with pytest.raises(ValueError, match="Target size"):
        F.binary_cross_entropy_with_logits(x, t[:1])
    with pytest.raises(ValueError, match="Using a target size"):
        F.binary_cross_entropy(torch.sigmoid(x), t[:1])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_class_ids_weight_ignore_index_and_smoothing(reduction):
    x = torch.randn(5, 4, 3, dtype=torch.float64)
    t = torch.tensor([[0, 1, 3], [2, 2, -100], [1, 0, 0], [3, 3, 1], [-100, 2, 1]])
    wt = torch.tensor([0.5, 1.0, 2.0, 1.5], dtype=torch.float64)
    lp = log_softmax(x.numpy())
    tn = t.numpy()
    valid = tn != -100
    safe = np.where(valid, tn, 0)
    picked = np.take_along_axis(lp, safe[:, None], 1)[:, 0]
    w_t = wt.numpy()[safe] * valid
    nll = -picked * w_t
    ref = {"none": nll, "sum": nll.sum(), "mean": nll.sum() / w_t.sum()}[reduction]
    got = nn.CrossEntropyLoss(weight=wt, reduction=reduction)(x, t)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10)
    ls = 0.2
    smooth = -(lp * wt.numpy()[None, :, None]).sum(1) * valid
    sref = {"none": smooth, "sum": smooth.sum(), "mean": smooth.sum() / w_t.sum()}[reduction]
    got = F.cross_entropy(x, t, weight=wt, reduction=reduction, label_smoothing=ls)
    np.testing.assert_allclose(got.numpy(), (1 - ls) * ref + ls / 4 * sref, rtol=1e-10)
    nll_mod = nn.NLLLoss(reduction=reduction)(torch.tensor(lp), t)
    plain = -picked * valid
    np.testing.assert_allclose(nll_mod.numpy(), {"none": plain, "sum": plain.sum(),
                                                  "mean": plain.sum() / valid.sum()}[reduction], rtol=1e-10)


def test_cross_entropy_probability_targets():
    x = torch.randn(4, 5, dtype=torch.float64)
    p = torch.softmax(torch.randn(4, 5, dtype=torch.float64), 1)
    lp = log_softmax(x.numpy())
    np.testing.assert_allclose(F.cross_entropy(x, p).item(), -(lp * p.numpy()).sum(1).mean(), rtol=1e-10)
    sm = p.numpy() * 0.9 + 0.1 / 5
    np.testing.assert_allclose(F.cross_entropy(x, p, label_smoothing=0.1).item(), -(lp * sm).sum(1).mean(), rtol=1e-10)


def test_cross_entropy_errors():
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target batch_size \(3\)"):
        F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 1, 2]))


def _refused(fn, arg):
    return f"^The function '{fn}' is not differentiable with respect to argument '{arg}'. This input cannot have " \
           "requires_grad True.$"


def test_loss_class_weights_that_require_grad_are_refused_as_pytorch_does():
    """PyTorch 2.13 declares these weights non-differentiable: a weight requiring grad raises while grad mode is on,
    even when the input does not (the probability-target cross entropy is a composite and takes one)."""
    x = torch.randn(4, 3)
    t = torch.tensor([0, 1, 2, 1])
    p = torch.softmax(torch.randn(4, 3), 1)
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    cases = [
        (lambda: F.binary_cross_entropy_with_logits(x, p, weight=w), "binary_cross_entropy_with_logits", "weight"),
        (lambda: F.binary_cross_entropy_with_logits(x, p, pos_weight=w), "binary_cross_entropy_with_logits",
         "pos_weight"),
        (lambda: F.binary_cross_entropy(torch.sigmoid(x), p, weight=w), "binary_cross_entropy", "weight"),
        (lambda: F.nll_loss(x, t, weight=w), "nll_loss_forward", "weight"),
        (lambda: nn.CrossEntropyLoss(weight=w, label_smoothing=0.1)(x, t), "nll_loss_forward", "weight"),
        (lambda: F.cross_entropy(x.view(2, 3, 2), torch.zeros(2, 2, dtype=torch.long), weight=w),
         "nll_loss2d_forward", "weight"),
        (lambda: F.multi_margin_loss(x, t, weight=w), "multi_margin_loss", "weight"),
    ]
    for call, fn, arg in cases:
        with pytest.raises(RuntimeError, match=_refused(fn, arg)):
            call()
    assert F.cross_entropy(x, p, weight=w).requires_grad
    with torch.no_grad():
        assert F.nll_loss(x, t, weight=w).item() == F.nll_loss(x, t, weight=w.detach()).item()


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
def test_kl_div(reduction):
    inp = torch.log_softmax(torch.randn(3, 4, dtype=torch.float64), 1)
    tgt = torch.softmax(torch.randn(3, 4, dtype=torch.float64), 1)
    tgt[0, 0] = 0.0
    a, b = inp.numpy(), tgt.numpy()
    pointwise = np.where(b > 0, b * (np.log(np.where(b > 0, b, 1)) - a), 0.0)
    ref = pointwise.sum() / 3 if reduction == "batchmean" else reduce(pointwise, reduction)
    if reduction == "mean":
        with pytest.warns(UserWarning, match="batchmean"):
            got = nn.KLDivLoss(reduction=reduction)(inp, tgt)
    else:
        got = nn.KLDivLoss(reduction=reduction)(inp, tgt)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10)
    lt = torch.log(tgt + 0.1)
    log_ref = np.exp(lt.numpy()) * (lt.numpy() - a)
    expect = log_ref.sum() / 3 if reduction == "batchmean" else reduce(log_ref, reduction)
    if reduction == "mean":
        with pytest.warns(UserWarning):
            got = F.kl_div(inp, lt, reduction=reduction, log_target=True)
    else:
        got = F.kl_div(inp, lt, reduction=reduction, log_target=True)
    np.testing.assert_allclose(got.numpy(), expect, rtol=1e-10)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding_loss(reduction):
    x1, x2 = pair(5, 3)
    t = torch.tensor([1, -1, 1, -1, -1])
    a, b = x1.numpy(), x2.numpy()
    cos = (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12))
    ref = np.where(t.numpy() == 1, 1 - cos, np.maximum(cos - 0.1, 0))
    got = nn.CosineEmbeddingLoss(margin=0.1, reduction=reduction)(x1, x2, t)
    np.testing.assert_allclose(got.numpy(), reduce(ref, reduction), rtol=1e-10)


def test_cosine_similarity_normalize_one_hot():
    x1, x2 = pair(4, 6)
    a, b = x1.numpy(), x2.numpy()
    ref = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    np.testing.assert_allclose(F.cosine_similarity(x1, x2).numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(F.normalize(x1).numpy(), a / np.linalg.norm(a, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(F.normalize(x1, p=1, dim=0).numpy(), a / np.abs(a).sum(0), rtol=1e-12)
    oh = F.one_hot(torch.tensor([0, 2, 1]), 4)
    assert oh.dtype == torch.int64 and oh.tolist() == [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]]
    assert F.one_hot(torch.tensor([1, 3])).shape == (2, 4)


def test_more_losses_against_formulas():
    x, y = pair(4, 3)
    a, b = x.numpy(), y.numpy()
    var = np.abs(b) + 0.1
    np.testing.assert_allclose(nn.GaussianNLLLoss(full=True)(x, y, torch.tensor(var)).numpy(),
                               (0.5 * (np.log(var) + (a - b) ** 2 / var) + 0.5 * np.log(2 * np.pi)).mean(), rtol=1e-12)
    counts = np.floor(np.abs(b) * 3)
    np.testing.assert_allclose(nn.PoissonNLLLoss()(x, torch.tensor(counts)).numpy(), (np.exp(a) - counts * a).mean(),
                               rtol=1e-12)
    t = np.where(b > 0, 1.0, -1.0)
    np.testing.assert_allclose(nn.HingeEmbeddingLoss(margin=0.5)(x, torch.tensor(t)).numpy(),
                               np.where(t == 1, a, np.maximum(0, 0.5 - a)).mean(), rtol=1e-12)
    cls = np.array([0, 2, 1, 2])
    picked = a[np.arange(4), cls][:, None]
    hinge = np.maximum(0, 1.0 - picked + a)
    hinge[np.arange(4), cls] = 0
    np.testing.assert_allclose(nn.MultiMarginLoss()(x, torch.tensor(cls)).numpy(), (hinge.sum(1) / 3).mean(),
                               rtol=1e-12)
    n = b[::-1].copy()
    d = lambda u, v: np.linalg.norm(u - v + 1e-6, axis=-1)
    np.testing.assert_allclose(nn.TripletMarginLoss(margin=2.0)(x, y, torch.tensor(n)).numpy(),
                               np.maximum(2.0 + d(a, b) - d(a, n), 0).mean(), rtol=1e-12)
    tgt = (b > 0).astype(np.float64)
    ls = lambda z: -np.log1p(np.exp(-z))
    ref = -(tgt * ls(a) + (1 - tgt) * ls(-a)).mean(1).mean()
    np.testing.assert_allclose(nn.MultiLabelSoftMarginLoss()(x, torch.tensor(tgt)).numpy(), ref, rtol=1e-12)
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, y, -torch.ones(4, 3, dtype=torch.float64))


def test_multi_margin_loss_checks_target_range_and_weight_size():
    x = torch.zeros(3, 5)
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, torch.tensor([0, 5, 1]))
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, torch.tensor([0, -1, 1]))
    with pytest.raises(RuntimeError, match=r"inconsistent weight size, expected 5 but got \[3\]"):
        F.multi_margin_loss(x, torch.tensor([0, 1, 1]), weight=torch.ones(3))


@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 0), (0,)])
def test_multi_margin_loss_refuses_other_than_a_non_empty_vector_or_matrix(shape):
    with pytest.raises(RuntimeError) as info:
        F.multi_margin_loss(torch.zeros(*shape), torch.tensor([0, 1]))
    assert str(info.value) == ("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                               f"{list(shape)}")


def test_multi_margin_loss_of_one_sample_takes_the_targets_shape():
    x = torch.tensor([0.5, 0.75, 0.125])
    want = (0.75 + 0.375) / 3  # max(0, 1 - x[1] + x[i]) over i != 1, over C
    for target in (torch.tensor(1), torch.tensor([1])):
        loss = F.multi_margin_loss(x, target, reduction="none")
        assert loss.shape == target.shape and abs(loss.sum().item() - want) < 1e-7
    assert F.multi_margin_loss(torch.tensor(0.5), torch.tensor(0)).item() == 0.0  # a number: one class, no margin


def test_gaussian_nll_loss_of_an_infinite_variance_is_inf_not_nan():
    E = torch
    # found by the fuzz campaign's loss family: the value-only clamp (clamp(var) - var) was inf - inf
    x = E.tensor([1.0, 2.0, 3.0], dtype=E.float64, requires_grad=True)
    var = E.tensor([float("inf"), 1e-9, 2.0], dtype=E.float64, requires_grad=True)
    loss = F.gaussian_nll_loss(x, E.zeros(3, dtype=E.float64), var, reduction="none")
    loss.sum().backward()
    # float64 math (var clamped at eps = 1e-6 in value; its gradient passes through, as PyTorch)
    np.testing.assert_allclose(loss.detach().numpy(), [np.inf, 0.5 * (np.log(1e-6) + 4 / 1e-6),
                                                       0.5 * (np.log(2) + 9 / 2)], rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 2 / 1e-6, 1.5], rtol=1e-12)
    np.testing.assert_allclose(var.grad.numpy(), [0.0, 0.5 / 1e-6 - 2 / 1e-12, 0.25 - 9 / 8], rtol=1e-12)


def test_triplet_margin_loss_refuses_a_non_positive_margin_and_bce_a_target_outside_0_1():
    E = torch
    # found by the fuzz campaign's loss family: both computed where PyTorch raises
    a = E.ones(2, 3)
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0.0"):
        F.triplet_margin_loss(a, a, a, margin=0.0)
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(E.full((2,), 0.5), E.tensor([0.5, 1.5]))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(E.full((1,), 0.5), E.tensor([float("nan")]))


def test_bce_refuses_integer_labels_with_pytorchs_messages():
    x, labels = torch.tensor([0.5, 0.2]), torch.tensor([1, 0])
    with pytest.raises(RuntimeError, match="^Found dtype Long but expected Float$"):
        nn.BCELoss()(x, labels)
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        F.binary_cross_entropy(x, labels.double())
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        nn.BCEWithLogitsLoss()(x, labels)
    with pytest.raises(RuntimeError, match=r"^Subtraction, the `-` operator, with two bool tensors is not supported\. "
                                           r"Use the `\^` or `logical_xor\(\)` operator instead\.$"):
        F.binary_cross_entropy_with_logits(x, labels.bool(), pos_weight=torch.ones(2))
    assert F.binary_cross_entropy_with_logits(x, labels.float()).item() == pytest.approx(
        float(np.mean(np.log1p(np.exp(-np.array([0.5, -0.2]))))), rel=1e-6)


def test_margin_losses_refuse_targets_as_pytorch():
    x = torch.zeros(3, 5)
    with pytest.raises(RuntimeError, match="^expected scalar type Long but found Float$"):
        F.multi_margin_loss(x, torch.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(RuntimeError, match="^expected scalar type Long but found Int$"):
        F.multilabel_margin_loss(x, torch.zeros(3, 5, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="^argument #2 'target' is out of range$"):
        F.multilabel_margin_loss(x, torch.full((3, 5), 7))
    with pytest.raises(RuntimeError, match=r"^margin_ranking_loss : All input tensors should have same dimension but "
                                           r"got sizes: input1: .*Size\(\[3\]\), input2: .*Size\(\[3, 1\]\), "
                                           r"target: .*Size\(\[3\]\) $"):
        F.margin_ranking_loss(torch.ones(3), torch.ones(3, 1), torch.ones(3))
    # equal dims broadcast (PyTorch too)
    assert F.margin_ranking_loss(torch.ones(3), torch.zeros(1), torch.ones(3), margin=2.0).item() == 1.0


@pytest.mark.parametrize("fn, kernel", [(F.mse_loss, "mse_cpu"), (F.huber_loss, "huber_cpu"),
                                        (F.smooth_l1_loss, "smooth_l1_cpu")])
def test_pointwise_losses_refuse_integer_inputs_as_pytorch(fn, kernel):
    x = torch.ones(3)
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Long'$"):
        fn(x.int(), x.long())
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Bool'$"):
        fn(x.bool(), x.bool(), reduction="none")
    out = fn(x.long(), torch.zeros(3, dtype=torch.float64))  # a floating promotion computes
    assert out.dtype == torch.float64 and out.item() == pytest.approx({"mse_cpu": 1.0}.get(kernel, 0.5))


def test_kl_div_refuses_integral_inputs():
    x = torch.ones(3, 5)
    for a, b in ((x.long(), x), (x, x.long()), (x, x.bool())):
        with pytest.raises(RuntimeError, match=r"^kl_div: Integral inputs not supported\.$"):
            F.kl_div(a, b, reduction="batchmean")


def test_kl_div_warns_about_mean_before_checking_inputs():
    import warnings

    x = torch.ones(3, 5)
    with pytest.warns(UserWarning, match=r"^reduction: 'mean' divides the total loss by both the batch size and the "
                                         r"support size\.'batchmean'"):
        with pytest.raises(RuntimeError, match="Integral inputs not supported"):
            F.kl_div(x, x.long())
    with pytest.raises(ValueError, match="^bad is not a valid value for reduction$"):
        F.kl_div(x, x.long(), reduction="bad")  # the reduction first, as PyTorch's Python wrapper
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        F.kl_div(x, x, size_average=True)  # legacy arguments: only their own deprecation warning
    assert [str(w.message)[:12] for w in ws] == ["size_average"]


def test_legacy_reduction_args_warn_as_pytorch():
    x = torch.ones(3)
    with pytest.warns(UserWarning, match=r"^size_average and reduce args will be deprecated, please use "
                                         r"reduction='sum' instead\.$"):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning, match=r"please use reduction='none' instead\.$"):
        assert F.l1_loss(x, x * 0, reduce=False).shape == (3,)


def test_triplet_with_distance_defaults_to_a_pairwise_distance_module():
    loss = nn.TripletMarginWithDistanceLoss(margin=0.5)
    assert isinstance(loss.distance_function, nn.PairwiseDistance)
    assert repr(loss) == "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"


def test_broadcast_and_implicit_dim_warnings_name_the_callers_line():
    import warnings

    x = torch.zeros(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.mse_loss(x, torch.zeros(3))
        F.l1_loss(x, torch.zeros(3))
        F.softmax(x)
    assert [w.filename for w in caught] == [__file__] * 3
    assert str(caught[0].message).startswith("Using a target size (") and "Implicit dimension" in str(caught[2].message)


def test_bce_with_logits_computes_into_the_targets_dtype_as_pytorch():
    x = torch.tensor([0.5, -1.0, 2.0])
    t16 = torch.tensor([1.0, 0.0, 1.0], dtype=torch.float16)
    assert F.binary_cross_entropy_with_logits(x, t16).dtype is torch.float16
    assert F.binary_cross_entropy_with_logits(x.double(), t16.float(), reduction="none").dtype is torch.float32
    assert F.binary_cross_entropy_with_logits(x.half(), t16.float()).dtype is torch.float32
    pw = torch.ones(3, dtype=torch.float64)
    assert F.binary_cross_entropy_with_logits(x, t16, pos_weight=pw).dtype is torch.float16


def test_bce_with_logits_mixed_dtypes_match_pytorch():
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, t, w, pw = rng.normal(size=40) * 3, rng.uniform(size=40), rng.uniform(size=40), rng.uniform(size=40) * 3
    for xd, td, pd in [("float32", "float16", None), ("float32", "float16", "float64"), ("float64", "float32", None),
                       ("float32", "bfloat16", "float32")]:
        out = []
        for lib, fn in ((real, real.nn.functional), (torch, F)):
            kw = {} if pd is None else {"pos_weight": lib.tensor(pw, dtype=getattr(lib, pd))}
            loss = fn.binary_cross_entropy_with_logits(lib.tensor(x, dtype=getattr(lib, xd)),
                                                        lib.tensor(t, dtype=getattr(lib, td)),
                                                        weight=lib.tensor(w, dtype=getattr(lib, td)), reduction="none",
                                                        **kw)
            out.append((str(loss.dtype).split(".")[-1], loss.double().tolist()))
        assert out[0] == out[1], (xd, td, pd)


def test_bce_weight_that_does_not_broadcast_raises_broadcast_shapes_error():
    with pytest.raises(RuntimeError, match=r"^Attempting to broadcast a dimension of length 4 at -1! Mismatching "
                                           r"argument at index 1 had \w+\.Size\(\[4\]\); but expected shape should be "
                                           r"broadcastable to \[2, 3\]$"):
        F.binary_cross_entropy(torch.full((2, 3), 0.5), torch.ones(2, 3), weight=torch.ones(4))


def test_cosine_embedding_loss_target_rank_errors_and_soft_margin_operand_order():
    x, y = torch.ones(4, 5), torch.ones(4, 5)
    with pytest.raises(RuntimeError, match="^0D or 1D target tensor expected, multi-target not supported$"):
        F.cosine_embedding_loss(x, y, torch.ones(4, 1))
    with pytest.raises(RuntimeError, match=r"^0D target tensor expects 1D input tensors, but found inputs with sizes "
                                           r"\[4, 5\] and \[4, 5\].$"):
        F.cosine_embedding_loss(x, y, torch.ones(()))
    with pytest.raises(RuntimeError, match=r"size of tensor a \(5\) must match the size of tensor b \(2\)"):
        F.soft_margin_loss(x, torch.ones(4, 2))


def test_non_tensor_operands_are_refused_in_pytorchs_parser_words():
    x = torch.ones(2, 3)
    with pytest.raises(TypeError, match=r"^linear\(\): argument 'input' \(position 1\) must be Tensor, not list$"):
        F.linear([[1.0, 2.0, 3.0]], x)
    with pytest.raises(TypeError, match=r"^linear\(\): argument 'bias' \(position 3\) must be Tensor, not list$"):
        F.linear(x, x, [1.0, 2.0])
    with pytest.raises(TypeError, match=r"^cross_entropy_loss\(\): argument 'input' \(position 1\) must be Tensor, "
                                        r"not numpy\.ndarray$"):
        F.cross_entropy(np.ones((2, 3)), torch.tensor([0, 1]))
    with pytest.raises(TypeError, match=r"^cross_entropy_loss\(\): argument 'target' \(position 2\) must be Tensor, "
                                        r"not list$"):
        F.cross_entropy(x, [0, 1])
    with pytest.raises(TypeError, match=r"^nll_loss_nd\(\): argument 'input' \(position 1\) must be Tensor, "
                                        r"not NoneType$"):
        F.nll_loss(None, torch.tensor([0]))
    assert F.linear(x, x).shape == (2, 2)


def test_losses_refuse_arguments_of_the_wrong_kind_as_pytorchs_parser():
    """kl_div's log_target (a keyword to torch.kl_div), cross_entropy's ATen positions and cosine_similarity's
    binding refuse a wrong kind with PyTorch's TypeError, instead of computing with a truthy string or crashing."""
    a, b = torch.randn(2, 3), torch.randn(2, 3)
    cases = [
        (lambda: F.kl_div(a, b, reduction="sum", log_target="yes"), "kl_div(): argument 'log_target' must be bool, "
                                                                    "not str"),
        (lambda: F.kl_div(a, b, reduction="sum", log_target=1), "kl_div(): argument 'log_target' must be bool, not "
                                                                "int"),
        (lambda: F.kl_div(a, [1.0], reduction="sum"), "kl_div(): argument 'target' (position 2) must be Tensor, not "
                                                      "list"),
        (lambda: F.cross_entropy(a, b, label_smoothing="0.1"), "cross_entropy_loss(): argument 'label_smoothing' "
                                                               "(position 6) must be float, not str"),
        (lambda: F.cross_entropy(a, torch.tensor([0, 1]), ignore_index=0.5), "cross_entropy_loss(): argument "
                                                                         "'ignore_index' (position 5) must be int, "
                                                                         "not float"),
        (lambda: F.cosine_similarity(a, b, None), "cosine_similarity(): argument 'dim' (position 3) must be int, not "
                                                  "NoneType"),
        (lambda: F.cosine_similarity(a, b, eps=None), "cosine_similarity(): argument 'eps' must be float, not "
                                                      "NoneType"),
        (lambda: F.cosine_similarity(a, [1.0]), "cosine_similarity(): argument 'x2' (position 2) must be Tensor, not "
                                                "list"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message
    assert F.cosine_similarity(a, a, dim=1).allclose(torch.ones(2))
    assert F.kl_div(a, a, reduction="sum", log_target=True).item() == 0.0


@pytest.mark.parametrize("var_shape", [(2, 1, 4), (1, 3, 4), (2, 3, 1), (2, 3)])
def test_gaussian_nll_loss_broadcasts_a_variance_short_in_one_dimension(var_shape):
    a = np.arange(24.0).reshape(2, 3, 4) / 10
    v = np.full(var_shape, 0.5)
    want = 0.5 * (np.log(0.5) + a ** 2 / 0.5)
    loss = F.gaussian_nll_loss(torch.tensor(a), torch.zeros(2, 3, 4, dtype=torch.float64), torch.tensor(v),
                               reduction="none")
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-12)


def test_gaussian_nll_loss_checks_sign_then_size_then_reduction_in_pytorchs_words():
    x = torch.zeros(2, 3, 4)
    for var in [torch.ones(1, 1, 4), torch.ones(2, 2, 4), torch.ones(4)]:  # two dims off, a wrong size, too short
        with pytest.raises(ValueError, match="^var is of incorrect size$"):
            F.gaussian_nll_loss(x, x, var)
    with pytest.raises(ValueError, match="^var has negative entry/entries$"):
        F.gaussian_nll_loss(x, x, -0.5)
    with pytest.raises(ValueError, match="^var has negative entry/entries$"):
        F.gaussian_nll_loss(x, x, -torch.ones(1, 1, 4), reduction="avg")
    with pytest.raises(ValueError, match="^avg is not valid$"):
        F.gaussian_nll_loss(x, x, torch.ones(2, 3, 4), reduction="avg")


def test_normalize_takes_a_str_or_none_order_through_tensor_norm_as_pytorchs():
    """PyTorch's F.normalize calls `input.norm(p, dim, keepdim=True)`: "fro" and None are its 2-norm over `dim`,
    any other string torch.norm's matrix-norm refusal."""
    x = torch.tensor([[3.0, 4.0], [0.0, 2.0]], dtype=torch.float64)
    for p in ("fro", None):
        assert F.normalize(x, p=p).tolist() == [[0.6, 0.8], [0.0, 1.0]]
    with pytest.raises(RuntimeError, match=r"^linalg.matrix_norm: Order 2 not supported\.$"):
        F.normalize(x, p="2")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_16bit_smooth_l1_and_huber_round_as_pytorchs_kernels(dtype):
    # PyTorch 2.13's CPU kernels: smooth_l1 computes bfloat16 in float32 (one rounding of each loss) and float16 in
    # float16 steps; huber the reverse. Each such loss was an ulp off in 16-32% of these elements before
    x = torch.randn(6, 7, 5, generator=torch.Generator().manual_seed(0)) * 2
    a, b = x.to(getattr(torch, dtype)), x.flip(0).to(getattr(torch, dtype))
    d = np.abs(a.float().numpy() - b.float().numpy())  # float32, unrounded
    step = np.abs((a - b).float().numpy())  # the difference rounded to the 16-bit dtype
    loss = lambda z: np.where(z < 1, 0.5 * z * z, z - 0.5)  # noqa: E731 (both at beta = delta = 1)
    want_smooth = loss(d if dtype == "bfloat16" else step)
    want_huber = loss(d if dtype == "float16" else step)
    for got, want in ((F.smooth_l1_loss(a, b, reduction="none"), want_smooth),
                      (F.huber_loss(a, b, reduction="none"), want_huber)):
        assert got.dtype is a.dtype
        rounded = torch.tensor(want.astype(np.float32)).to(a.dtype).float().numpy()
        np.testing.assert_array_equal(got.float().numpy(), rounded)
    assert F.smooth_l1_loss(a.requires_grad_(), b).grad_fn.name() == "SmoothL1LossBackward0"
def test_hinge_embedding_loss_of_an_integer_input_keeps_its_dtype_and_truncated_margin():
    # PyTorch fills the margin into the input's dtype (2.7 -> 2, -1.0 refused for uint8) and subtracts there
    x, y = torch.tensor([0, 1, 2, 3], dtype=torch.uint8), torch.tensor([-1, -1, -1, 1])
    r = F.hinge_embedding_loss(x, y, margin=2.7, reduction="none")
    assert r.dtype is torch.uint8 and r.tolist() == [2, 1, 0, 3]
    assert F.hinge_embedding_loss(x.long(), y, margin=2.7, reduction="sum").item() == 6
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        F.hinge_embedding_loss(x, y, margin=-1.0)
    with pytest.raises(RuntimeError, match="^mean\\(\\): could not infer output dtype"):
        F.hinge_embedding_loss(x, y)
    with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with two bool tensors"):
        F.hinge_embedding_loss(torch.tensor([True]), torch.tensor([1]))
