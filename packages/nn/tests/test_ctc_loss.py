"""ctc_loss and CTCLoss: the loss against a brute-force sum over every alignment (float64),
gradients by finite differences through log_softmax, PyTorch's values and gradients, and its
errors for bad lengths, targets and blanks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
import ember.nn.functional as F


def _collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def brute_nll(lp, target, blank=0):
    """-log of the summed probability of every path of length T that collapses to `target`."""
    t_n, c_n = lp.shape
    total = 0.0
    for path in itertools.product(range(c_n), repeat=t_n):
        if _collapse(path, blank) == list(target):
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


def _inputs(seed=0, t=5, n=3, c=4):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((t, n, c))
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    return x, lp


def test_ctc_loss_matches_the_brute_force_sum_over_alignments():
    _, lp = _inputs()
    targets = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
    il, tl = [5, 4, 3], [3, 2, 0]
    got = F.ctc_loss(E.tensor(lp), E.tensor(targets), il, tl, reduction="none").numpy()
    want = [brute_nll(lp[:il[i], i], targets[i, :tl[i]]) for i in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    mean = F.ctc_loss(E.tensor(lp), E.tensor(targets), il, tl).item()
    assert E.ctc_loss(E.tensor(lp), E.tensor(targets), il, tl, 0, 1).item() == mean  # torch.ctc_loss's int reduction
    np.testing.assert_allclose(mean, np.mean([w / max(n, 1) for w, n in zip(want, tl)]), rtol=1e-12)
    np.testing.assert_allclose(F.ctc_loss(E.tensor(lp), E.tensor(targets), il, tl, reduction="sum").item(),
                               sum(want), rtol=1e-12)


def test_concatenated_targets_unbatched_input_and_other_blank_agree():
    _, lp = _inputs(1, n=2)
    padded = np.array([[1, 2, 0], [3, 3, 1]])
    concat = np.array([1, 2, 3, 3, 1])
    a = F.ctc_loss(E.tensor(lp), E.tensor(padded), E.tensor([5, 5]), E.tensor([2, 3]), reduction="none")
    b = F.ctc_loss(E.tensor(lp), E.tensor(concat), (5, 5), (2, 3), reduction="none")
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    single = F.ctc_loss(E.tensor(lp[:, 1]), E.tensor([3, 3, 1]), [5], [3], reduction="none")
    np.testing.assert_allclose(single.item(), a.numpy()[1], rtol=1e-12)
    other_blank = F.ctc_loss(E.tensor(lp[:, :1]), E.tensor([[0, 1]]), [5], [2], blank=3, reduction="none")
    np.testing.assert_allclose(other_blank.item(), brute_nll(lp[:, 0], [0, 1], blank=3), rtol=1e-12)


def test_impossible_alignments_are_infinite_or_zero_with_zero_infinity():
    x, lp = _inputs(2, n=2)
    targets = E.tensor([[1, 1, 1], [1, 2, 3]])
    got = F.ctc_loss(E.tensor(lp), targets, [5, 2], [3, 3], reduction="none")  # 1 1 1 needs 5 steps: fits
    assert np.isfinite(got.numpy()[0]) and got.numpy()[1] == np.inf
    xt = E.tensor(x, requires_grad=True)
    loss = F.ctc_loss(xt.log_softmax(2), targets, [5, 2], [3, 3], reduction="sum", zero_infinity=True)
    loss.backward()
    assert np.isfinite(loss.item()) and not xt.grad.numpy()[:, 1].any()
    assert np.isfinite(xt.grad.numpy()).all()


def _nonfinite_log_probs(device="cpu"):
    """Two sequences: a NaN on a class no alignment uses (finite loss, NaN gradient there) and +inf on a
    blank every alignment may pass (NaN loss), then a sequence whose alignments are all impossible."""
    h, q = np.log(0.5), np.log(0.25)
    lp = np.array([[[h, np.nan, h], [q, q, h]], [[h, q, q], [np.inf, h, h]]])
    return E.tensor(lp, requires_grad=True, device=device), E.tensor([[2], [1]], device=device)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the CUDA simulator's numpy scalars warn on inf - inf
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_zero_infinity_zeroes_infinite_losses_only_and_nan_propagates(device):
    # zero_infinity replaces +inf losses (and their gradients) by 0; a NaN loss stays NaN with a NaN
    # gradient, as PyTorch's (values hard-coded from torch 2.13)
    if device == "cuda" and not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    lp, targets = _nonfinite_log_probs(device)
    loss = F.ctc_loss(lp, targets, [2, 2], [1, 1], reduction="none", zero_infinity=True)
    loss.sum().backward()
    np.testing.assert_allclose(loss.detach().cpu().numpy(), [np.log(2), np.nan])
    g = lp.grad.cpu().numpy()
    np.testing.assert_allclose(g[:, 0], [[0.25, np.nan, -0.25], [0.0, 0.25, -0.25]], atol=1e-15)
    assert np.isnan(g[:, 1]).all()
    assert np.isnan(F.ctc_loss(lp, targets, [2, 2], [1, 1], reduction="sum", zero_infinity=True).item())
    impossible = E.tensor([[[0.0, -np.inf]], [[0.0, -1.0]]], requires_grad=True, device=device)
    loss = F.ctc_loss(impossible, E.tensor([[1, 1]], device=device), [2], [2], reduction="none", zero_infinity=True)
    loss.sum().backward()
    assert loss.item() == 0.0 and not impossible.grad.cpu().numpy().any()
    # +inf on the only path: -inf + inf is NaN, not an impossible alignment
    inf_path = E.tensor([[[0.0, -np.inf]], [[-np.inf, np.inf]]], requires_grad=True, device=device)
    loss = F.ctc_loss(inf_path, E.tensor([[1]], device=device), [2], [1], reduction="none", zero_infinity=True)
    loss.sum().backward()
    assert np.isnan(loss.item()) and np.isnan(inf_path.grad.cpu().numpy()).all()


@pytest.mark.torch
def test_nonfinite_log_probs_match_pytorch_values_and_gradients():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(150):
        _compare_nonfinite_case(torch, rng)


def _compare_nonfinite_case(torch, rng):
    with np.errstate(over="ignore", invalid="ignore"):  # numpy's warnings summing infinities
        t, n, c = (int(v) for v in rng.integers(1, [6, 3, 4], endpoint=False) + [0, 0, 1])
        base = np.log(rng.dirichlet(np.ones(c), size=(t, n)))
        for _ in range(rng.integers(0, 3)):
            base[rng.integers(t), rng.integers(n), rng.integers(c)] = rng.choice([np.nan, np.inf, -np.inf, 1e308])
        s = int(rng.integers(1, 4))
        targets = rng.integers(1, c, size=(n, s))
        il, tl = rng.integers(1, t + 1, size=n).tolist(), rng.integers(1, s + 1, size=n).tolist()
        reduction = str(rng.choice(["none", "sum", "mean"]))
        results = []
        for lib, fn in ((torch, torch.nn.functional.ctc_loss), (E, F.ctc_loss)):
            lp = lib.tensor(base, requires_grad=True)
            loss = fn(lp, lib.tensor(targets), il, tl, reduction=reduction, zero_infinity=True)
            loss.sum().backward()
            results.append((loss.detach().numpy(), lp.grad.numpy()))
        np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_gradient_through_log_softmax_by_finite_differences(reduction):
    x, _ = _inputs(3, t=6, n=2, c=4)
    targets = E.tensor([[1, 3, 3], [2, 1, 0]])

    def fn(a):
        return F.ctc_loss(a.log_softmax(2), targets, [6, 4], [3, 2], reduction=reduction)

    assert E.gradcheck(fn, (E.tensor(x, requires_grad=True),))


def test_gradient_is_zero_past_each_input_length():
    x, _ = _inputs(4)
    xt = E.tensor(x, requires_grad=True)
    F.ctc_loss(xt.log_softmax(2), E.tensor([[1], [2], [3]]), [5, 3, 2], [1, 1, 1]).backward()
    assert not xt.grad.numpy()[3:, 1].any() and not xt.grad.numpy()[2:, 2].any()


def test_module_matches_the_function():
    _, lp = _inputs(5)
    targets = E.tensor([[1, 2], [3, 1], [2, 2]])
    loss = nn.CTCLoss(blank=0, reduction="sum")(E.tensor(lp), targets, [5, 5, 5], [2, 2, 2])
    assert loss.item() == F.ctc_loss(E.tensor(lp), targets, [5, 5, 5], [2, 2, 2], reduction="sum").item()


def test_float_int32_and_bool_targets_are_cast_to_int64_as_pytorch_does():
    _, lp = _inputs(6)
    targets = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
    il, tl = [5, 4, 3], [3, 2, 1]
    want = F.ctc_loss(E.tensor(lp), E.tensor(targets), il, tl, reduction="none").numpy()
    for t in (E.tensor(targets.astype(np.float32) + 0.7), E.tensor(targets.astype(np.int32))):
        np.testing.assert_array_equal(F.ctc_loss(E.tensor(lp), t, il, tl, reduction="none").numpy(), want)
    ones = F.ctc_loss(E.tensor(lp), E.tensor(np.ones((3, 1), bool)), il, [1, 1, 1], reduction="none").numpy()
    np.testing.assert_array_equal(ones, F.ctc_loss(E.tensor(lp), E.tensor([[1], [1], [1]]), il, [1, 1, 1],
                                                   reduction="none").numpy())


def test_bad_lengths_targets_and_blank_raise_pytorchs_errors():
    _, lp = _inputs()
    lpt, tg = E.tensor(lp), E.tensor([[1, 2, 2], [1, 3, 0], [1, 1, 1]])
    cases = [
        (([6, 5, 5], [3, 2, 1]), {}, "Expected input_lengths to have value at most 5, but got value 6"),
        (([5, 5, 5], [4, 2, 1]), {}, "Expected tensor to have size at least 4 at dimension 1, but got size 3"),
        (([5, 5], [3, 2, 1]), {}, "input_lengths must be of size batch_size"),
        (([5, 5, 5], [3, 2]), {}, "target_lengths must be of size batch_size"),
        (([5, 5, 5], [3, 2, 1]), {"blank": 4}, "blank must be in label range"),
        (([5, 5, 5], [3, -1, 1]), {}, "Expected target_lengths to have value at least 0, but got value -1"),
    ]
    for (il, tl), kw, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            F.ctc_loss(lpt, tg, il, tl, **kw)
    with pytest.raises(RuntimeError, match="Expected tensor to have size 6 at dimension 0, but got size 5"):
        F.ctc_loss(lpt, E.tensor([1, 2, 2, 1, 3]), [5, 5, 5], [3, 2, 1])
    with pytest.raises(RuntimeError, match="input_lengths must be integral"):
        F.ctc_loss(lpt, tg, E.tensor([5.0, 5.0, 5.0]), E.tensor([3, 2, 1]))
    with pytest.raises(RuntimeError, match=r"target values must be class indices in \[0, 4\); got 7"):
        F.ctc_loss(lpt, E.tensor([[1, 2, 2], [1, 7, 0], [1, 1, 1]]), [5, 5, 5], [3, 2, 1])
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.ctc_loss(lpt, tg, [5, 5, 5], [3, 2, 1], reduction="foo")
    for dt, name in [(E.float16, "Half"), (E.bfloat16, "BFloat16"), (E.int64, "Long"), (E.complex64, "ComplexFloat")]:
        with pytest.raises(NotImplementedError, match=f"^\"ctc_loss_cpu\" not implemented for '{name}'$"):
            F.ctc_loss(lpt.to(dt), tg, [5, 5, 5], [3, 2, 1])  # PyTorch's kernels: float32 and float64 only


@pytest.mark.torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("concat", [False, True])
def test_values_and_gradients_match_pytorch(reduction, zero_infinity, concat):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((9, 4, 6))
    tl = [4, 2, 0, 5]
    padded = rng.integers(1, 6, (4, 5))
    padded[0, 1] = padded[0, 0]
    targets = np.concatenate([padded[i, :n] for i, n in enumerate(tl)]) if concat else padded
    il = [9, 6, 4, 3]  # the last cannot align 5 labels in 3 steps: infinite
    tx = torch.tensor(x, requires_grad=True)
    tlp = tx.log_softmax(2)
    tlp.retain_grad()
    want = torch.nn.functional.ctc_loss(tlp, torch.tensor(targets), il, tl, reduction=reduction,
                                        zero_infinity=zero_infinity)
    want.sum().backward()
    ex = E.tensor(x, requires_grad=True)
    elp = ex.log_softmax(2)
    elp.retain_grad()
    got = F.ctc_loss(elp, E.tensor(targets), il, tl, reduction=reduction, zero_infinity=zero_infinity)
    got.sum().backward()
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(elp.grad.numpy(), tlp.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.cuda
@pytest.mark.parametrize("concat", [False, True])
def test_cuda_matches_the_cpu(concat):
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    x, _ = _inputs(8, t=6, n=3, c=4)
    padded = np.array([[1, 2, 2], [3, 1, 0], [1, 1, 1]])
    tl = [3, 2, 3]
    targets = np.concatenate([padded[i, :n] for i, n in enumerate(tl)]) if concat else padded
    results = []
    for dev in ("cpu", "cuda"):
        xt = E.tensor(x, device=dev, requires_grad=True)
        loss = F.ctc_loss(xt.log_softmax(2), E.tensor(targets, device=dev), [6, 5, 4], tl, reduction="none",
                          zero_infinity=True)
        loss.sum().backward()
        results.append((loss.detach().cpu().numpy(), xt.grad.cpu().numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10, atol=1e-14)


@pytest.mark.cuda
def test_cuda_log_probs_take_cpu_targets_and_lengths():
    """PyTorch moves CPU targets to the log-probabilities' device (cuDNN's path wants them on the CPU)."""
    if not E.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    x, _ = _inputs(8, t=6, n=2, c=4)
    targets, tl = E.tensor([[1, 2], [3, 0]]), E.tensor([2, 1])
    want = F.ctc_loss(E.tensor(x).log_softmax(2), targets, E.tensor([6, 5]), tl, reduction="none")
    got = F.ctc_loss(E.tensor(x, device="cuda").log_softmax(2), targets, E.tensor([6, 5]), tl, reduction="none")
    assert got.device.type == "cuda"
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.torch
def test_a_ctc_model_trains_with_pytorchs_loss_trajectory():
    torch = pytest.importorskip("torch")
    import ember.optim as eoptim

    rng = np.random.default_rng(12)
    feats, w = rng.standard_normal((10, 3, 4)), rng.standard_normal((5, 4)) * 0.1
    targets, il, tl = np.array([[1, 2, 2], [3, 4, 0], [1, 0, 0]]), [10, 8, 6], [3, 2, 1]

    def run(lib, nn_mod, optim):
        lin = nn_mod.Linear(4, 5, bias=False).double()
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(w))
        opt = optim.Adam(lin.parameters(), lr=0.1)
        ctc = nn_mod.CTCLoss(blank=0, zero_infinity=True)
        losses = []
        for _ in range(5):
            loss = ctc(lin(lib.tensor(feats)).log_softmax(2), lib.tensor(targets), il, tl)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    ours, theirs = run(E, nn, eoptim), run(torch, torch.nn, torch.optim)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    assert ours[-1] < ours[0]


@pytest.mark.parametrize("lengths,got", [((5, 2), "int, int"), (([5, 5], 2), "list, int"),
                                         (((5, 5), E.tensor([2, 2])), "tuple, Tensor")])
def test_lengths_of_mixed_kinds_are_pytorchs_type_error(lengths, got):
    """Lengths must be both tensors or both sequences of ints (a plain int is neither): PyTorch's parser's words."""
    lp = E.randn(5, 2, 4).log_softmax(-1)
    with pytest.raises(TypeError) as info:
        F.ctc_loss(lp, E.tensor([[1, 2], [1, 3]]), *lengths)
    msg = str(info.value)
    assert msg.startswith(f"ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, {got}, "
                          "int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints "
                          "input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = "
                          "at::Reduction::Mean, bool zero_infinity = False)\n")
    if got == "tuple, Tensor":
        assert msg.endswith("invalid types: (Tensor, Tensor, !tuple of (int, int)!, Tensor, !int!, !int!, !bool!)\n")
