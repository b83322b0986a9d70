"""PowerSGD gradient compression for DDP (Vogels et al., 2019): PyTorch's
`torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook`.

Each gradient matrix M (n × m, a parameter's gradient viewed as `(shape[0], -1)`) is replaced by a
rank-r approximation P Qᵀ computed with one step of power iteration, so only (n + m) r numbers
per matrix cross the wire: P = M Q, all-reduce P, orthogonalize P, Q = Mᵀ P, all-reduce Q,
M ≈ P Qᵀ / world_size. Gradients that would not shrink by `min_compression_rate` (biases, small
matrices) are all-reduced as they are. Error feedback adds what the last approximation lost to
the next gradient; warm start begins each power iteration from the last Q.

NOTE [ PowerSGD and the order of MPI collectives ]
MPI matches the collectives of a communicator by the order ranks issue them. DDP calls the hook
of each bucket in bucket order on every rank, but Future callbacks run whenever a poll finds a
request complete, which differs between ranks; a collective issued from a callback could
therefore interleave differently with the next bucket's. So a compressing hook is a staged
generator (`_per_matrix_stages`, `_batched_stages`) that yields after issuing each all-reduce,
and the stages are resumed only at points every rank reaches in the same order: the next hook
call of the same state resumes each earlier bucket still waiting for its P (it waits for P,
orthogonalizes and issues Q) before issuing its own collectives, and waiting on a bucket's Future
(DDP does so in bucket order once backward ends) finishes every earlier bucket, then that one.
So bucket k's P all-reduce travels while backward computes the gradients of bucket k + 1, and
its Q all-reduce while those of bucket k + 2 are computed, and every rank issues plain₀, P₀,
Q₀, plain₁, P₁, Q₁ ... in one order. Before `start_powerSGD_iter` the hooks are DDP's plain
all-reduce.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict, deque
from collections.abc import Generator

import numpy as np

from ember.core.futures import Future
from ember.core.tensor import Tensor
from ember.distributed import c10d
from ember.distributed.comm_hooks import GradBucket, allreduce_hook

__all__ = ["PowerSGDState", "powerSGD_hook", "batched_powerSGD_hook"]

logger = logging.getLogger(__name__)


class PowerSGDState:
    """The state PowerSGD keeps between iterations: its settings, the error-feedback residuals and
    the warm-start P and Q of each bucket (PyTorch's `PowerSGDState`, same arguments and defaults).

    Args:
        process_group: the group to reduce over (the default group when None).
        matrix_approximation_rank: r, the rank of each approximation (1 is often enough).
        start_powerSGD_iter: iterations of plain all-reduce before compression starts.
        min_compression_rate: compress a matrix only when (n + m) r times this is below n m.
        use_error_feedback: add the last iteration's approximation error to the gradient.
        warm_start: start the power iteration from the last iteration's Q.
        orthogonalization_epsilon: added to column norms in Gram-Schmidt (avoids 0/0 on zero columns).
        random_seed: seeds the initial Qs (the same on every rank).
        compression_stats_logging_frequency: log compression statistics every this many iterations.
        batch_tensors_with_same_shape: compress same-shape gradients of a bucket as one batch.

    Raises:
        ValueError: `start_powerSGD_iter` <= 1 with error feedback or warm start (PyTorch's rule:
            the first iterations must be plain all-reduce).
    """

    __slots__ = ["process_group", "matrix_approximation_rank", "start_powerSGD_iter", "min_compression_rate",
                 "orthogonalization_epsilon", "use_error_feedback", "warm_start", "batch_tensors_with_same_shape",
                 "rng", "error_dict", "p_memory_dict", "q_memory_dict", "iter", "total_numel_before_compression",
                 "total_numel_after_compression", "compression_stats_logging_frequency", "next_stats_report",
                 "pipeline"]

    def __init__(self, process_group, matrix_approximation_rank: int = 1, start_powerSGD_iter: int = 1_000,
                 min_compression_rate: float = 2, use_error_feedback: bool = True, warm_start: bool = True,
                 orthogonalization_epsilon: float = 0, random_seed: int = 0,
                 compression_stats_logging_frequency: int = 10_000,
                 batch_tensors_with_same_shape: bool = False) -> None:
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            raise ValueError("Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or `warm_start` is enabled, "
                             "because PowerSGD can only be applied after the first two iterations in DDP.")
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape
        self.rng = np.random.RandomState(random_seed)
        self.error_dict: dict[int, Tensor] = {}
        self.p_memory_dict: dict[int, Tensor] = {}
        self.q_memory_dict: dict[int, Tensor] = {}
        self.iter = 0
        self.total_numel_before_compression = 0
        self.total_numel_after_compression = 0
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        self.next_stats_report = 0
        self.pipeline: deque[_Staged] = deque()  # compressing buckets with collectives in flight, in call order

    def __getstate__(self) -> dict:
        """Every slot but the process group, which cannot be pickled, and the buckets in flight."""
        return {s: getattr(self, s) for s in self.__slots__ if s not in ("process_group", "pipeline")}

    def __setstate__(self, state: dict) -> None:
        """Restore the slots; the process group becomes the default one."""
        self.process_group = c10d.GroupMember.WORLD
        self.pipeline = deque()
        for slot, value in state.items():
            setattr(self, slot, value)

    def maybe_increase_iter(self, bucket: GradBucket) -> None:
        """Count an iteration when the last bucket of one is reduced."""
        if bucket.is_last():
            self.iter += 1
        if self.iter == self.start_powerSGD_iter:
            logger.info("Start to apply PowerSGD after %s iterations.", self.iter)

    def compression_stats(self) -> tuple[float, int, int]:
        """(elements before / elements after compression, elements before, elements after); rate 0 before
        any compression."""
        after = self.total_numel_after_compression
        rate = self.total_numel_before_compression / after if after > 0 else 0
        return rate, self.total_numel_before_compression, after


def _group(state: PowerSGDState) -> c10d.ProcessGroup:
    return state.process_group if state.process_group is not None else c10d._default()


def _report_compression_stats(bucket: GradBucket, state: PowerSGDState) -> None:
    if bucket.is_last() and state.iter >= state.next_stats_report:
        rate, before, after = state.compression_stats()
        logger.info("Compression stats: iter %s, total before compression %s, total after compression %s, rate %s",
                    state.iter, before, after, rate)
        state.next_stats_report = state.iter + state.compression_stats_logging_frequency


def _orthogonalize(matrices: np.ndarray, epsilon: float = 0) -> None:
    """Orthonormalize the columns of each matrix of the batch (b, n, r), in place: Gram-Schmidt for
    r <= 2 and half precision, a reduced QR otherwise (PyTorch's choice)."""
    r = matrices.shape[2]
    if r <= 2 or matrices.dtype.itemsize <= 2:
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero column gives NaNs, as in PyTorch
            for i in range(r):
                col = matrices[:, :, i:i + 1]
                col /= np.sqrt(np.sum(col * col, axis=1, keepdims=True)) + epsilon
                if i + 1 < r:
                    rest = matrices[:, :, i + 1:]
                    rest -= np.sum(col * rest, axis=1, keepdims=True) * col
    else:
        matrices[...] = np.linalg.qr(matrices)[0]


def _should_compress(n: int, m: int, rank: int, min_compression_rate: float) -> tuple[bool, int, int]:
    """(compress?, elements uncompressed, elements compressed) of an n × m matrix at `rank`."""
    return (n + m) * rank * min_compression_rate < n * m, n * m, (n + m) * rank


def _all_reduce(arr: np.ndarray, pg: c10d.ProcessGroup) -> c10d.Work:
    """Start summing `arr` (a contiguous numpy array, reduced in place) across the group."""
    return c10d.all_reduce(Tensor._wrap(arr), group=pg, async_op=True)


def _done(value: Tensor) -> Future:
    fut = Future()
    fut.set_result(value)
    return fut


# what a stage yields: the all-reduce it issued last, and whether the stage after it issues more
_Stage = tuple[c10d.Work, bool]


class _Staged:
    """A compressing hook call in flight: its stage generator, the all-reduce it waits for, and its Future."""

    __slots__ = ("pipeline", "stages", "work", "more", "finished", "future")

    def __init__(self, pipeline: deque, stages: Generator[_Stage, None, Tensor]) -> None:
        self.pipeline = pipeline
        self.stages = stages
        self.work: c10d.Work | None = None
        self.more = self.finished = False
        self.future = Future(drive=self._drive)

    def resume(self) -> None:
        """Wait for the pending all-reduce and run the next stage (its result or error completes the Future)."""
        try:
            if self.work is not None:
                self.work.wait()
            self.work, self.more = next(self.stages)
        except StopIteration as stop:
            self._end()
            self.future.set_result(stop.value)
        except BaseException as e:  # noqa: BLE001 - the bucket's Future carries it to DDP
            self._end()
            self.future.set_exception(e)

    def _end(self) -> None:
        self.work, self.more, self.finished = None, False, True

    def _drive(self, block: bool) -> None:
        """A poll lets MPI progress the pending request and issues nothing; a wait finishes every
        bucket before this one, in call order, then this one."""
        if not block:
            if self.work is not None:
                self.work.is_completed()
            return
        while self.pipeline:
            head = self.pipeline.popleft()
            while not head.finished:
                head.resume()
            if head is self:
                return


def _run_staged(state: PowerSGDState, stages: Generator[_Stage, None, Tensor]) -> Future:
    """Issue the earlier buckets' next collectives, then this bucket's first ones (NOTE [ PowerSGD and
    the order of MPI collectives ]); the Future finishes the pipeline up to this bucket when waited on."""
    for earlier in state.pipeline:
        if earlier.more:
            earlier.resume()
    entry = _Staged(state.pipeline, stages)
    entry.resume()
    if not entry.finished:
        state.pipeline.append(entry)
    return entry.future


def _fill_random(arrays: list[np.ndarray], rng: np.random.RandomState) -> None:
    """Standard normal values from a generator seeded by `rng` (which every rank advances alike),
    leaving the global random state alone."""
    gen = np.random.RandomState(rng.randint(1_000_000_000))
    for a in arrays:
        a[...] = gen.standard_normal(a.shape)


def _error_feedback(state: PowerSGDState, index: int, buf: np.ndarray) -> np.ndarray | None:
    """Add the stored residual of bucket `index` to `buf`; the input to remember for the next residual."""
    if not state.use_error_feedback:
        return None
    if index in state.error_dict:
        buf += state.error_dict[index].numpy()
    else:
        logger.info("A zero tensor of length %s that represents local error is created.", buf.size)
        state.error_dict[index] = Tensor._wrap(np.zeros_like(buf))
    return buf.copy()


def _finish(state: PowerSGDState, index: int, before: np.ndarray | None, buf: np.ndarray, bucket: GradBucket) -> None:
    if before is not None:
        state.error_dict[index] = Tensor._wrap(before - buf)
    if not state.warm_start:
        state.p_memory_dict.clear()
        state.q_memory_dict.clear()
    state.maybe_increase_iter(bucket)


def powerSGD_hook(state: PowerSGDState, bucket: GradBucket) -> Future:  # noqa: N802 - PyTorch's name
    """Reduce a bucket with PowerSGD: each gradient matrix worth compressing becomes a rank-r
    approximation from one power-iteration step; the other gradients are all-reduced as they are.

    Args:
        state: the `PowerSGDState` (settings and memory across iterations).
        bucket: the DDP gradient bucket (register with `ddp.register_comm_hook(state, powerSGD_hook)`).

    Returns:
        A Future of the bucket's buffer holding the averaged (approximated) gradients.
    """
    pg = _group(state)
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return allreduce_hook(pg, bucket)
    return _run_staged(state, _per_matrix_stages(state, bucket, pg))


def _per_matrix_stages(state: PowerSGDState, bucket: GradBucket,
                       pg: c10d.ProcessGroup) -> Generator[_Stage, None, Tensor]:
    """`powerSGD_hook`'s work on one bucket, yielding after each all-reduce of P and of Q."""
    world = pg.size()
    buf_t = bucket.buffer()
    buf = buf_t.numpy()
    dtype = buf.dtype
    index = bucket.index()
    before = _error_feedback(state, index, buf)

    # Step I: split the gradients into those all-reduced as they are and the matrices to compress.
    plain: list[np.ndarray] = []
    by_shape: dict[tuple[int, int], list[np.ndarray]] = defaultdict(list)
    for g in bucket.gradients():
        a = g.numpy()
        n = a.shape[0] if a.ndim else 1
        m = a.size // n if n else 0
        rank = min(n, m, state.matrix_approximation_rank)
        compress, numel, small = _should_compress(n, m, rank, state.min_compression_rate)
        state.total_numel_before_compression += numel
        if compress and a.ndim >= 2:
            by_shape[(n, m)].append(a.reshape(n, m))
            state.total_numel_after_compression += small
        else:
            plain.append(a)
            state.total_numel_after_compression += numel
    _report_compression_stats(bucket, state)

    # Step II: the uncompressed gradients, packed into one array, are all-reduced first.
    plain_mem = np.concatenate([a.reshape(-1) for a in plain]) if plain else np.zeros(0, dtype)
    plain_work = _all_reduce(plain_mem, pg)

    # Step III: batches (b, n, m) of matrices, each with its P (b, n, r) and Q (b, m, r) in one flat memory.
    batches: list[tuple[list[np.ndarray], np.ndarray]] = []
    for mats in by_shape.values():
        if state.batch_tensors_with_same_shape and len(mats) > 1:
            batches.append((mats, np.stack(mats)))
        else:
            batches.extend(([mat], mat[None]) for mat in mats)
    p_size = q_size = 0
    for _, t in batches:
        b, n, m = t.shape
        rank = min(n, m, state.matrix_approximation_rank)
        p_size += b * n * rank
        q_size += b * m * rank
    fresh = not state.warm_start or index not in state.p_memory_dict
    if fresh:
        if state.warm_start:
            logger.info("Allocating contiguous memory of length %s for Ps, and of length %s for Qs, respectively.",
                        p_size, q_size)
        state.p_memory_dict[index] = Tensor._wrap(np.empty(p_size, dtype))
        state.q_memory_dict[index] = Tensor._wrap(np.empty(q_size, dtype))
    p_mem, q_mem = state.p_memory_dict[index].numpy(), state.q_memory_dict[index].numpy()
    ps, qs = [], []
    pi = qi = 0
    for _, t in batches:
        b, n, m = t.shape
        rank = min(n, m, state.matrix_approximation_rank)
        ps.append(p_mem[pi:pi + b * n * rank].reshape(b, n, rank))
        qs.append(q_mem[qi:qi + b * m * rank].reshape(b, m, rank))
        pi += b * n * rank
        qi += b * m * rank
    if fresh:
        _fill_random(qs, state.rng)
    for q in qs:
        _orthogonalize(q, state.orthogonalization_epsilon)
    for (_, t), p, q in zip(batches, ps, qs):
        np.matmul(t, q, out=p)
    yield _all_reduce(p_mem, pg), True   # no division: P is orthogonalized next
    for p in ps:
        _orthogonalize(p, state.orthogonalization_epsilon)
    for (_, t), p, q in zip(batches, ps, qs):
        np.matmul(t.transpose(0, 2, 1), p, out=q)
    yield _all_reduce(q_mem, pg), False
    q_mem /= world
    for (mats, t), p, q in zip(batches, ps, qs):
        np.matmul(p, q.transpose(0, 2, 1), out=t)
        if len(mats) > 1:   # a stacked batch is a copy: write each approximation back into its gradient
            for mat, approx in zip(mats, t):
                mat[...] = approx
    plain_work.wait()
    plain_mem /= world
    pos = 0
    for a in plain:
        a[...] = plain_mem[pos:pos + a.size].reshape(a.shape)
        pos += a.size
    _finish(state, index, before, buf, bucket)
    return buf_t


def batched_powerSGD_hook(state: PowerSGDState, bucket: GradBucket) -> Future:  # noqa: N802 - PyTorch's name
    """Reduce a bucket with PowerSGD applied to the whole bucket at once: the flat buffer, padded
    with zeros to a square of side ⌈√numel⌉, is approximated at rank r (faster and coarser than
    `powerSGD_hook`, which compresses each gradient matrix on its own).

    Args:
        state: the `PowerSGDState`.
        bucket: the DDP gradient bucket.

    Returns:
        A Future of the bucket's buffer holding the averaged (approximated) gradients.
    """
    pg = _group(state)
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return allreduce_hook(pg, bucket)
    return _run_staged(state, _batched_stages(state, bucket, pg))


def _batched_stages(state: PowerSGDState, bucket: GradBucket,
                    pg: c10d.ProcessGroup) -> Generator[_Stage, None, Tensor]:
    """`batched_powerSGD_hook`'s work on one bucket, yielding after each all-reduce of P and of Q."""
    world = pg.size()
    buf_t = bucket.buffer()
    total = buf_t.numel()
    side = math.ceil(math.sqrt(total))
    rank = state.matrix_approximation_rank
    state.total_numel_before_compression += total
    state.total_numel_after_compression += side * rank * 2
    _report_compression_stats(bucket, state)
    padded = np.zeros(side * side, buf_t.numpy().dtype)
    padded[:total] = buf_t.numpy()
    index = bucket.index()
    before = _error_feedback(state, index, padded)
    matrix = padded.reshape(side, side)
    if not state.warm_start or index not in state.p_memory_dict:
        if state.warm_start:
            logger.info("Initializing low-rank tensors P and Q, each of which has a shape of %s x %s.", side, rank)
        state.p_memory_dict[index] = Tensor._wrap(np.empty((side, rank), padded.dtype))
        q = np.empty((side, rank), padded.dtype)
        _fill_random([q], state.rng)
        state.q_memory_dict[index] = Tensor._wrap(q)
    p, q = state.p_memory_dict[index].numpy(), state.q_memory_dict[index].numpy()
    _orthogonalize(q[None], state.orthogonalization_epsilon)
    np.matmul(matrix, q, out=p)
    yield _all_reduce(p, pg), True
    _orthogonalize(p[None], state.orthogonalization_epsilon)
    np.matmul(matrix.T, p, out=q)
    yield _all_reduce(q, pg), False
    q /= world
    np.matmul(p, q.T, out=matrix)
    buf_t.numpy()[...] = padded[:total]
    _finish(state, index, before, padded, bucket)
    return buf_t
