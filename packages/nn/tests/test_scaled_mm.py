"""F.scaled_mm: float8 products with tensor-wise and row-wise decoding scales, float32 accumulation and
one rounding into the output dtype; PyTorch's ValueError for a bad scaling configuration."""

import numpy as np
import pytest

import ember.autograd as E
import ember.nn.functional as F
from ember.core.ops import restricted_dtypes

RNG = np.random.default_rng(0)
A = RNG.standard_normal((8, 16)).astype(np.float32)
B = RNG.standard_normal((16, 4)).astype(np.float32)


@pytest.fixture(autouse=True)
def _no_guard_after():
    yield
    restricted_dtypes.uninstall()


def _f8(x):
    return E.tensor(x).to(E.float8_e4m3fn)


def test_tensor_and_row_wise_scaling():
    a, b = _f8(A), _f8(B)
    a64, b64 = a.float()._np().astype(np.float64), b.float()._np().astype(np.float64)
    r = F.scaled_mm(a, b, E.tensor(2.0), F.ScalingType.TensorWise, E.tensor(0.5), F.ScalingType.TensorWise,
                    output_dtype=E.float32)
    assert r.dtype is E.float32 and np.allclose(r._np(), a64 @ b64, atol=1e-5)
    sa, sb = RNG.random((8, 1)).astype(np.float32) + 0.5, RNG.random((1, 4)).astype(np.float32) + 0.5
    r = F.scaled_mm(a, b, E.tensor(sa), F.ScalingType.RowWise, E.tensor(sb), F.ScalingType.RowWise)
    assert r.dtype is E.bfloat16
    want = E.tensor(((a64 * sa) @ (b64 * sb)).astype(np.float32)).to(E.bfloat16)
    assert r.float().tolist() == want.float().tolist()
    r = F.scaled_mm(a, b, E.tensor(1.0), F.ScalingType.TensorWise, E.tensor(1.0), F.ScalingType.TensorWise,
                    bias=E.ones(4, dtype=E.bfloat16), output_dtype=E.float32)
    assert np.allclose(r._np(), a64 @ b64 + 1, atol=1e-5)


def test_bad_configurations():
    with pytest.raises(ValueError, match="Invalid scaling configuration"):
        F.scaled_mm(E.tensor(A), _f8(B), E.tensor(1.0), F.ScalingType.TensorWise, E.tensor(1.0),
                    F.ScalingType.TensorWise)
    with pytest.raises(ValueError, match=r"scale_a should be \(8, 1\)"):
        F.scaled_mm(_f8(A), _f8(B), E.ones(8), F.ScalingType.RowWise, E.ones(1, 4), F.ScalingType.RowWise)
    with pytest.raises(NotImplementedError, match="TensorWise and RowWise"):
        F.scaled_mm(_f8(A), _f8(B), E.ones(8, 1), F.ScalingType.BlockWise1x32, E.ones(1, 4),
                    F.ScalingType.BlockWise1x32)


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    tF = torch.nn.functional
    a, b = torch.tensor(A).to(torch.float8_e4m3fn), torch.tensor(B).to(torch.float8_e4m3fn)
    want = tF.scaled_mm(a, b, torch.tensor(2.0), tF.ScalingType.TensorWise, torch.tensor(0.5),
                        tF.ScalingType.TensorWise).float().numpy()
    got = F.scaled_mm(_f8(A), _f8(B), E.tensor(2.0), F.ScalingType.TensorWise, E.tensor(0.5),
                      F.ScalingType.TensorWise).float()._np()
    np.testing.assert_array_equal(got, want)
