"""An elementwise op with an `out=` of another dtype computes in its own result dtype and casts into `out`,
on CUDA as on the CPU and in PyTorch: `add(bool, bool, out=int32)` is a logical or (1, not 2), a float16
result rounds before an `out` of float64 widens it, `exp2(uint8)` overflows float32. The expected values
are PyTorch 2.13's. Run in Numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) with tiny shapes."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]


def _t(values, dtype, device):
    return E.tensor(values, dtype=dtype, device=device)


# name -> (op(device) writing into a fresh `out=` of another dtype, PyTorch 2.13's values)
CASES = {
    "add(bool, expanded bool, out=int32)": (
        lambda d: E.add(_t([True], E.bool, d), _t([[[[True, True]]]], E.bool, d).expand(5, 1, 1, 2),
                        out=E.empty(0, dtype=E.int32, device=d)),
        np.ones((5, 1, 1, 2), np.int32)),
    "bitwise_xor(bool, bool, out=int32)": (
        lambda d: E.bitwise_xor(_t([True, False], E.bool, d), _t([True, True], E.bool, d),
                                out=E.empty(2, dtype=E.int32, device=d)),
        np.array([0, 1], np.int32)),
    "mul(bool, bool, out=int64)": (
        lambda d: E.mul(_t([True, True], E.bool, d), _t([True, False], E.bool, d),
                        out=E.empty(2, dtype=E.int64, device=d)),
        np.array([1, 0], np.int64)),
    "mul(uint8, uint8, out=int32)": (
        lambda d: E.mul(_t([200], E.uint8, d), _t([2], E.uint8, d), out=E.empty(1, dtype=E.int32, device=d)),
        np.array([144], np.int32)),
    "add(float16, float16, out=float32)": (
        lambda d: E.add(_t([60000.0], E.float16, d), _t([60000.0], E.float16, d),
                        out=E.empty(1, dtype=E.float32, device=d)),
        np.array([np.inf], np.float32)),
    "exp2(uint8, out=float64)": (
        lambda d: E.exp2(_t([200], E.uint8, d), out=E.empty(1, dtype=E.float64, device=d)),
        np.array([np.inf])),
    "sigmoid(bfloat16, out=float64)": (
        lambda d: E.sigmoid(_t([1.3], E.bfloat16, d), out=E.empty(1, dtype=E.float64, device=d)),
        np.array([0.78515625])),
    "lerp(float16, float16, 0.3, out=float64)": (
        lambda d: E.lerp(_t([1.1], E.float16, d), _t([2.3], E.float16, d), 0.3,
                         out=E.empty(1, dtype=E.float64, device=d)),
        np.array([1.4599609375])),
    "exp(float16, out=float64)": (
        lambda d: E.exp(_t([2.5], E.float16, d), out=E.empty(1, dtype=E.float64, device=d)),
        np.array([np.float16(np.exp(np.float32(2.5)))], np.float64)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_out_of_another_dtype_gets_the_result_dtypes_values(name):
    op, expected = CASES[name]
    for device in ("cpu", "cuda"):
        r = op(device)
        assert r.device.type == device and r.dtype == E.from_numpy(expected).dtype
        np.testing.assert_array_equal(r.cpu().numpy(), expected, err_msg=device)


def test_an_out_of_another_dtype_is_written_in_place_and_resized():
    out = E.empty(3, dtype=E.int32, device="cuda")
    with pytest.warns(UserWarning, match="was resized"):
        r = E.add(_t([True, False], E.bool, "cuda"), _t([True, True], E.bool, "cuda"), out=out)
    assert r is out and out.shape == (2,)
    np.testing.assert_array_equal(out.cpu().numpy(), [1, 1])


def test_an_out_that_cannot_hold_the_result_dtype_raises_before_computing():
    with pytest.raises(RuntimeError, match="can't be cast"):
        E.add(_t([1.5], E.float32, "cuda"), 1, out=E.empty(1, dtype=E.int32, device="cuda"))
