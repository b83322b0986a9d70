"""Datasets for the DataLoader tests, in a module of their own so that spawned workers can import them."""

from __future__ import annotations

import os
import random
import signal
import time

import numpy as np

import ember.core as E
from ember.data import Dataset, IterableDataset, get_worker_info

SHM_DIR = "/dev/shm"


def segments(pid: int | None = None) -> set[str]:
    """The shared-memory segments of this process's tensors and loaders (of process `pid` if given):
    other programs on the machine may use ember at the same time."""
    head = f"ember_{os.getpid() if pid is None else pid}_"
    return {f for f in os.listdir(SHM_DIR) if f.startswith(head)}


class Squares(Dataset):
    """Sample i: (a 2x3 float32 array filled with i*i, i)."""

    def __init__(self, n: int = 40) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        return np.full((2, 3), i * i, np.float32), i


class Jittery(Squares):
    """Like Squares, but sample times vary, so workers finish out of order."""

    def __getitem__(self, i):
        time.sleep(0.02 * ((i * 7919) % 5))
        return super().__getitem__(i)


class Failing(Squares):
    """Raises `exc_type` at key `bad` (other keys behave like Squares)."""

    def __init__(self, bad: int, exc_type: type = ValueError, n: int = 40) -> None:
        super().__init__(n)
        self.bad = bad
        self.exc_type = exc_type

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc_type(f"bad sample {i}")
        return super().__getitem__(i)


class NeedsTwoArgs(Exception):
    """An exception that cannot be rebuilt from a message alone."""

    def __init__(self, a, b) -> None:
        super().__init__(f"{a}/{b}")


class FailingTwoArgs(Squares):
    def __getitem__(self, i):
        raise NeedsTwoArgs(i, "x")


class SelfKilling(Squares):
    """The worker that fetches key `bad` kills itself with SIGKILL."""

    def __init__(self, bad: int, n: int = 40) -> None:
        super().__init__(n)
        self.bad = bad

    def __getitem__(self, i):
        if i == self.bad and get_worker_info() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().__getitem__(i)


class Slow(Squares):
    """Every sample takes `delay` seconds."""

    def __init__(self, delay: float, n: int = 40) -> None:
        super().__init__(n)
        self.delay = delay

    def __getitem__(self, i):
        time.sleep(self.delay)
        return super().__getitem__(i)


class HangsAfter(Squares):
    """Samples from `n_ok` on hang (for an hour) in `__getitem__`, as a dead network mount would."""

    def __init__(self, n_ok: int, n: int = 40) -> None:
        super().__init__(n)
        self.n_ok = n_ok

    def __getitem__(self, i):
        if i >= self.n_ok:
            time.sleep(3600)
        return super().__getitem__(i)


class HoldsTheGIL(Squares):
    """Samples from `n_ok` on block for an hour in native code that keeps the GIL (a C extension's
    deadlock), so no Python thread of the worker (its watchdog) ever runs again."""

    def __init__(self, n_ok: int, n: int = 40) -> None:
        super().__init__(n)
        self.n_ok = n_ok

    def __getitem__(self, i):
        if i >= self.n_ok:
            import ctypes

            time.sleep(0.5)  # let the queue's feeder thread send the batches already made
            ctypes.PyDLL(None).sleep(3600)  # PyDLL calls keep the GIL
        return super().__getitem__(i)


class RandomDraws(Dataset):
    """Sample i: draws from Python's, numpy's and ember's global generators, and the worker's id and seed."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"py": random.random(), "np": float(np.random.rand()),
                "ember": int(E.randint(0, 2**30, (1,)).item()),
                "worker": -1 if info is None else info.id, "seed": -1 if info is None else info.seed}


class Range(IterableDataset):
    """The integers [start, stop), sharded across workers when `shard`."""

    def __init__(self, start: int, stop: int, shard: bool = True) -> None:
        self.start, self.stop, self.shard = start, stop, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.start, self.stop))
        return iter(range(self.start + info.id, self.stop, info.num_workers))

    def __len__(self) -> int:
        return self.stop - self.start


class WorkerInfoProbe(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return [info.id, info.num_workers, info.seed, type(info.dataset).__name__]


def record_init(worker_id: int) -> None:
    """worker_init_fn: leaves a mark the dataset can read back."""
    os.environ["EMBER_TEST_INIT"] = f"init-{worker_id}"


class InitProbe(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i):
        return os.environ.get("EMBER_TEST_INIT", "none")


def failing_init(worker_id: int) -> None:
    raise ValueError(f"init failed in {worker_id}")


def scaled_collate(batch):
    """A custom collate_fn that discards default_collate's (shared) result for a new tensor."""
    from ember.data import default_collate

    x, y = default_collate(batch)
    return E.tensor(x.numpy() * 2), y


def large_collate(batch):
    """A custom collate_fn whose result is an ordinary (not shared) tensor of 256 KiB."""
    return E.full((len(batch), 65536), float(batch[0][1]))


def permuted_collate(batch):
    """A custom collate_fn returning an ordinary 384 KiB NHWC batch permuted to NCHW (channels_last strides)."""
    nhwc = E.arange(len(batch) * 64 * 64 * 12, dtype=E.float32).view(len(batch), 64, 64, 12)
    return nhwc.permute(0, 3, 1, 2)


class Rows(Dataset):
    """Row views of one 1000x1000 float32 tensor (4 MB): each sample's storage is the whole matrix."""

    def __init__(self) -> None:
        self.matrix = E.arange(1_000_000, dtype=E.float32).view(1000, 1000)

    def __len__(self) -> int:
        return 3

    def __getitem__(self, i):
        return self.matrix[i, :4]
