"""bfloat16 `addmm`/`add(alpha=)`/`addcmul`: the sum taken in float32 (alpha rounded to bfloat16 for add) and
rounded once, as PyTorch's CPU kernels; values against float64 references rounded once. A short float16/bfloat16
`prod` rounds after every multiply, as PyTorch's."""

import ml_dtypes
import numpy as np
import pytest

import ember.core as E
from ember.core.ops.normalization import batch_norm_op

BF = np.dtype(ml_dtypes.bfloat16)


def bf(a) -> np.ndarray:
    return np.asarray(a, np.float32).astype(BF).astype(np.float32)


def _bf(shape, seed):
    return bf(np.random.default_rng(seed).standard_normal(shape))


def test_addmm_rounds_once_after_adding_the_bias():
    a, b, c = _bf((16, 256), 0), _bf((256, 8), 1), _bf((16, 8), 2)
    want = bf(0.5 * c.astype(np.float64) + 1.5 * (a.astype(np.float64) @ b))
    got = E.addmm(E.tensor(c).bfloat16(), E.tensor(a).bfloat16(), E.tensor(b).bfloat16(), beta=0.5, alpha=1.5)
    assert got.dtype is E.bfloat16
    np.testing.assert_array_equal(got.float().numpy(), want)
    twice = bf(c + bf(a.astype(np.float64) @ b))  # the old way: the product rounded before the bias is added
    assert (bf(c.astype(np.float64) + a.astype(np.float64) @ b) != twice).any()
    out = E.tensor(c).bfloat16()
    out.addmm_(E.tensor(a).bfloat16(), E.tensor(b).bfloat16())
    np.testing.assert_array_equal(out.float().numpy(), bf(c.astype(np.float64) + a.astype(np.float64) @ b))


def test_add_with_alpha_rounds_alpha_to_bfloat16_and_the_sum_once():
    x, y = _bf(1024, 3), _bf(1024, 4)
    alpha = float(bf(0.3))
    want = bf(x.astype(np.float64) + alpha * y.astype(np.float64))
    ex, ey = E.tensor(x).bfloat16(), E.tensor(y).bfloat16()
    np.testing.assert_array_equal(E.add(ex, ey, alpha=0.3).float().numpy(), want)
    z = ex.clone()
    z.add_(ey, alpha=0.3)
    np.testing.assert_array_equal(z.float().numpy(), want)
    np.testing.assert_array_equal(E.sub(ex, ey, alpha=0.3).float().numpy(),
                                  bf(x.astype(np.float64) - alpha * y.astype(np.float64)))


def test_addcmul_rounds_once():
    x, t1, t2 = _bf(1024, 5), _bf(1024, 6), _bf(1024, 7)
    scaled = (np.float32(0.7) * t1).astype(np.float64)
    want = bf((x.astype(np.float64) + scaled * t2).astype(np.float32))
    got = E.addcmul(E.tensor(x).bfloat16(), E.tensor(t1).bfloat16(), E.tensor(t2).bfloat16(), value=0.7)
    np.testing.assert_array_equal(got.float().numpy(), want)


@pytest.mark.torch
def test_matches_torch_bfloat16():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((16, 128), (128, 32), (16, 32)))
    ta, tb, tc = (torch.from_numpy(v).bfloat16() for v in (a, b, c))
    ea, eb, ec = (E.tensor(v).bfloat16() for v in (a, b, c))
    same = lambda t, e: np.testing.assert_array_equal(e.float().numpy(), t.float().numpy())  # noqa: E731
    same(torch.addmm(tc, ta, tb, beta=0.5, alpha=2.0), E.addmm(ec, ea, eb, beta=0.5, alpha=2.0))
    x, y = (rng.standard_normal(1024).astype(np.float32) for _ in range(2))
    tx, ty = torch.from_numpy(x).bfloat16(), torch.from_numpy(y).bfloat16()
    ex, ey = E.tensor(x).bfloat16(), E.tensor(y).bfloat16()
    same(tx.clone().add_(ty, alpha=0.3), ex.clone().add_(ey, alpha=0.3))
    same(tx.clone().add_(torch.from_numpy(y), alpha=0.3), ex.clone().add_(E.tensor(y), alpha=0.3))
    same(tx.clone().addcmul_(ty, tx, value=0.7), ex.clone().addcmul_(ey, ex, value=0.7))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name,f32", [("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
                                      ("rsqrt", lambda x: 1 / np.sqrt(np.abs(x))),
                                      ("silu", lambda x: x / (1 + np.exp(-x)))])
def test_composite_unary_ops_round_once_from_float32(name, f32, dtype):
    """sigmoid, rsqrt and silu are several numpy ufuncs: in a 16-bit dtype they compute in float32 and round
    once (PyTorch's values), not at every step."""
    np_dt = BF if dtype == "bfloat16" else np.dtype(np.float16)
    x = np.random.default_rng(5).standard_normal(4096) * 4
    x = (np.abs(x) + 0.01 if name == "rsqrt" else x).astype(np_dt).astype(np.float32)
    with np.errstate(over="ignore"):
        want = f32(x.astype(np.float64)).astype(np.float32).astype(np_dt).astype(np.float32)
    t = E.tensor(x).to(getattr(E, dtype))
    got = getattr(E, name)(t)
    assert got.dtype is t.dtype
    np.testing.assert_array_equal(got.float().numpy(), want)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_logsumexp_rounds_each_step_as_pytorchs_composite(dtype):
    # PyTorch computes logsumexp of a half tensor as ops of its dtype: x - max, exp, sum, log, + max, each rounded
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(4).standard_normal((2, 4, 6, 6)).astype(np.float32) * 3
    got = E.tensor(a).to(getattr(E, dtype)).logsumexp(1).float().numpy()
    want = torch.tensor(a).to(getattr(torch, dtype)).logsumexp(1).float().numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("weight", [0.3, 0.7, -0.6, "tensor"])
def test_lerp_is_pytorchs_two_sided_fma_in_float32(dtype, weight):
    # PyTorch: |w| < 0.5 ? self + w (end - self) : end - (end - self) (1 - w), computed in float32 (16-bit
    # inputs too) with one rounding after each multiply-add (its vector kernel's fma), then rounded to the dtype
    np_dt = {"bfloat16": BF, "float16": np.dtype(np.float16), "float32": np.dtype(np.float32)}[dtype]
    g = np.random.default_rng(9)
    a, b = (g.standard_normal(2048).astype(np_dt).astype(np.float32) for _ in range(2))
    w = g.random(2048).astype(np_dt).astype(np.float32) if weight == "tensor" else np.float32(weight)
    d = (b - a).astype(np.float64)
    want = np.where(np.abs(w) < 0.5, a + w.astype(np.float64) * d, b - d * (np.float32(1) - w).astype(np.float64))
    want = want.astype(np.float32).astype(np_dt).astype(np.float32)
    ew = E.tensor(w).to(getattr(E, dtype)) if weight == "tensor" else weight
    got = E.lerp(E.tensor(a).to(getattr(E, dtype)), E.tensor(b).to(getattr(E, dtype)), ew)
    np.testing.assert_array_equal(got.float().numpy(), want)
    torch = pytest.importorskip("torch")
    tw = torch.tensor(w).to(getattr(torch, dtype)) if weight == "tensor" else weight
    t = torch.lerp(torch.tensor(a).to(getattr(torch, dtype)), torch.tensor(b).to(getattr(torch, dtype)), tw)
    np.testing.assert_array_equal(got.float().numpy(), t.float().numpy())


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_addcdiv_is_value_times_t1_over_t2_rounded_as_pytorch(dtype):
    # PyTorch: self + (value * t1) / t2, in float32 for every float dtype up to float32, rounded once
    np_dt = {"bfloat16": BF, "float16": np.dtype(np.float16), "float32": np.dtype(np.float32)}[dtype]
    g = np.random.default_rng(10)
    x, t1 = (g.standard_normal(2048).astype(np_dt).astype(np.float32) for _ in range(2))
    t2 = (np.abs(g.standard_normal(2048)) + 0.5).astype(np_dt).astype(np.float32)
    want = (x + (np.float32(0.7) * t1) / t2).astype(np_dt).astype(np.float32)
    dt = getattr(E, dtype)
    got = E.addcdiv(E.tensor(x).to(dt), E.tensor(t1).to(dt), E.tensor(t2).to(dt), value=0.7)
    np.testing.assert_array_equal(got.float().numpy(), want)
    out = E.tensor(x).to(dt)
    out.addcdiv_(E.tensor(t1).to(dt), E.tensor(t2).to(dt), value=0.7)
    np.testing.assert_array_equal(out.float().numpy(), want)



def _eighths(shape, seed):
    """Multiples of 1/8 up to 2: every product and partial sum is exact in float32, only the roundings differ."""
    return np.random.default_rng(seed).integers(-16, 17, shape).astype(np.float32) / 8


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_addbmm_rounds_after_each_batch_as_pytorchs_addmm_loop(dtype):
    # PyTorch's CPU addbmm is one addmm_ per batch into the result (beta on the first), each rounded to the dtype
    np_dt = BF if dtype == "bfloat16" else np.dtype(np.float16)
    a, b, c = _eighths((6, 5, 24), 11), _eighths((6, 24, 3), 12), _eighths((5, 3), 13) * 40
    r = c.astype(np.float64)
    for i in range(6):
        r = ((0.5 if i == 0 else 1) * r + 1.5 * (a[i].astype(np.float64) @ b[i])).astype(np_dt).astype(np.float64)
    once = (0.5 * c.astype(np.float64) + 1.5 * np.einsum("bij,bjk->ik", a, b)).astype(np_dt).astype(np.float64)
    assert (r != once).any()
    dt = getattr(E, dtype)
    got = E.addbmm(E.tensor(c).to(dt), E.tensor(a).to(dt), E.tensor(b).to(dt), beta=0.5, alpha=1.5)
    assert got.dtype is dt and got.shape == (5, 3)
    np.testing.assert_array_equal(got.double().numpy(), r)
    out = E.empty(5, 3, dtype=dt)
    E.addbmm(E.tensor(c).to(dt), E.tensor(a).to(dt), E.tensor(b).to(dt), beta=0.5, alpha=1.5, out=out)
    np.testing.assert_array_equal(out.double().numpy(), r)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_bfloat16_conv_transpose_adds_the_bias_before_rounding(nd):
    # PyTorch's bfloat16 transposed convolutions add the bias to the float32 sums and round once
    x, w = _eighths((2, 4, *[5] * nd), 14), _eighths((4, 3, *[3] * nd), 15)
    bias = _eighths(6, 16) * 13
    f = getattr(E, f"conv_transpose{nd}d")
    ref = f(E.tensor(x), E.tensor(w), E.tensor(bias), stride=2, groups=2).numpy()
    got = f(E.tensor(x).bfloat16(), E.tensor(w).bfloat16(), E.tensor(bias).bfloat16(), stride=2, groups=2)
    assert got.dtype is E.bfloat16
    np.testing.assert_array_equal(got.float().numpy(), bf(ref))
    nobias = f(E.tensor(x), E.tensor(w), None, stride=2, groups=2).numpy()
    assert (bf(ref) != bf(bf(nobias) + bias.reshape(-1, *[1] * nd))).any()  # rounding twice would differ


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_16bit_log_softmax_over_the_last_dim_rounds_the_sum_and_its_log(dtype):
    # PyTorch's 16-bit last-dim kernel stores sum(exp(x - max)) and its log in the dtype; other dims round once
    np_dt = BF if dtype == "bfloat16" else np.dtype(np.float16)
    x = (np.random.default_rng(17).standard_normal((300, 6)) * 3).astype(np_dt).astype(np.float32)
    z = x - x.max(1, keepdims=True)
    s = np.exp(z).sum(1, keepdims=True).astype(np_dt).astype(np.float32)
    want = (z - np.log(s).astype(np_dt).astype(np.float32)).astype(np_dt).astype(np.float32)
    t = E.tensor(x).to(getattr(E, dtype))
    np.testing.assert_array_equal(E.log_softmax(t, 1).float().numpy(), want)
    once = (z - np.log(np.exp(z).sum(1, keepdims=True))).astype(np_dt).astype(np.float32)
    assert (once != want).any()
    np.testing.assert_array_equal(E.log_softmax(E.tensor(x.T.copy()).to(getattr(E, dtype)), 0).float().numpy(),
                                  once.T)
    inf = E.tensor([[float("-inf")] * 3, [0.0, float("inf"), 1.0]]).to(getattr(E, dtype))
    assert np.isnan(E.log_softmax(inf, 1).float().numpy()).all()


def test_float16_batch_norm_uses_its_stored_statistics_and_rounds_running_stats_once():
    # PyTorch's float16 CPU batch norm stores mean and invstd in float16 and computes x * alpha + beta in float32
    # (alpha = invstd * weight, beta = bias - mean * alpha); the running statistics are updated in a wide type
    g = np.random.default_rng(18)
    x = (g.standard_normal((6, 8, 5)) * 2 + 0.5).astype(np.float16)
    w, b = (g.random(8) + 0.5).astype(np.float16), g.standard_normal(8).astype(np.float16)
    rm, rv = (g.standard_normal(8) * 0.1).astype(np.float16), (g.random(8) + 0.5).astype(np.float16)
    xd = x.astype(np.float64)
    mean, var = xd.mean((0, 2)), xd.var((0, 2))
    m16, inv16 = mean.astype(np.float16), (1 / np.sqrt(var + 1e-5)).astype(np.float16)
    alpha = inv16.astype(np.float32) * w.astype(np.float32)
    beta = b.astype(np.float32) - m16.astype(np.float32) * alpha
    want = (x.astype(np.float32) * alpha[:, None] + beta[:, None]).astype(np.float16)
    t_rm, t_rv = E.tensor(rm), E.tensor(rv)
    out, save_mean, save_invstd = batch_norm_op(E.tensor(x), E.tensor(w), E.tensor(b), t_rm, t_rv, True, 0.1, 1e-5)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(save_mean.numpy(), m16)
    np.testing.assert_array_equal(save_invstd.numpy(), inv16)
    np.testing.assert_array_equal(t_rm.numpy(), (0.9 * rm.astype(np.float64) + 0.1 * mean).astype(np.float16))
    np.testing.assert_array_equal(t_rv.numpy(), (0.9 * rv.astype(np.float64) + 0.1 * var * 30 / 29).astype(np.float16))
    plain = ((xd - mean[:, None]) / np.sqrt(var[:, None] + 1e-5) * w[:, None] + b[:, None]).astype(np.float16)
    assert (plain != want).any()  # exact statistics would round otherwise



def _prod_each_step(row, np_dtype):
    """The product of `row` in order, rounded to `np_dtype` after every multiply."""
    acc = np.float32(1.0)
    for v in row.astype(np.float32):
        acc = np.float32(np.asarray(acc * v, np.float32).astype(np_dtype))
    return acc


@pytest.mark.parametrize("np_dtype, dtype", [(np.float16, E.float16), (BF, E.bfloat16)])
def test_short_half_prod_rounds_after_every_multiply(np_dtype, dtype):
    a = (1 + 0.1 * np.random.default_rng(4).standard_normal((3, 40))).astype(np_dtype)
    want = np.array([_prod_each_step(row, np_dtype) for row in a])
    x = E.tensor(a.astype(np.float32)).to(dtype)
    np.testing.assert_array_equal(x.prod(1).float().numpy(), want)
    np.testing.assert_array_equal(x.t().prod(0, keepdim=True).float().numpy(), want[None])
    assert x[0, :20].prod().float().item() == _prod_each_step(a[0, :20], np_dtype)
    assert x[:2, :3].prod().shape == () and x[0, 0].prod().shape == () and x.prod(1, keepdim=True).shape == (3, 1)
    once = a.astype(np.float32).prod(1).astype(np_dtype).astype(np.float32)
    assert (once != want).any()  # rounding once, as before, gives other values here


# PyTorch 2.13's float16/bfloat16 results on these inputs
_X = [0.5, 1.5, 3.0, 2.0, 0.1, 7.0, 0.0, -1.0]
_ENTR = {"float16": [0.3466796875, -0.6083984375, -3.296875, -1.38671875, 0.230224609375, -13.625, 0.0, -np.inf],
         "bfloat16": [0.345703125, -0.609375, -3.3125, -1.3828125, 0.2294921875, -13.625, 0.0, -np.inf]}
_LOGIT = {"float16": [-2.708984375, -1.466796875, -0.5107421875, -1.0986328125, -4.37109375, 1.9462890625],
          "bfloat16": [-2.703125, -1.46875, -0.5078125, -1.09375, -4.375, 1.9453125]}
_NANMEAN = {"float16": ([1.6669921875, 2.349609375], 1.6376953125), "bfloat16": ([1.6640625, 2.34375], 1.640625)}


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_16_bit_entr_logit_and_nanmean_round_their_steps_as_pytorch(name):
    dt = getattr(E, name)
    x = E.tensor(_X).to(dt)
    assert E.special.entr(x).float().tolist() == _ENTR[name]  # -x * log(x), the log rounded to the dtype first
    logit = E.logit(x / 8, eps=1e-3).float().tolist()  # 1 - x, the quotient and the log each rounded
    assert logit[:6] == _LOGIT[name] and logit[6:] == [-6.90625, -6.90625]
    rows = E.tensor([[0.5, 1.5, 3.0, float("nan")], [2.0, 0.1, 7.0, 0.3]]).to(dt)
    assert E.nanmean(rows, 1).float().tolist() == _NANMEAN[name][0]  # nansum rounded, then divided
    assert E.nanmean(x).item() == _NANMEAN[name][1]


@pytest.mark.parametrize("name, cov, corr", [
    ("float16", [[1.140625, 1.9287109375], [1.9287109375, 10.328125]],
     [[0.9990234375, 0.56201171875], [0.5615234375, 1.0]]),
    ("bfloat16", [[1.140625, 1.9296875], [1.9296875, 10.3125]], [[0.9921875, 0.5625], [0.55859375, 0.99609375]]),
])
def test_16_bit_cov_takes_the_mean_as_a_rounded_sum_over_the_count(name, cov, corr):
    x = E.tensor([[0.5, 1.5, 3.0, 2.25], [2.0, 0.1, 7.0, 0.3]]).to(getattr(E, name))  # PyTorch 2.13's bits
    assert E.cov(x).float().tolist() == cov
    assert E.corrcoef(x).float().tolist() == corr
