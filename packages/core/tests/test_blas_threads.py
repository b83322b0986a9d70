"""Small GEMMs at one BLAS thread (ops/blas_threads.py): the same bits as the threaded BLAS, the user's thread
count kept and restored (after errors, across user threads), and no threadpoolctl call per GEMM."""

import os
import threading
import types

import numpy as np
import pytest

import ember.core as ec
from ember.core.ops import blas_threads

pytest.importorskip("threadpoolctl")

SMALL = (96, 128, 128)  # m, k, n: between OpenBLAS's own one-thread size and THREADED_WORK
BIG = (256, 256, 512)  # THREADED_WORK itself


def _openblas():
    """numpy's OpenBLAS's thread-count calls, or a skip where the BLAS is another."""
    backend = blas_threads._backend()
    if not isinstance(backend, blas_threads._OpenBLAS):
        pytest.skip("numpy's BLAS is not a pthreads OpenBLAS")
    return backend


@pytest.fixture
def blas():
    """The OpenBLAS calls (the module's library found), with the thread counts put back after the test."""
    backend = _openblas()
    with blas_threads.single_threaded():
        pass
    before, numba_before = backend.get(), ec.get_num_threads()
    yield backend
    ec.set_num_threads(numba_before)
    backend.set(before)


def _recording(monkeypatch, blas):
    """blas_threads' np.matmul, recording the BLAS's thread count at each call."""
    seen = []

    def matmul(a, b, out=None):
        seen.append(blas.get())
        return np.matmul(a, b, out=out)

    monkeypatch.setattr(blas_threads, "np", types.SimpleNamespace(matmul=matmul))
    return seen


def test_numpys_openblas_is_found_beside_other_blas_libraries():
    """PyTorch's libraries loaded too: the thread-count calls are still those of the BLAS numpy loaded."""
    pytest.importorskip("torch")
    from threadpoolctl import threadpool_info

    pkg = os.path.realpath(os.path.dirname(np.__file__))
    numpys = [i for i in threadpool_info() if i["user_api"] == "blas"
              and os.path.realpath(i["filepath"]).startswith((pkg + os.sep, pkg + ".libs" + os.sep))]
    if len(numpys) != 1 or numpys[0]["internal_api"] != "openblas" or numpys[0].get("threading_layer") != "pthreads":
        pytest.skip("numpy's BLAS is not a pthreads OpenBLAS of its own wheel")
    backend = blas_threads._backend()
    assert isinstance(backend, blas_threads._OpenBLAS)
    assert backend.get() == numpys[0]["num_threads"]


def test_the_size_rule_brackets_the_shapes_used_here():
    m, k, n = SMALL
    assert blas_threads.OPENBLAS_SERIAL < m * k * n < blas_threads.THREADED_WORK
    m, k, n = BIG
    assert m * k * n >= blas_threads.THREADED_WORK


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(10, 10, 10), (64, 64, 64), SMALL, (192, 128, 512), (192, 512, 128), (512, 192, 128),
                                   BIG, (512, 512, 512)])
@pytest.mark.parametrize("transposed", [False, True])
def test_mm_has_the_bits_of_the_thread_count_its_size_rule_picks(blas, shape, dtype, transposed):
    # OpenBLAS up to 0.3.30 gave one thread's bits at any count; 0.3.31 (numpy 2.4's) gives float32 GEMMs other
    # bits at one thread, so ember's mm must equal numpy's at the count blas_threads picks for the size
    m, k, n = shape
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((n, k)).astype(dtype).T if transposed else rng.standard_normal((k, n)).astype(dtype)
    blas.set(max(2, blas.get()))
    threaded = np.matmul(a, b)
    blas.set(1)
    one = np.matmul(a, b)
    blas.set(2)
    np.testing.assert_allclose(one, threaded, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-4 if dtype == np.float32 else 1e-12)
    picked = one if blas_threads.OPENBLAS_SERIAL < m * k * n < blas_threads.THREADED_WORK else threaded
    assert ec.mm(ec.from_numpy(a), ec.from_numpy(np.ascontiguousarray(b))).numpy().tobytes() == picked.tobytes()


def test_a_batch_of_small_gemms_has_one_threads_bits(blas):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((8, 96, 128)).astype(np.float32), rng.standard_normal((8, 128, 256)).astype(np.float32)
    blas.set(1)
    one = np.matmul(a, b)
    blas.set(2)
    assert ec.bmm(ec.from_numpy(a), ec.from_numpy(b)).numpy().tobytes() == one.tobytes()
    assert blas.get() == 2


@pytest.mark.parametrize("user", [1, 2, 3])
def test_a_small_gemm_runs_at_one_thread_and_restores_the_users_count(monkeypatch, blas, user):
    if user <= 2:
        ec.set_num_threads(user)
    else:  # more than the machine may have: straight to OpenBLAS
        blas.set(user)
    seen = _recording(monkeypatch, blas)
    x, y = ec.ones(*SMALL[:2]), ec.ones(*SMALL[1:])
    assert ec.mm(x, y)[0, 0].item() == SMALL[1]
    assert seen == [1]
    assert blas.get() == user


def test_a_big_gemm_keeps_the_users_count(monkeypatch, blas):
    blas.set(2)
    seen = _recording(monkeypatch, blas)
    ec.mm(ec.ones(*BIG[:2]), ec.ones(*BIG[1:]))
    assert seen == [2] and blas.get() == 2  # one GEMM on the BLAS's own threads


def test_a_small_lstm_training_step_calls_no_threaded_gemm(monkeypatch, blas):
    """GNMT's small sizes (16 sequences of 12 steps, hidden 128, a 512-word head): every GEMM of the LSTM layer's
    forward and backward and of the head's mm and its gradients that OpenBLAS would thread runs at one thread."""
    from ember.core.ops import rnn_cells

    blas.set(2)
    seen = []
    matmul = np.matmul

    def recording(a, b, *args, **kwargs):
        if a.ndim >= 2 and b.ndim >= 2 and a.shape[-2] * a.shape[-1] * b.shape[-1] > blas_threads.OPENBLAS_SERIAL:
            seen.append(blas.get())
        return matmul(a, b, *args, **kwargs)

    monkeypatch.setattr(np, "matmul", recording)
    steps, n, h, words = 12, 16, 128, 512
    rng = np.random.default_rng(0)
    x, w_ih, w_hh, b, hx, cx = (ec.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in
                                [(steps, n, h), (4 * h, h), (4 * h, h), (4 * h,), (n, h), (n, h)])
    hs, cs, ws = rnn_cells.lstm_layer(x, w_ih, w_hh, b, b, hx, cx, False)
    rnn_cells.lstm_layer_backward(hs[1:], None, None, x, w_ih, w_hh, cx, hs, cs, ws, False, (True, True, True))
    out, head = hs[1:].reshape(steps * n, h), ec.ones(h, words)
    g = ec.mm(out, head)
    ec.mm(g, head.t())
    ec.mm(out.t(), g)
    assert len(seen) == 2 * steps + 4 + 3  # the per-step GEMMs, the layer's four over all steps, the head's three
    assert seen == [1] * len(seen)
    assert blas.get() == 2


def test_a_small_pointwise_conv_calls_no_threaded_gemm_and_keeps_its_bits(monkeypatch, blas):
    """A ResNet-style 1x1 convolution (one GEMM of 2**21 multiply-adds an image), forward and both gradients."""
    from ember.core.ops import conv

    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((8, 64, 16, 16), np.float32), rng.standard_normal((128, 64, 1, 1), np.float32)
    g = rng.standard_normal((8, 128, 16, 16), np.float32)
    blas.set(1)  # the batch's GEMMs at one thread, as the convolution runs them
    batched = np.matmul(w.reshape(128, 64), x.reshape(8, 64, 256)).reshape(g.shape)
    blas.set(2)
    seen = []
    matmul = np.matmul

    def recording(a, b, *args, **kwargs):
        seen.append(blas.get())
        return matmul(a, b, *args, **kwargs)

    monkeypatch.setattr(np, "matmul", recording)
    args = ((1, 1), (0, 0), (1, 1), 1)
    y = conv.conv2d_op(ec.from_numpy(x), ec.from_numpy(w), None, *args)
    conv.conv2d_backward_input(ec.from_numpy(g), ec.from_numpy(w), x.shape, *args)
    conv.conv2d_backward_weight(ec.from_numpy(g), ec.from_numpy(x), w.shape, *args)
    assert seen == [1, 1, 1]
    assert y.numpy().tobytes() == batched.tobytes()


def test_the_count_is_restored_after_an_error(blas):
    blas.set(2)
    with pytest.raises(ValueError):
        blas_threads.matmul(np.ones((128, 128)), np.ones((127, 128)))
    assert blas.get() == 2 and blas_threads._STATE[1] == 0


def test_a_count_set_while_the_limit_is_held_stays(blas):
    """The user's set_num_threads between the first call in and the last out wins over the count found."""
    blas.set(2)
    with blas_threads.single_threaded():
        assert blas.get() == 1
        blas.set(3)
    assert blas.get() == 3


def test_overlapping_holders_restore_once_the_last_leaves(blas):
    blas.set(2)
    a, b = blas_threads.single_threaded(), blas_threads.single_threaded()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # the first out, while the second still runs
    assert blas.get() == 1
    b.__exit__(None, None, None)
    assert blas.get() == 2


def test_user_threads_calling_small_gemms_leave_the_count_as_it_was(blas):
    blas.set(2)
    x, y = ec.ones(*SMALL[:2]), ec.ones(*SMALL[1:])
    errors = []

    def work():
        try:
            for _ in range(50):
                assert ec.mm(x, y)[0, 0].item() == SMALL[1]
        except BaseException as e:  # noqa: BLE001 (handed to the main thread)
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert blas.get() == 2 and blas_threads._STATE[1] == 0


def test_small_gemms_call_no_threadpoolctl(blas, monkeypatch):  # monkeypatch undone first
    """Once numpy's OpenBLAS is found, a small GEMM costs two of its own calls, not threadpoolctl's limit()."""
    import threadpoolctl

    blas_threads.matmul(np.ones(SMALL[:2]), np.ones(SMALL[1:]))  # finds the library
    calls = []
    monkeypatch.setattr(threadpoolctl.ThreadpoolController, "limit", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(threadpoolctl.ThreadpoolController, "__init__", lambda *a, **k: calls.append(a))
    x, y = ec.ones(*SMALL[:2]), ec.ones(*SMALL[1:])
    for _ in range(20):
        ec.mm(x, y)
        ec.bmm(x[None], y[None])
    assert calls == []


def test_another_blas_is_left_to_size_each_gemm_itself(monkeypatch):
    """threadpoolctl's limit costs more than a small GEMM: with a BLAS other than OpenBLAS, matmul calls numpy."""
    limits = []

    class Other:
        per_call = False

        def lower(self):
            limits.append(1)

    monkeypatch.setattr(blas_threads, "_STATE", [Other(), 0, None])
    got = ec.mm(ec.ones(*SMALL[:2]), ec.ones(*SMALL[1:]))
    assert got[0, 0].item() == SMALL[1] and limits == []


def test_gemms_below_openblas_own_threshold_skip_the_lock(monkeypatch, blas):
    """OpenBLAS runs these on the calling thread anyway: no lock, no thread-count call."""
    holds = []
    monkeypatch.setattr(blas_threads, "_hold", lambda: holds.append(1))
    ec.mm(ec.ones(10, 10), ec.ones(10, 10))
    ec.mm(ec.ones(64, 64), ec.ones(64, 64))
    ec.bmm(ec.ones(4, 10, 10), ec.ones(4, 10, 10))
    assert holds == []


LENET = [(64, 9216, 128), (128, 64, 9216), (64, 128, 9216)]  # its 9216 -> 128 layer: forward, weight and input grads


def test_the_skinny_rule_takes_lenets_layer_and_leaves_square_ones():
    assert all(blas_threads._skinny(*s) for s in LENET + [(9216, 64, 128)])
    assert not any(blas_threads._skinny(*s) for s in [BIG, (1024, 128, 384), (128, 784, 512), (1024, 256, 1024)])


@pytest.mark.parametrize("shape", LENET + [(9216, 64, 128)])
def test_a_skinny_gemm_runs_in_pieces_on_the_workers_with_one_threads_bits(monkeypatch, blas, shape):
    """NOTE [ Skinny GEMMs on ember's workers ]: one fork at two threads, none at one; k split in two halves at
    any count (the same bits), rows or columns at multiples of 16 (within float32 rounding of one GEMM)."""
    from ember.core import parallel
    from ember.core.ops import workers

    m, k, n = shape
    rng = np.random.default_rng(m + k)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    forks = []
    real = workers.run_all
    monkeypatch.setattr(workers, "run_all", lambda calls: forks.append(len(calls)) or real(calls))
    monkeypatch.setattr(parallel, "get_num_threads", lambda: 1)
    one = ec.mm(ec.from_numpy(a), ec.from_numpy(b)).numpy()
    assert forks == [] and blas.get() == 2
    monkeypatch.setattr(parallel, "get_num_threads", lambda: 2)
    two = ec.mm(ec.from_numpy(a), ec.from_numpy(b)).numpy()
    assert forks == [2] and blas.get() == 2
    want = a.astype(np.float64) @ b
    np.testing.assert_allclose(two, want, rtol=0, atol=1e-5 * np.abs(want).max())
    if k >= max(m, n):
        assert one.tobytes() == two.tobytes()
    else:
        blas.set(1)
        np.testing.assert_allclose(two, np.matmul(a, b), rtol=1e-6, atol=1e-5)
