"""Benchmark (not a test): DataLoader throughput on synthetic 3x32x32 images, next to PyTorch's.

`python -m ember.data.bench` prints, for `num_workers` 0 and 2, batches per second over a
dataset with a light per-item transform (uint8 -> normalised float32, a flip on odd items), and
the main-process time of `next()` when the batch is already waiting: the cost of receiving it,
which for workers over shared memory is mapping a segment, not copying the batch.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np

from ember.data.dataloader import DataLoader
from ember.data.dataset import Dataset

__all__ = ["SyntheticImages", "run", "main"]


class SyntheticImages(Dataset):
    """`n` random uint8 images of `shape` with labels; items are normalised float32 arrays."""

    def __init__(self, n: int, shape: tuple[int, ...] = (3, 32, 32), seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.images = rng.integers(0, 256, (n, *shape), dtype=np.uint8)
        self.labels = rng.integers(0, 10, n)

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int):
        img = (self.images[i].astype(np.float32) / 255.0 - 0.5) / 0.25
        if i % 2:
            img = np.ascontiguousarray(img[..., ::-1])
        return img, int(self.labels[i])


def _throughput(make_loader, epochs: int) -> float:
    loader = make_loader()
    batches = 0
    start = time.perf_counter()
    for _ in range(epochs):
        for _batch in loader:
            batches += 1
    return batches / (time.perf_counter() - start)


def _receive_ms(make_loader, batches: int, pause_s: float) -> float:
    """Median main-process time of `next()` once workers have had time to prepare the batch."""
    it = iter(make_loader())
    next(it)
    times = []
    for _ in range(batches):
        time.sleep(pause_s)
        start = time.perf_counter()
        batch = next(it)
        times.append(time.perf_counter() - start)
        del batch
    del it
    return 1e3 * statistics.median(times)


def _measure(make: Any, dataset: Dataset, batch_size: int, workers: int, epochs: int) -> dict[str, float | None]:
    def make_loader():
        kwargs = {"persistent_workers": True} if workers else {}
        return make(dataset, batch_size=batch_size, num_workers=workers, **kwargs)

    next(iter(make_loader()))  # untimed: each library's one-time costs (imports, kernel loads) before the clock
    result: dict[str, float | None] = {"batches_per_s": _throughput(make_loader, epochs), "receive_ms": None}
    if workers:
        result["receive_ms"] = _receive_ms(make_loader, batches=min(10, len(dataset) // batch_size - 1), pause_s=0.05)
    return result


def run(batch_size: int = 64, num_workers: tuple[int, ...] = (0, 2), num_batches: int = 50, epochs: int = 2,
        image_shape: tuple[int, ...] = (3, 32, 32), compare_torch: bool = True) -> dict[str, Any]:
    """Measure ember's DataLoader (and PyTorch's, when importable) on `SyntheticImages`.

    Returns:
        `{"config": {...}, "ember": {workers: {"batches_per_s", "receive_ms"}}, "torch": {...} or None}`;
        `receive_ms` is the median main-process `next()` time with the batch ready (None without workers).
    """
    dataset = SyntheticImages(batch_size * num_batches, image_shape)
    out: dict[str, Any] = {"config": {"batch_size": batch_size, "num_batches": num_batches, "epochs": epochs,
                                      "image_shape": list(image_shape)},
                           "ember": {}, "torch": None}
    for w in num_workers:
        out["ember"][w] = _measure(DataLoader, dataset, batch_size, w, epochs)
    if compare_torch:
        try:
            import torch.utils.data as tud
        except ImportError:
            return out
        out["torch"] = {w: _measure(tud.DataLoader, dataset, batch_size, w, epochs) for w in num_workers}
    return out


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def main(argv: list[str] | None = None) -> None:
    """Print `run()`'s numbers as a table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--num-batches", type=int, default=50)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--workers", type=int, nargs="+", default=[0, 2])
    p.add_argument("--no-torch", action="store_true")
    args = p.parse_args(argv)
    res = run(args.batch_size, tuple(args.workers), args.num_batches, args.epochs, compare_torch=not args.no_torch)
    print(f"DataLoader, {res['config']['num_batches']} batches of {args.batch_size} x 3x32x32 float32, "
          f"{args.epochs} epochs")
    print(f"{'loader':<8}{'workers':>8}{'batches/s':>12}{'receive ms/batch':>18}")
    for name in ("ember", "torch"):
        for w, r in (res[name] or {}).items():
            print(f"{name:<8}{w:>8}{_fmt(r['batches_per_s'], '.1f'):>12}{_fmt(r['receive_ms'], '.3f'):>18}")
    if res["torch"] is None and not args.no_torch:
        print("(PyTorch is not installed: no comparison)")


if __name__ == "__main__":
    main()
