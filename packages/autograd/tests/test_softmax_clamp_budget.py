"""Call budgets of softmax, log_softmax, cross_entropy, clamp and argmax on small tensors: counted Python and C
calls, not time, so a slower path fails whatever the load; and the bits their faster paths must keep.

Measured when set (Python/C calls) through ember.nn.functional, against the path before (in brackets): softmax 19/16
(19/17), log_softmax 19/16 (21/17), cross_entropy 32/47 (46/58), clamp(0.2, 0.8) 16/29 (23/49), clamp(min=0) 15/24
(20/44), argmax(1) 13/19 (21/25), argmax() 11/16 (20/22); counted here through the autograd layer's own functions
(this package's tests import no layer above it), softmax and log_softmax take 18/16 and cross_entropy 30/47.
softmax's gain is inside numpy (no keepdims max, broadcast subtract or errstate: NOTE [ Small rows: the shift in one
call ]), which `test_small_softmax_reduces_once_without_errstate` guards. The budgets leave about 15%.
"""

import sys

import numpy as np
import pytest

import ember.autograd as E
from call_budget import count_calls as _count, cpu_only_process  # noqa: F401 - the fixture

pytestmark = pytest.mark.usefixtures("cpu_only_process")


rng = np.random.default_rng(0)
A = E.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
I = E.from_numpy(rng.integers(0, 10, 10))

CALLS = {
    "softmax(a, -1)": lambda: E.softmax(A, -1),
    "log_softmax(a, -1)": lambda: E.log_softmax(A, -1),
    "cross_entropy(a, i)": lambda: E.cross_entropy(A, I),
    "a.clamp(0.2, 0.8)": lambda: A.clamp(0.2, 0.8),
    "a.clamp(min=0)": lambda: A.clamp(min=0),
    "a.argmax(1)": lambda: A.argmax(1),
    "a.argmax()": lambda: A.argmax(),
}
BUDGETS = {
    "softmax(a, -1)": (22, 18), "log_softmax(a, -1)": (22, 18), "cross_entropy(a, i)": (37, 54),
    "a.clamp(0.2, 0.8)": (19, 34), "a.clamp(min=0)": (18, 28), "a.argmax(1)": (15, 22), "a.argmax()": (13, 19),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_call_stays_within_its_budget(name):
    got, budget = _count(CALLS[name]), BUDGETS[name]
    assert got[0] <= budget[0] and got[1] <= budget[1], (
        f"{name}: {got[0]} Python calls and {got[1]} C calls; the budget is {budget[0]} and {budget[1]}")


def _trace(fn) -> tuple[list[str], list[str]]:
    """(the files of the Python frames, the names of the C calls) of one `fn()`, after a warm-up call."""
    fn()
    files, cnames = [], []

    def prof(frame, event, arg):
        if event == "call":
            files.append(frame.f_code.co_filename)
        elif event == "c_call":
            cnames.append(getattr(arg, "__qualname__", ""))

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return files, cnames


@pytest.mark.parametrize("name", ["softmax(a, -1)", "log_softmax(a, -1)", "cross_entropy(a, i)"])
def test_small_softmax_reduces_once_without_errstate(name):
    """Finite rows below the row passes' size: the shift is one Numba call, numpy reduces only the sum (cross-entropy
    its per-row terms too) and no errstate block is entered."""
    files, cnames = _trace(CALLS[name])
    assert not [f for f in files if f.endswith("_ufunc_config.py")]
    assert cnames.count("ufunc.reduce") == (2 if name.startswith("cross") else 1)


def _softmax_np(x):
    m = np.maximum.reduce(x, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - m)
        return e / np.add.reduce(e, axis=-1, keepdims=True)


def _log_softmax_np(x):
    m = np.maximum.reduce(x, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = x - np.where(m == -np.inf, 0, m)
        return z - np.log(np.add.reduce(np.exp(z), axis=-1, keepdims=True))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_small_softmax_keeps_numpys_bits(dt):
    """The small-row path gives the bits of numpy's `exp(x - max) / sum` (and of `z - log(sum(exp(z)))`), rows with
    -inf, +inf, NaN, a single -inf entry and signed zeros included."""
    x = (rng.standard_normal((9, 7)) * 4).astype(dt)
    x[1] = -np.inf
    x[2, 3] = np.inf
    x[3, 1] = np.nan
    x[4, 0] = -np.inf
    x[5] = 0.0
    x[5, ::2] = -0.0
    for got, want in ((E.softmax(E.from_numpy(x), -1), _softmax_np(x)),
                      (E.log_softmax(E.from_numpy(x), -1), _log_softmax_np(x))):
        assert got.numpy().tobytes() == want.tobytes()


def test_small_cross_entropy_keeps_the_row_terms_bits():
    """Class-index cross-entropy's small path: `-((x_t - max) - log(sum(exp(x - max))))` per row, ignored rows 0,
    the mean over the rows that count, bit for bit; all rows ignored is NaN (0/0), as PyTorch's."""
    x = (rng.standard_normal((6, 5)) * 3).astype(np.float32)
    t = np.array([0, 4, -100, 2, 1, -100])
    m = np.maximum.reduce(x, axis=1, keepdims=True)
    terms = -((x[np.arange(6), np.where(t < 0, 0, t)] - m[:, 0]) - np.log(np.add.reduce(np.exp(x - m), axis=1)))
    terms = terms * (t >= 0).astype(np.float32)
    xe, te = E.from_numpy(x), E.from_numpy(t)
    assert E.cross_entropy(xe, te, reduction="none").numpy().tobytes() == terms.tobytes()
    assert E.cross_entropy(xe, te).numpy().tobytes() == (np.add.reduce(terms) / np.float32(4)).tobytes()
    assert np.isnan(E.cross_entropy(xe, E.full((6,), -100)).item())
    with pytest.raises(IndexError, match="^Target 5 is out of bounds.$"):
        E.cross_entropy(xe, E.tensor([0, 5, 0, 0, 0, 0]))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_clamp_keeps_pytorchs_comparisons(dt):
    """`x < lo ? lo : x`, then `x > hi ? hi : x`: NaN and -0.0 pass, lo above hi gives hi, bit for bit."""
    x = rng.standard_normal(300).astype(dt)
    x[:4] = [np.nan, -0.0, 0.0, np.inf]
    t = E.from_numpy(x)
    for lo, hi in ((-0.5, 0.5), (0.0, None), (None, 0.0), (0.8, 0.2), (-1, 2)):
        want = x if lo is None else np.where(x < dt(lo), dt(lo), x)
        want = want if hi is None else np.where(want > dt(hi), dt(hi), want)
        assert t.clamp(lo, hi).numpy().tobytes() == want.tobytes()
