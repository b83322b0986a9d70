"""The main job's first part: a small CNN trained on scikit-learn's handwritten digits.

Data flows through `ember.data.DataLoader` with worker processes (batches arrive through shared
memory), the model is `ember.nn`, the optimizer `ember.optim.Adam`.
"""

from __future__ import annotations

import time

import numpy as np

from ember.bench.progress import Progress

__all__ = ["train_digits"]


def _digits_split(seed: int):
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)[:, None]  # (N, 1, 8, 8) in [0, 1]
    y = d.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    n_test = len(y) // 5
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


def make_cnn(nn):
    """Two 3×3 conv blocks and an MLP head for 8×8 grey images, 10 classes."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 10),
    )


def train_digits(epochs: int = 8, batch_size: int = 32, num_workers: int = 2, seed: int = 0,
                 quiet: bool = False) -> dict:
    """Train and evaluate; returns test accuracy, final loss, seconds and samples/s."""
    import ember.autograd as ea
    import ember.nn as nn
    import ember.nn.functional as F
    import ember.optim as optim
    from ember.data import DataLoader, TensorDataset

    ea.manual_seed(seed)
    xtr, ytr, xte, yte = _digits_split(seed)
    train = TensorDataset(ea.from_numpy(xtr), ea.from_numpy(ytr))
    loader = DataLoader(train, batch_size=batch_size, shuffle=True, num_workers=num_workers,
                        persistent_workers=num_workers > 0, generator=ea.Generator().manual_seed(seed))
    model = make_cnn(nn)
    opt = optim.Adam(model.parameters(), lr=2e-3)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    t0 = time.perf_counter()
    seen = 0
    loss_value = float("nan")
    with Progress(epochs * len(loader), "digits (ember)", stream=None if not quiet else _Null()) as bar:
        for _ in range(epochs):
            model.train()
            correct = total = 0
            for xb, yb in loader:
                out = model(xb)
                loss = F.cross_entropy(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                loss_value = loss.item()
                correct += int((out.argmax(1) == yb).sum())
                total += len(yb)
                seen += len(yb)
                bar.update(1, loss=loss_value, acc=correct / total)
            sched.step()
    seconds = time.perf_counter() - t0
    model.eval()
    with ea.no_grad():
        pred = model(ea.from_numpy(xte)).argmax(1).numpy()
    accuracy = float((pred == yte).mean())
    return {"test_accuracy": accuracy, "final_loss": loss_value, "seconds": seconds,
            "samples_per_s": seen / seconds, "epochs": epochs, "num_workers": num_workers,
            "train_size": len(ytr), "test_size": len(yte)}


class _Null:
    def write(self, s: str) -> int:
        return len(s)

    def flush(self) -> None:
        return None
