"""Every GEMM at one BLAS thread, large ones split over ember's workers (ops/blas_threads.py): the bits of the
one-thread blocks, the user's thread count kept and restored (after errors, across user threads), and no
threadpoolctl call per GEMM."""

import os
import threading
import types

import numpy as np
import pytest

import ember.core as ec
from ember.core.ops import blas_threads

pytest.importorskip("threadpoolctl")

SMALL = (96, 128, 128)  # m, k, n: between OpenBLAS's own one-thread size and SPLIT_WORK
BIG = (256, 256, 512)  # twice SPLIT_WORK


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
    assert blas_threads.OPENBLAS_SERIAL < m * k * n < blas_threads.SPLIT_WORK
    m, k, n = BIG
    assert m * k * n >= blas_threads.SPLIT_WORK


def _blocks(a: np.ndarray, b: np.ndarray, threads: int) -> np.ndarray:
    """a @ b as blas_threads splits it: one-thread GEMMs over up to four blocks a thread of the longer side, of at
    least SPLIT_WORK / 4 multiply-adds and a multiple of 8 rows or columns each."""
    m, k = a.shape
    n = b.shape[1]
    blocks = min(4 * threads, m * k * n // (blas_threads.SPLIT_WORK // 4), max(m, n) // 8)
    step = ((max(m, n) + blocks - 1) // blocks + 7) // 8 * 8
    if m >= n:
        return np.concatenate([a[s:s + step] @ b for s in range(0, m, step)])
    return np.concatenate([a @ b[:, s:s + step] for s in range(0, n, step)], axis=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(10, 10, 10), (64, 64, 64), SMALL, (192, 128, 512), (192, 512, 128), (512, 192, 128),
                                   BIG, (512, 512, 512), (64, 9216, 128), (128, 64, 9216), (37, 1000, 999)])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_mm_has_the_bits_of_its_one_thread_blocks(blas, shape, dtype, transposed, threads):
    # OpenBLAS 0.3.31 (numpy 2.4's) gives float32 GEMMs other bits at one thread than at two, and row blocks
    # other bits than the whole: ember's mm is numpy's at one thread, in blas_threads' blocks from SPLIT_WORK
    # up at more than one thread, whatever the BLAS's own count
    m, k, n = shape
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((n, k)).astype(dtype).T if transposed else rng.standard_normal((k, n)).astype(dtype)
    ec.set_num_threads(threads)
    blas.set(1)
    want = _blocks(a, b, threads) if threads > 1 and m * k * n >= blas_threads.SPLIT_WORK else a @ b
    blas.set(2)
    got = ec.mm(ec.from_numpy(a), ec.from_numpy(np.ascontiguousarray(b))).numpy()
    assert got.tobytes() == want.tobytes()
    assert blas.get() == 2


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


def test_a_big_gemm_runs_as_one_thread_blocks_on_the_workers_and_keeps_the_users_count(monkeypatch, blas):
    ec.set_num_threads(2)
    blas.set(2)
    seen, names = [], []
    matmul = np.matmul

    def recording(a, b, out=None):
        seen.append(blas.get())
        names.append(threading.current_thread().name)
        return matmul(a, b, out=out)

    numpy = {k: getattr(np, k) for k in ("may_share_memory", "empty", "broadcast_shapes", "result_type")}
    monkeypatch.setattr(blas_threads, "np", types.SimpleNamespace(matmul=recording, **numpy))
    got = ec.mm(ec.ones(*BIG[:2]), ec.ones(*BIG[1:]))
    assert got.shape == (BIG[0], BIG[2]) and bool((got == BIG[1]).all())
    assert len(seen) == 8 and set(seen) == {1} and blas.get() == 2  # four blocks a thread
    assert threading.current_thread().name in names  # the caller runs a block itself


def test_a_gemm_into_one_of_its_operands_is_not_split(blas):
    """A block written into `a` while another block still reads all of it would be wrong: numpy's one call
    copies the overlapping operand first."""
    ec.set_num_threads(2)
    a = np.random.default_rng(0).standard_normal((512, 512))
    blas.set(1)
    want = a @ a
    blas_threads.matmul(a, a, out=a)
    assert np.array_equal(a, want)


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
    # the per-step GEMMs, the layer's four over all steps (large ones in blocks), the head's three
    assert len(seen) >= 2 * steps + 4 + 3
    assert seen == [1] * len(seen)
    assert blas.get() == 2


def test_a_cnn_training_step_at_two_threads_calls_no_threaded_gemm(monkeypatch, blas):
    """LeNet's layers (issue 21's bench), forward and both gradients, at two threads: every GEMM OpenBLAS would
    thread runs at one BLAS thread (the convolutions' images and the large mm's blocks on ember's workers)."""
    from ember.core.ops import conv

    ec.set_num_threads(2)
    blas.set(2)
    seen = []
    matmul = np.matmul

    def recording(a, b, *args, **kwargs):
        if a.ndim >= 2 and b.ndim >= 2 and a.shape[-2] * a.shape[-1] * b.shape[-1] > blas_threads.OPENBLAS_SERIAL:
            seen.append(blas.get())
        return matmul(a, b, *args, **kwargs)

    monkeypatch.setattr(np, "matmul", recording)
    rng = np.random.default_rng(0)
    x, w = (ec.from_numpy(rng.standard_normal(s, np.float32)) for s in [(64, 32, 26, 26), (64, 32, 3, 3)])
    args = ((1, 1), (0, 0), (1, 1), 1)
    y = conv.conv2d_op(x, w, None, *args)
    conv.conv2d_backward_input(y, w, x.shape, *args)
    conv.conv2d_backward_weight(y, x, w.shape, *args)
    h, fc = ec.from_numpy(rng.standard_normal((64, 9216), np.float32)), ec.ones(128, 9216)
    g = ec.mm(h, fc.t())
    ec.mm(g, fc)
    ec.mm(g.t(), h)
    assert len(seen) >= 3 * 2 + 3 * 2  # at least two chunks a convolution pass, two blocks an mm
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


def test_a_large_lstm_steps_gemm_runs_in_blocks_at_two_threads(monkeypatch, blas):
    """h=256, batch 32 (issue 21's LSTM): each step's W_hh GEMM reaches SPLIT_WORK and runs in two blocks on the
    workers; the layer's values are the one-thread layer's to rounding."""
    from ember.core.ops import rnn_cells, workers

    steps, n, h = 3, 32, 256
    assert 4 * h * h * n >= blas_threads.SPLIT_WORK
    rng = np.random.default_rng(0)
    x, w_ih, w_hh, b, hx, cx = (ec.from_numpy(rng.standard_normal(s).astype(np.float32) / 8) for s in
                                [(steps, n, h), (4 * h, h), (4 * h, h), (4 * h,), (n, h), (n, h)])
    ec.set_num_threads(1)
    one = rnn_cells.lstm_layer(x, w_ih, w_hh, b, b, hx, cx, False)[0].numpy()
    ec.set_num_threads(2)
    waves = []
    run_all = workers.run_all
    monkeypatch.setattr(workers, "run_all", lambda calls: waves.append(len(calls)) or run_all(calls))
    two = rnn_cells.lstm_layer(x, w_ih, w_hh, b, b, hx, cx, False)[0].numpy()
    assert waves.count(2) >= steps
    np.testing.assert_allclose(two, one, rtol=1e-5, atol=1e-6)
