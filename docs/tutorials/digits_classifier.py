"""Train a classifier on scikit-learn's bundled handwritten digits (8x8 images, 10 classes).

A small CNN (or, with `--mlp`, a two-layer perceptron) trained with Adam and a cosine learning-
rate schedule; the script prints the test accuracy (about 97-98% after the full run). Only the
imports differ from the PyTorch version of this script.

Run: `python docs/tutorials/digits_classifier.py [--mlp]` (EMBER_TUTORIAL_QUICK=1: one epoch on 256 images).
"""

import os
import sys

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import ember.autograd as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.optim.lr_scheduler import CosineAnnealingLR


def make_model(mlp: bool) -> nn.Module:
    if mlp:
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 10))
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )


def load(seed: int = 0):
    x, y = load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.25, random_state=seed, stratify=y)
    return torch.from_numpy(xtr), torch.from_numpy(ytr), torch.from_numpy(xte), torch.from_numpy(yte)


def accuracy(model: nn.Module, x, y) -> float:
    model.eval()
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def train(mlp: bool = False, epochs: int = 4, batch_size: int = 64, lr: float = 1e-2, seed: int = 0,
          max_train: int | None = None) -> float:
    """Train (on the first `max_train` training images, if given) and return the test accuracy."""
    torch.manual_seed(seed)
    xtr, ytr, xte, yte = load(seed)
    xtr, ytr = xtr[:max_train], ytr[:max_train]
    model = make_model(mlp)
    opt = optim.Adam(model.parameters(), lr=lr)
    steps_per_epoch = len(xtr) // batch_size  # the last, partial batch is dropped (BatchNorm wants full ones)
    sched = CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(xtr))
        for i in range(0, steps_per_epoch * batch_size, batch_size):
            idx = perm[i:i + batch_size]
            opt.zero_grad()
            loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            sched.step()
        print(f"epoch {epoch}: last batch loss {loss.item():.4f}, test accuracy {accuracy(model, xte, yte):.4f}")
    return accuracy(model, xte, yte)


if __name__ == "__main__":
    quick = os.environ.get("EMBER_TUTORIAL_QUICK") == "1"
    mlp = "--mlp" in sys.argv
    acc = train(mlp=mlp, epochs=1 if quick else (12 if mlp else 4), max_train=256 if quick else None)
    print(f"final test accuracy: {acc:.4f}")
