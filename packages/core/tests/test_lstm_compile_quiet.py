"""The LSTM layer kernels' first compile shows no Numba warning, even to a caller recording every warning
(`catch_warnings(record=True)` with `simplefilter("always")`, as programs that print their warnings do)."""

from __future__ import annotations

import os
import subprocess
import sys

_SCRIPT = """
import warnings
import numpy as np
import ember.core as ec
from ember.core.ops import rnn_cells
rng = np.random.default_rng(0)
x, w_ih, w_hh, b, hx, cx = (ec.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in
                            [(3, 2, 4), (16, 4), (16, 4), (16,), (2, 4), (2, 4)])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    hs, cs, ws = rnn_cells.lstm_layer(x, w_ih, w_hh, b, b, hx, cx, False)
    rnn_cells.lstm_layer_backward(hs[1:], None, None, x, w_ih, w_hh, cx, hs, cs, ws, False, (True, True, True))
print([f"{type(i.message).__name__}: {i.message}" for i in w])
"""


def test_first_lstm_compile_is_quiet(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))  # an empty cache: the kernels compile here
    r = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "[]"
