"""softmax/log_softmax and the fused cross_entropy/nll_loss against float64 references written
from PyTorch's documented formulas; every backward op against central differences."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import softmax as S


def T(a):
    return E.from_numpy(np.array(a))


def check_vjp(f, x, g, vjp, eps=1e-6, seed=0, rtol=1e-6):
    rng = np.random.default_rng(seed)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        jv = (np.asarray(f(x + eps * v)) - np.asarray(f(x - eps * v))) / (2 * eps)
        assert np.isclose(np.sum(vjp * v), np.sum(g * jv), rtol=rtol, atol=1e-7)


def ref_log_softmax(x, dim):
    m = x.max(axis=dim, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=dim, keepdims=True))


def ref_cross_entropy(x, t, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Loops over rows: x (N, C, *) logits, t (N, *) class indices or (N, C, *) probabilities."""
    unbatched = x.ndim == 1
    if unbatched:
        x, t = x[None], np.asarray(t)[None]
    c = x.shape[1]
    xr = np.moveaxis(x, 1, -1).reshape(-1, c)
    w = np.ones(c) if weight is None else weight
    losses, denom = [], 0.0
    if t.shape == x.shape:
        tr = np.moveaxis(t, 1, -1).reshape(-1, c) * (1 - label_smoothing) + label_smoothing / c
        for row, p in zip(xr, tr):
            losses.append(-np.sum(ref_log_softmax(row, 0) * p * w))
        denom = len(losses)
        shape = (x.shape[0], *x.shape[2:])
    else:
        for row, k in zip(xr, t.reshape(-1)):
            if k == ignore_index:
                losses.append(0.0)
                continue
            lp = ref_log_softmax(row, 0)
            losses.append((1 - label_smoothing) * -lp[k] * w[k] + label_smoothing / c * -np.sum(lp * w))
            denom += w[k]
        shape = t.shape
    losses = np.array(losses)
    if reduction == "none":
        return losses.reshape(()) if unbatched else losses.reshape(shape)
    return losses.sum() if reduction == "sum" else losses.sum() / denom


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(0, 2), st.floats(1, 50))
def test_softmax_and_log_softmax_match_reference_and_backward(shape, dim, scale):
    dim = dim % len(shape)
    x = np.random.default_rng(0).standard_normal(shape) * scale
    np.testing.assert_allclose(E.softmax(T(x), dim).numpy(), np.exp(ref_log_softmax(x, dim)), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(E.log_softmax(T(x), dim).numpy(), ref_log_softmax(x, dim), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(1).standard_normal(shape)
    y, ly = E.softmax(T(x), dim), E.log_softmax(T(x), dim)
    check_vjp(lambda xx: np.exp(ref_log_softmax(xx, dim)), x, g, S.softmax_backward(T(g), y, dim).numpy())
    check_vjp(lambda xx: ref_log_softmax(xx, dim), x, g, S.log_softmax_backward(T(g), ly, dim).numpy())


def test_softmax_is_stable_takes_negative_dims_and_dtype():
    x = np.array([[1000.0, 1001.0, -1000.0]], dtype=np.float32)
    got = E.softmax(T(x), -1)
    assert got.dtype is E.float32 and np.isfinite(got.numpy()).all()
    np.testing.assert_allclose(got.numpy(), np.exp(ref_log_softmax(x.astype(np.float64), 1)), rtol=1e-6)
    assert E.log_softmax(T(x), 1, dtype=E.float64).dtype is E.float64
    assert E.softmax(E.tensor([1, 2]), 0, dtype=E.float32).dtype is E.float32
    assert E.log_softmax(T(x), 1, E.float64).dtype is E.float64
    np.testing.assert_allclose(E.softmin(T(x), 1).numpy(), np.exp(ref_log_softmax(-x.astype(np.float64), 1)),
                               rtol=1e-6, atol=1e-30)
    np.testing.assert_array_equal(T(x).softmax(1).numpy(), E.softmax(T(x), 1).numpy())
    np.testing.assert_array_equal(T(x).log_softmax(dim=-1).numpy(), E.log_softmax(T(x), 1).numpy())
    with pytest.raises(NotImplementedError, match="\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"):
        E.softmax(E.tensor([1, 2]), 0)
    # torch.softmax/log_softmax and the methods require `dim`, as PyTorch's bindings; F.softmin's implicit dim
    # warns at the caller's line (F.softmax's and F.log_softmax's: nn's test_activation)
    for fn in (lambda: E.softmax(T(x)), lambda: T(x).softmax(), lambda: E.log_softmax(T(x)),
               lambda: T(x).log_softmax()):
        with pytest.raises(TypeError, match='^(log_)?softmax\\(\\) missing 1 required positional arguments: "dim"$'):
            fn()
    # an explicit None is no omission: PyTorch's parser refuses it as a non-int
    for fn in (lambda: E.softmax(T(x), dim=None), lambda: T(x).softmax(None), lambda: E.log_softmax(T(x), None)):
        with pytest.raises(TypeError, match="^(log_)?softmax\\(\\): argument 'dim' must be int, not NoneType$"):
            fn()
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin") as record:
        E.softmin(T(x))
    assert record[0].filename == __file__  # the caller's line


@pytest.mark.parametrize("dim", [0, 1])
def test_results_are_row_major_whatever_the_inputs_layout(dim):
    """PyTorch's softmax kernels write a row-major result (and gradient) for a transposed input too."""
    a = np.random.default_rng(2).standard_normal((5, 4))
    g = np.random.default_rng(3).standard_normal((5, 4))
    x, gt = T(a).t(), T(g).t()
    y, ly = E.softmax(x, dim), E.log_softmax(x, dim)
    for r in (y, ly, E.softmin(x, dim), S.softmax_backward(gt, y.t().contiguous().t(), dim),
              S.log_softmax_backward(gt, ly, dim)):
        assert r.stride() == (5, 1)
    np.testing.assert_allclose(y.numpy(), np.exp(ref_log_softmax(a.T, dim)), rtol=1e-12)
    np.testing.assert_allclose(ly.numpy(), ref_log_softmax(a.T, dim), rtol=1e-12, atol=1e-12)
    gy = g.T * y.numpy()
    np.testing.assert_allclose(S.softmax_backward(gt, y, dim).numpy(),
                               gy - y.numpy() * gy.sum(dim, keepdims=True), rtol=1e-12, atol=1e-15)
    c = E.from_numpy(np.random.default_rng(4).standard_normal((2, 3, 4, 5))).contiguous(
        memory_format=E.channels_last)
    assert E.softmax(c, 1).stride() == E.log_softmax(c, 3).stride() == (60, 20, 5, 1)


ce_cases = st.fixed_dictionaries({
    "shape": st.sampled_from([(4, 3), (2, 3, 2), (2, 4, 2, 2), (5,)]), "weighted": st.booleans(),
    "ignore": st.booleans(), "reduction": st.sampled_from(["mean", "sum", "none"]),
    "smoothing": st.sampled_from([0.0, 0.2]), "probabilities": st.booleans()})


def make_ce(c, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(c["shape"]) * 2
    ncls = x.shape[1] if x.ndim > 1 else x.shape[0]
    if c["probabilities"]:
        t = rng.random(x.shape)
        t /= t.sum(axis=1 if x.ndim > 1 else 0, keepdims=True)
        tt = T(t)
    else:
        tshape = (x.shape[0], *x.shape[2:]) if x.ndim > 1 else ()
        t = rng.integers(0, ncls, tshape)
        if c["ignore"] and t.ndim:
            t.reshape(-1)[0] = -100
        tt = T(t)
    w = rng.random(ncls) + 0.5 if c["weighted"] else None
    return x, t, tt, w


@settings(max_examples=25, deadline=None)
@given(ce_cases)
def test_cross_entropy_matches_reference_and_its_backward_matches_finite_differences(c):
    x, t, tt, w = make_ce(c)
    kw = dict(reduction=c["reduction"], label_smoothing=c["smoothing"])
    got = E.cross_entropy(T(x), tt, None if w is None else T(w), **kw)
    want = ref_cross_entropy(x, t, w, **kw)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(2).standard_normal(np.shape(want))
    gi = S.cross_entropy_backward(T(g), T(x), tt, None if w is None else T(w), c["reduction"], -100,
                                  c["smoothing"]).numpy()
    check_vjp(lambda xx: ref_cross_entropy(xx, t, w, **kw), x, g, gi)


@settings(max_examples=25, deadline=None)
@given(ce_cases)
def test_nll_loss_matches_reference_and_backward(c):
    x, t, tt, w = make_ce({**c, "probabilities": False})
    lp = ref_log_softmax(x, 1 if x.ndim > 1 else 0)
    got = E.nll_loss(T(lp), tt, None if w is None else T(w), reduction=c["reduction"])
    rows = np.moveaxis(lp, 1, -1).reshape(-1, lp.shape[1]) if lp.ndim > 1 else lp[None]
    tr = np.asarray(t).reshape(-1)
    ww = np.ones(rows.shape[1]) if w is None else w
    per = np.array([0.0 if k == -100 else -r[k] * ww[k] for r, k in zip(rows, tr)])
    total = sum(ww[k] for k in tr if k != -100)
    want = {"none": per.reshape(np.shape(t)), "sum": per.sum(), "mean": per.sum() / total}[c["reduction"]]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    out, tw = S.nll_loss_op(T(lp), tt, None if w is None else T(w), c["reduction"], -100)
    assert np.isclose(tw.item(), total)
    g = np.random.default_rng(3).standard_normal(np.shape(want))
    gi = S.nll_loss_backward(T(g), T(lp), tt, None if w is None else T(w), c["reduction"], -100, tw).numpy()

    def f(xx):
        rr = np.moveaxis(xx, 1, -1).reshape(-1, xx.shape[1]) if xx.ndim > 1 else xx[None]
        p = np.array([0.0 if k == -100 else -r[k] * ww[k] for r, k in zip(rr, tr)])
        return {"none": p.reshape(np.shape(t)), "sum": p.sum(), "mean": p.sum() / total}[c["reduction"]]

    check_vjp(f, lp, g, gi)


def test_cross_entropy_float32_all_ignored_and_legacy_arguments():
    x = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)
    got = E.cross_entropy(T(x), E.tensor([0, 3, 1]))
    assert got.dtype is E.float32 and got.shape == ()
    np.testing.assert_allclose(got.item(), ref_cross_entropy(x.astype(np.float64), np.array([0, 3, 1])), rtol=1e-6)
    assert np.isnan(E.cross_entropy(T(x), E.tensor([-100, -100, -100])).item())
    assert E.cross_entropy(T(x), E.tensor([7, 1, 1]), ignore_index=7, reduction="sum").shape == ()
    np.testing.assert_allclose(E.nll_loss(T(x), E.tensor([0, 3, 1]), size_average=False).item(),
                               -(x[0, 0] + x[1, 3] + x[2, 1]), rtol=1e-6)


def test_cross_entropy_backward_non_finite_rows_and_ignored_targets():
    """An all -inf row, and a row with a +inf logit, give NaN (loss and the whole gradient row: inf - inf
    in the log-softmax, PyTorch 2.13's values); an ignored row's gradient is 0, also when 'mean' has no
    weight left (all ignored)."""
    x = np.array([[-np.inf, -np.inf, -np.inf], [0.0, np.inf, 1.0], [0.5, -1.0, 2.0], [1.0, 2.0, 3.0]])
    t = E.tensor([0, 2, -100, 1])
    assert np.isnan(E.cross_entropy(T(x), t, reduction="none").numpy()[:2]).all()
    with np.errstate(all="ignore"):
        gi = S.cross_entropy_backward(T(1.0), T(x), t, None, "sum", -100, 0.0).numpy()
    assert np.isnan(gi[:2]).all()
    np.testing.assert_array_equal(gi[2], 0.0)
    p = np.exp(ref_log_softmax(x[3], 0))
    np.testing.assert_allclose(gi[3], p - np.eye(3)[1], rtol=1e-12)
    gi = S.cross_entropy_backward(T(1.0), T(x[2:]), E.tensor([-100, -100]), None, "mean", -100, 0.0).numpy()
    np.testing.assert_array_equal(gi, 0.0)


def test_loss_errors_use_pytorchs_messages():
    x = E.zeros(2, 5)
    with pytest.raises(IndexError, match=r"^Target 7 is out of bounds\.$"):
        E.cross_entropy(x, E.tensor([1, 7]))
    with pytest.raises(IndexError, match=r"^Target -3 is out of bounds\.$"):
        E.nll_loss(x, E.tensor([-3, 1]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target batch_size \(3\)\."):
        E.cross_entropy(x, E.tensor([1, 2, 3]))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 3\], got \[2, 4\]"):
        E.cross_entropy(E.zeros(2, 5, 3), E.zeros(2, 4, dtype=E.int64))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        E.cross_entropy(x, E.tensor([1, 2]), reduction="foo")
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
        E.cross_entropy(x, E.tensor([1, 2]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 5 classes"):
        E.cross_entropy(x, E.tensor([1, 2]), weight=E.ones(4))
    with pytest.raises(RuntimeError, match="^ignore_index is not supported for floating point target$"):
        E.cross_entropy(x, E.full((2, 5), 0.2), ignore_index=0)
    assert E.cross_entropy(x, E.full((2, 5), 0.2), ignore_index=-1).item() == pytest.approx(np.log(5))


def test_class_weight_checks_follow_pytorchs_order_and_wording_per_input_rank():
    x2, x3, x4 = E.zeros(2, 5), E.zeros(2, 5, 3), E.zeros(2, 5, 3, 2)
    long = E.int64
    # the target's batch size, dims and dtype are checked before the weight
    with pytest.raises(ValueError, match="Expected input batch_size"):
        E.nll_loss(x2, E.zeros(3, dtype=long), weight=E.ones(4))
    with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but got Float$"):
        E.nll_loss(x2, E.zeros(2), weight=E.ones(4))
    with pytest.raises(RuntimeError, match=r"^Expected target size \[2, 3\], got \[2, 4\]$"):
        E.cross_entropy(x3, E.zeros(2, 4, dtype=long), weight=E.ones(4))
    # the 2-D kernel's words for inputs of 3 dims and more; its size check comes after the weight's
    for x, t in [(x3, E.zeros(2, 3, dtype=long)), (x4, E.zeros(2, 3, 3, dtype=long))]:
        with pytest.raises(RuntimeError, match="^weight tensor should be defined either for all or no classes$"):
            E.nll_loss(x, t, weight=E.ones(4))
    with pytest.raises(RuntimeError, match="^cross_entropy: weight tensor should be defined either for all 5 "
                                           r"classes or no classes but got weight tensor of shape: \[4\]$"):
        E.cross_entropy(x2, E.full((2, 5), 0.2), weight=E.ones(4))
    # a weight of C elements in any shape weighs the classes of a spatial input, except in the smoothing term
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((2, 6, 3))
    t = np.array([[0, 5, 2], [1, 1, 4]])
    w = np.arange(1.0, 7.0)
    want = ref_cross_entropy(logits.transpose(0, 2, 1).reshape(-1, 6), t.reshape(-1), weight=w)
    got = E.cross_entropy(T(logits), T(t), weight=T(w.reshape(2, 3)))
    assert got.item() == pytest.approx(want, rel=1e-12)
    with pytest.raises(RuntimeError, match=r"^shape '\[1, 2, 1\]' is invalid for input of size 6$"):
        E.cross_entropy(T(logits), T(t), weight=T(w.reshape(2, 3)), label_smoothing=0.1)
    with pytest.raises(RuntimeError, match="^Index tensor must have the same number of dimensions as input tensor$"):
        E.cross_entropy(T(logits), T(t), weight=T(w.reshape(6, 1)), label_smoothing=0.1)
    summed = E.cross_entropy(T(logits), T(t), weight=T(w.reshape(6, 1)), label_smoothing=0.1, reduction="sum")
    assert summed.item() == pytest.approx(
        ref_cross_entropy(logits, t, weight=w, label_smoothing=0.1, reduction="sum"), rel=1e-12)
    with pytest.raises(RuntimeError, match="^weight tensor should be defined either for all or no classes$"):
        S.cross_entropy_op(T(logits), T(t), T(w.reshape(2, 3)), "mean", -100, 0.0)

def test_loss_primitives_validate_targets_themselves():
    with pytest.raises(IndexError, match=r"^Target -2 is out of bounds\.$"):
        S.cross_entropy_op(E.zeros(2, 3), E.tensor([0, -2]), None, "mean", -100, 0.0)
    with pytest.raises(IndexError, match=r"^Target 3 is out of bounds\.$"):
        S.nll_loss_backward(E.ones(()), E.zeros(2, 3), E.tensor([3, 0]), None, "mean", -100, E.tensor(1.0))


@pytest.mark.parametrize(("input_shape", "target", "error", "message"), [
    # a floating target not of the input's shape is read as class indices, as PyTorch reads it
    ((2, 3), E.tensor([0.0, 1.0]), RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
    ((2, 3, 4), E.ones(2, 4), RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
    ((2, 3), E.ones(2, 4), RuntimeError, "0D or 1D target tensor expected, multi-target not supported"),
    ((2, 3), E.ones(3, 4), ValueError, r"Expected input batch_size \(2\) to match target batch_size \(3\)\."),
    # a 0-D target against a batch reads as batch size 0, PyTorch's number, for indices and floats alike
    ((32, 3), E.tensor(1), ValueError, r"Expected input batch_size \(32\) to match target batch_size \(0\)\."),
    ((2, 3, 4, 4), E.tensor(1.0), ValueError, r"Expected input batch_size \(2\) to match target batch_size \(0\)\."),
    ((2, 3, 4), E.ones(2, 4, 5), RuntimeError, r"Expected target size \[2, 4\], got \[2, 4, 5\]"),
    ((2, 3), E.ones(2, 4, dtype=E.int64), RuntimeError, "0D or 1D target tensor expected, multi-target not supported"),
    # a 4-D input takes PyTorch's nll_loss2d checks and words
    ((2, 3, 4, 4), E.ones(2, 4, 5, dtype=E.int64), RuntimeError,
     r"size mismatch \(got input: \[2, 3, 4, 4\] , target: \[2, 4, 5\]"),
    ((2, 3, 4, 4), E.ones(2, 4, dtype=E.int64), RuntimeError,
     r"only batches of spatial targets supported \(3D tensors\) but got targets of dimension: 2"),
    # uint8 class indices: a 2-D input takes them, the spatial kernels (3-D and more) want Long
    ((2, 3, 4), E.zeros(2, 4, dtype=E.uint8), RuntimeError, "expected scalar type Long but found Byte"),
    ((2, 3, 4, 4), E.zeros(2, 4, 4, dtype=E.uint8), RuntimeError, "expected scalar type Long but found Byte"),
    ((2, 3, 4, 4), E.zeros(2, 4, 4, dtype=E.int32), RuntimeError,
     "expected target dtype to be Long or Byte, but got Int"),
])
def test_cross_entropy_target_errors_are_pytorchs(input_shape, target, error, message):
    with pytest.raises(error, match=f"^{message}$"):
        E.cross_entropy(E.zeros(*input_shape), target)
    with pytest.raises(error, match=f"^{message}$"):
        E.nll_loss(E.zeros(*input_shape), target)


@pytest.mark.parametrize(("fn", "dim", "kernel"), [
    (E.softmax, -1, "softmax_lastdim_kernel_impl"), (E.softmax, 0, "softmax_kernel_impl"),
    (E.log_softmax, 1, "log_softmax_lastdim_kernel_impl"), (E.log_softmax, 0, "log_softmax_kernel_impl"),
    (E.softmin, 1, "softmax_lastdim_kernel_impl")])
@pytest.mark.parametrize(("dtype", "name"), [(E.int64, "Long"), (E.uint8, "Byte"), (E.int8, "Char"),
                                             (E.complex64, "ComplexFloat")])
def test_softmax_family_refuses_non_floating_input_as_pytorch(fn, dim, kernel, dtype, name):
    x = E.ones(2, 3, dtype=dtype)
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{name}'$"):
        fn(x, dim)
    with pytest.raises(TypeError):  # and a TypeError, by ember's rule for dtype errors
        fn(x, dim)
    if not dtype.is_complex:  # (casting complex to real warns, as PyTorch's)
        assert fn(x, dim, dtype=E.float64).dtype is E.float64  # dtype= casts first, as PyTorch
    empty = fn(E.zeros(0, 3, dtype=dtype), 0)  # PyTorch returns an empty input in its dtype
    assert empty.dtype is dtype and tuple(empty.shape) == (0, 3)


def test_softmin_negates_in_the_input_dtype_first():
    # -uint8 wraps before the cast (PyTorch's order): softmin([1, 2, 250]) is softmax([255, 254, 6])
    got = E.softmin(E.tensor([1, 2, 250], dtype=E.uint8), 0, dtype=E.float64).numpy()
    want = np.exp(np.array([255.0, 254, 6]) - np.logaddexp.reduce([255.0, 254, 6]))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        E.softmin(E.ones(3, dtype=E.bool), 0, dtype=E.float32)


def test_half_softmax_computes_in_float32_and_rounds_once():
    # PyTorch's opmath: the float16 result is the float32 softmax rounded (ember's float16 numpy was off by
    # an ulp in about one element in ten)
    x = np.random.default_rng(2).standard_normal((50, 7)).astype(np.float16) * 3
    want = E.softmax(T(x.astype(np.float32)), 1).numpy().astype(np.float16)
    np.testing.assert_array_equal(E.softmax(T(x), 1).numpy(), want)
    # (log_softmax over the last dim rounds its sum and log too: test_reduced_rounding.py; over another, once)
    want = E.log_softmax(T(x.T.astype(np.float32)), 0).numpy().astype(np.float16)
    np.testing.assert_array_equal(E.log_softmax(T(x.T.copy()), 0).numpy(), want)


def test_cross_entropy_promotes_a_probability_target_of_another_floating_dtype():
    # PyTorch: float32 scores against float64 (or float16) probabilities give a float64 loss
    p = np.full((2, 3), 1 / 3)
    got = E.cross_entropy(E.zeros(2, 3), E.tensor(p, dtype=E.float64))
    assert got.dtype is E.float64 and abs(got.item() - np.log(3)) < 1e-12
    half = E.cross_entropy(E.zeros(2, 3, dtype=E.float64), E.tensor(p, dtype=E.float16))
    assert half.dtype is E.float64 and abs(half.item() - 3 * float(np.float16(1 / 3)) * np.log(3)) < 1e-12



def test_cross_entropy_smooths_only_positive_amounts_and_refuses_ignore_index_for_probabilities():
    """PyTorch checks only label_smoothing <= 1, smooths by a positive amount only, and takes no non-negative
    ignore_index with probability targets."""
    x = E.tensor(np.sin(np.arange(20.0)).reshape(4, 5))
    t = E.tensor([1, 0, 4, 2])
    p = E.softmax(E.tensor(np.cos(np.arange(20.0)).reshape(4, 5)), 1)
    assert E.cross_entropy(x, t, label_smoothing=-0.1).item() == E.cross_entropy(x, t).item()
    assert E.cross_entropy(x, p, label_smoothing=-0.2).item() == E.cross_entropy(x, p).item()
    assert E.cross_entropy(x, p, ignore_index=-1).item() == E.cross_entropy(x, p).item()
    with pytest.raises(RuntimeError, match="^ignore_index is not supported for floating point target$"):
        E.cross_entropy(x, p, ignore_index=1)


def test_16bit_cross_entropy_reads_log_probabilities_rounded_to_its_dtype():
    # PyTorch's composite: nll_loss(log_softmax(x)) with the log-probabilities rounded to bfloat16/float16 first
    # (its 2.13 outputs; a float32 log-softmax inside gives 2.34375 for the first row in bfloat16)
    logits = [[1.5410, -0.2934, -2.1788, 0.5684, -1.0845, -1.3986], [0.4033, 0.8380, -0.7193, -0.4033, -0.5966, 0.1820]]
    t = E.tensor([1, 2])
    x = E.tensor(logits, dtype=E.bfloat16)
    assert E.cross_entropy(x, t, reduction="none").tolist() == [2.359375, 2.625]
    assert E.cross_entropy(x, t).item() == 2.5
    h = x.to(E.float16)  # the bfloat16 values, in float16
    assert E.cross_entropy(h, t, reduction="none").tolist() == [2.35546875, 2.623046875]
    assert E.cross_entropy(h, t).item() == 2.48828125


@pytest.mark.parametrize(("fn", "ref"), [(E.softmax, lambda x, d: np.exp(ref_log_softmax(x, d))),
                                         (E.log_softmax, ref_log_softmax)])
def test_softmax_functions_write_into_out_with_its_dtype_checked_as_pytorchs(fn, ref):
    x = np.random.default_rng(0).standard_normal((2, 3))
    out = E.empty(0, dtype=E.float64)
    assert fn(T(x), 1, out=out) is out and out.shape == (2, 3)
    np.testing.assert_allclose(out.numpy(), ref(x, 1), rtol=1e-12)
    assert fn(T(x).float(), 0, E.float64, out=out) is out  # dtype third, positionally
    np.testing.assert_allclose(out.numpy(), ref(x.astype(np.float32).astype(np.float64), 0), rtol=1e-12)
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
        fn(T(x).float(), 1, out=E.empty(2, 3, dtype=E.float64))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype long int, but got float instead$"):
        fn(T([[1, 2]]), 1, out=E.empty(1, 2))
    with pytest.raises(IndexError, match="^Dimension out of range"):  # the dim before out's dtype
        fn(T(x), 5, out=E.empty(2, 3, dtype=E.float16))
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        fn(T(x), 1, out=E.empty(2, 2, dtype=E.float64))


def test_softmax_methods_refuse_out_and_private_bindings_take_half_to_float():
    x = T([[1.0, 2.0, 3.0]])
    for name in ("softmax", "log_softmax"):
        with pytest.raises(TypeError, match=f"^{name}\\(\\) got an unexpected keyword argument 'out'$"):
            getattr(x, name)(1, out=E.empty(0, dtype=E.float64))
    np.testing.assert_allclose(E._softmax(x, 1, False).numpy(), E.softmax(x, 1).numpy(), rtol=0)
    np.testing.assert_allclose(E._log_softmax(x, 0, False).numpy(), [[0.0, 0.0, 0.0]])
    with pytest.raises(RuntimeError, match="^softmax with half to float conversion is not supported on CPU$"):
        E._log_softmax(x.half(), 1, True)
    with pytest.raises(TypeError, match="^_softmax\\(\\): argument 'half_to_float' \\(position 3\\) must be bool, "
                                        "not NoneType$"):
        E._softmax(x, 1, None)
