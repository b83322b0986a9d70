"""torch.masked's functions against float64 numpy references (masked-out elements ignored; rows with
none left give the operation's identity or NaN, as PyTorch), and MaskedTensor's behaviour."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp as np_logsumexp

import ember.core as ec
from ember.core import masked
from ember.core.masked import MaskedTensor, as_masked_tensor, is_masked_tensor, masked_tensor

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5))
M = RNG.random((3, 4, 5)) < 0.6
M[1, 2] = False          # a row of dim 2 with nothing left
M[:, 3, :] = False       # a slice of dim 1 with nothing left
t, tm = ec.tensor(X), ec.tensor(M)


def _kept(fill):
    return np.where(M, X, fill)


def _count(axis, keepdims=False):
    return M.sum(axis=axis, keepdims=keepdims)


def _ref_median(axis):
    """torch's median: the lower of the two middle values; NaN where nothing is kept."""
    moved_x, moved_m = np.moveaxis(X, axis, -1), np.moveaxis(M, axis, -1)
    out = np.full(moved_x.shape[:-1], np.nan)
    for idx in np.ndindex(out.shape):
        v = np.sort(moved_x[idx][moved_m[idx]])
        if v.size:
            out[idx] = v[(v.size - 1) // 2]
    return out


def _ref_var(axis, correction):
    n = _count(axis, True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = _kept(0).sum(axis=axis, keepdims=True) / n
        ss = np.where(M, (X - mu) ** 2, 0).sum(axis=axis)
        return ss / np.maximum(n.squeeze(axis) - correction, 0)


def _ref_softmax(axis):
    with np.errstate(invalid="ignore"):
        z = np.exp(_kept(-np.inf) - _kept(-np.inf).max(axis=axis, keepdims=True))
        return z / z.sum(axis=axis, keepdims=True)


REDUCTIONS = [
    ("sum", lambda d: _kept(0).sum(axis=d)),
    ("prod", lambda d: _kept(1).prod(axis=d)),
    ("amax", lambda d: _kept(-np.inf).max(axis=d)),
    ("amin", lambda d: _kept(np.inf).min(axis=d)),
    ("mean", lambda d: _kept(0).sum(axis=d) / _count(d)),
    ("logsumexp", lambda d: np_logsumexp(_kept(-np.inf), axis=d)),
    ("norm", lambda d: np.sqrt((_kept(0) ** 2).sum(axis=d))),
    ("var", lambda d: _ref_var(d, 1)),
    ("std", lambda d: np.sqrt(_ref_var(d, 1))),
]


@pytest.mark.parametrize("name,ref", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@pytest.mark.parametrize("dim", [2, 1, (0, 2), None])
def test_reductions_ignore_masked_out_elements(name, ref, dim):
    axis = dim if dim is None or isinstance(dim, int) else tuple(dim)
    with np.errstate(invalid="ignore", divide="ignore"):
        want = ref(axis)
    got = getattr(masked, name)(t, dim=dim, mask=tm)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    kept = getattr(masked, name)(t, dim=dim, keepdim=True, mask=tm)
    assert kept.shape == np.expand_dims(want, axis if axis is not None else (0, 1, 2)).shape


def test_fully_masked_out_rows_give_pytorchs_identity_or_nan():
    row = ec.tensor([[1.0, 2.0], [3.0, 4.0]])
    none = ec.tensor([[True, True], [False, False]])
    assert masked.sum(row, 1, mask=none).tolist() == [3.0, 0.0]
    assert masked.prod(row, 1, mask=none).tolist() == [2.0, 1.0]
    assert masked.amax(row, 1, mask=none).tolist() == [2.0, -math.inf]
    assert masked.amin(row, 1, mask=none).tolist() == [1.0, math.inf]
    assert masked.logsumexp(row, 1, mask=none)[1].item() == -math.inf
    assert masked.norm(row, 2.0, 1, mask=none)[1].item() == 0.0
    assert masked.norm(row, -math.inf, 1, mask=none)[1].item() == math.inf
    for name in ("mean", "median", "var", "std"):
        assert math.isnan(getattr(masked, name)(row, 1, mask=none)[1].item()), name
    assert np.isnan(masked.softmax(row, 1, mask=none).numpy()[1]).all()


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_argmax_argmin_median_along_one_dim(dim):
    ax = dim % 3
    np.testing.assert_array_equal(masked.argmax(t, dim, mask=tm).numpy(), _kept(-np.inf).argmax(axis=ax))
    np.testing.assert_array_equal(masked.argmin(t, dim, mask=tm).numpy(), _kept(np.inf).argmin(axis=ax))
    assert masked.argmax(t, dim, mask=tm).dtype == ec.float64   # in the input's dtype, as PyTorch's
    np.testing.assert_allclose(masked.median(t, dim, mask=tm).numpy(), _ref_median(ax))


@pytest.mark.parametrize("dim", [0, 2])
def test_normalizations(dim):
    sm = _ref_softmax(dim)
    np.testing.assert_allclose(masked.softmax(t, dim, mask=tm).numpy(), sm, rtol=1e-12, atol=1e-15)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(masked.log_softmax(t, dim, mask=tm).numpy(), np.log(sm), rtol=1e-12)
    neg = ec.tensor(-X)
    np.testing.assert_allclose(masked.softmin(neg, dim, mask=tm).numpy(), sm, rtol=1e-12, atol=1e-15)
    nrm = np.maximum(np.sqrt((_kept(0) ** 2).sum(axis=dim, keepdims=True)), 1e-12)
    np.testing.assert_allclose(masked.normalize(t, 2.0, dim, mask=tm).numpy(), _kept(0) / nrm, rtol=1e-12)
    np.testing.assert_allclose(masked.cumsum(t, dim, mask=tm).numpy(), np.cumsum(_kept(0), axis=dim), rtol=1e-12)
    np.testing.assert_allclose(masked.cumprod(t, dim, mask=tm).numpy(), np.cumprod(_kept(1), axis=dim), rtol=1e-12)


def test_var_correction_and_unbiased():
    np.testing.assert_allclose(masked.var(t, 2, unbiased=False, mask=tm).numpy(), _ref_var(2, 0))
    np.testing.assert_allclose(masked.var(t, 2, correction=2, mask=tm).numpy(), _ref_var(2, 2))
    with pytest.raises(ValueError, match="Only one of unbiased and correction"):
        masked.var(t, 2, unbiased=True, correction=1, mask=tm)


def test_mask_broadcasts_and_none_means_all():
    row_mask = ec.tensor([True, False, True, True, False])   # broadcast over dims 0 and 1
    want = np.where(row_mask.numpy(), X, 0).sum(axis=2)
    np.testing.assert_allclose(masked.sum(t, 2, mask=row_mask).numpy(), want)
    np.testing.assert_allclose(masked.mean(t, (0, 1)).numpy(), X.mean(axis=(0, 1)))
    np.testing.assert_allclose(masked.amax(t).numpy(), X.max())
    with pytest.raises(IndexError, match="mask dimensionality higher than of the input"):
        masked.sum(ec.tensor([1.0, 2.0]), mask=ec.tensor([[True, False]]))
    with pytest.raises(RuntimeError, match="shape mismatch|broadcast|expand"):
        masked.sum(ec.tensor([1.0, 2.0]), mask=ec.tensor([True, False, True]))


def test_dtypes_follow_pytorch():
    ints = ec.tensor([[1, 2], [3, 4]], dtype=ec.int32)
    m = ec.tensor([[True, False], [False, False]])
    assert masked.sum(ints, 1, mask=m).dtype == ec.int64
    assert masked.amax(ints, 1, mask=m).tolist() == [1, -(2**31)]
    assert masked.sum(t, 1, mask=tm, dtype=ec.float32).dtype == ec.float32
    with pytest.raises(ValueError, match=r"mean\(\): Could not infer output dtype"):
        masked.mean(ints, 1, mask=m)
    with pytest.raises(ValueError, match="no fully masked out rows"):
        masked.median(ints, 1, mask=m)
    assert masked.median(ints, 1, mask=ec.tensor([[True, True], [True, False]])).tolist() == [1, 3]


def test_bad_dims():
    with pytest.raises(IndexError, match="Dimension out of range"):
        masked.sum(t, 3, mask=tm)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        masked.sum(t, (1, -2), mask=tm)


def test_masked_tensor_construction_accessors_and_errors():
    data, mask = ec.tensor([[1.0, 2.0, 3.0]]), ec.tensor([[True, False, True]])
    mt = masked_tensor(data, mask)
    assert is_masked_tensor(mt) and not is_masked_tensor(data)
    assert mt.get_data() is not data and mt.get_data().tolist() == data.tolist()   # a copy
    assert as_masked_tensor(data, mask).get_data() is data                          # no copy
    assert mt.to_tensor(0.0).tolist() == [[1.0, 0.0, 3.0]]
    assert (mt.shape, mt.dtype, mt.dim()) == (data.shape, ec.float32, 2)
    assert repr(mt) == "MaskedTensor(\n  [\n    [  1.0000,       --,   3.0000]\n  ]\n)"
    assert repr(mt.sum()) == "MaskedTensor(  4.0000, True)"
    with pytest.raises(TypeError, match="mask must have dtype bool"):
        masked_tensor(data, mask.float())
    with pytest.raises(ValueError, match="data.dim\\(\\) must equal mask.dim\\(\\)"):
        masked_tensor(data, mask[0])
    with pytest.raises(TypeError, match="data must be a Tensor"):
        MaskedTensor([1.0], mask)


def test_every_masked_tensor_made_warns_of_the_prototype_api_at_the_callers_line():
    data, mask = ec.tensor([1.0, 2.0]), ec.tensor([True, False])
    for make in (lambda: masked_tensor(data, mask), lambda: as_masked_tensor(data, mask),
                 lambda: MaskedTensor(data, mask), lambda: as_masked_tensor(data, mask).exp()):
        with pytest.warns(UserWarning, match="^The PyTorch API of MaskedTensors is in prototype stage") as rec:
            make()
        assert rec[-1].filename == __file__


def test_a_torch_function_reaches_a_fresh_masked_tensor_before_any_reduction_has(monkeypatch):
    from ember.core import dispatch, overrides

    was = overrides._active[0]
    monkeypatch.setattr(overrides, "_active", [False])  # the process as it starts: no op-level check
    dispatch.set_protocol_check(None, None)
    try:
        with pytest.warns(UserWarning, match="MaskedTensors is in prototype stage"):
            mt = masked_tensor(ec.tensor([0.0, 1.0]), ec.tensor([False, True]))
        out = ec.exp(mt)   # PyTorch: MaskedTensor([--, e])
        assert isinstance(out, MaskedTensor) and out.to_tensor(0.0).tolist() == [0.0, pytest.approx(math.e)]
    finally:
        if was:
            dispatch.set_protocol_check(overrides._check, overrides._check_composite)
        else:
            dispatch.set_protocol_check(None, None)


def test_masked_tensor_ops_keep_the_mask_and_reductions_mask_empty_results():
    data = ec.tensor(X[0])
    mt = masked_tensor(data, ec.tensor(M[0]))
    e = mt.exp()
    assert e.get_mask() is mt.get_mask()
    np.testing.assert_allclose(e.to_tensor(0.0).numpy(), np.where(M[0], np.exp(X[0]), 0))
    s = (mt * 2 + 1 - mt).to_tensor(0.0).numpy()
    np.testing.assert_allclose(s, np.where(M[0], X[0] + 1, 0))
    assert (mt > 0).get_data().dtype == ec.bool
    r = mt.sum(1)
    np.testing.assert_allclose(r.get_data().numpy(), _kept(0)[0].sum(axis=1))
    np.testing.assert_array_equal(r.get_mask().numpy(), M[0].any(axis=1))
    am = mt.amax(1, keepdim=True)
    assert am.shape == (4, 1) and am.get_mask().shape == (4, 1)
    assert mt.mean().get_mask().item() is True
    with pytest.raises(ValueError, match="Input masks must match"):
        mt + masked_tensor(data, ~ec.tensor(M[0]))
    np.testing.assert_allclose(masked.sum(mt, 1).numpy(), _kept(0)[0].sum(axis=1))   # torch.masked.* on one


def test_torch_functions_on_a_masked_tensor_reach_its_masked_ops():
    data, mask = ec.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), ec.tensor([[True, False, True], [False, False, True]])
    mt = masked_tensor(data, mask)
    r = ec.mean(mt, 1)   # PyTorch: MaskedTensor([2.0, 6.0])
    assert isinstance(r, MaskedTensor)
    np.testing.assert_allclose(r.get_data().numpy(), [2.0, 6.0])
    np.testing.assert_allclose(ec.sum(mt, 1, keepdim=True).get_data().numpy(), [[4.0], [6.0]])
    np.testing.assert_allclose(ec.exp(mt).to_tensor(0.0).numpy(), np.where(mask.numpy(), np.exp(data.numpy()), 0))
    sm = ec.softmax(mt, 1)
    np.testing.assert_allclose(sm.to_tensor(0.0).numpy(), [[1 / (1 + math.e ** 2), 0, 1 / (1 + math.e ** -2)],
                                                           [0, 0, 1]], rtol=1e-6)
    assert sm.get_mask() is mask or bool((sm.get_mask() == mask).all())
    np.testing.assert_allclose(ec.argmax(mt, 1).get_data().numpy(), [2, 2])
    w = ec.where(mask, mt, mt * 10)
    np.testing.assert_allclose(w.to_tensor(0.0).numpy(), [[1.0, 0, 3.0], [0, 0, 6.0]])
    a = ec.all(mt > 2)   # the present elements 1, 3, 6: not all above 2
    assert a.get_data().item() is False and a.get_mask().item() is True
    with pytest.raises(TypeError):
        ec.nansum(mt)   # PyTorch's MaskedTensor has no nansum either


@pytest.mark.torch
def test_masked_tensor_matches_pytorchs_prints_and_reductions():
    torch = pytest.importorskip("torch")
    import warnings

    data = np.array([[1.5, -2.0, 3.0], [4.0, 5.0, -6.25]])
    mask = np.array([[True, False, True], [False, False, False]])
    ours = masked_tensor(ec.tensor(data), ec.tensor(mask))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # PyTorch's MaskedTensor is a prototype and says so
        theirs = torch.masked.masked_tensor(torch.tensor(data), torch.tensor(mask))
        pairs = [(ours, theirs), (ours.exp(), theirs.exp()), (ours * 2 - 1, theirs * 2 - 1), (ours > 1, theirs > 1)]
        for name in ("sum", "amax", "amin", "mean", "prod"):
            pairs.append((getattr(ours, name)(1), getattr(theirs, name)(1)))
            pairs.append((getattr(ours, name)(), getattr(theirs, name)()))
        for a, b in pairs:
            assert repr(a).replace("float64", "") == repr(b), (repr(a), repr(b))
