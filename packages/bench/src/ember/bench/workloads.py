"""Training steps for Table 1: forward + backward + optimizer step in fp32 on one batch.

The batch is made once from a seeded numpy generator, so both frameworks see the same data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ember.bench.models import MODELS, build, size_of

__all__ = ["Workload", "make_workload"]


@dataclass
class Workload:
    """A ready training step and how many items (images, tokens, samples) one step processes."""

    step: Any
    items_per_step: int
    model: Any
    num_parameters: int


def _batch(key: str, s, rng: np.random.Generator):
    family = MODELS[key].family
    if family == "image":
        classes = 10 if s.image < 64 else 1000
        x = rng.standard_normal((s.batch, 3, s.image, s.image), dtype=np.float32)
        y = rng.integers(0, classes, s.batch).astype(np.int64)
        return (x,), y, s.batch
    if family in ("gnmt", "seq2seq"):
        src = rng.integers(0, s.vocab, (s.batch, s.seq)).astype(np.int64)
        tgt = rng.integers(0, s.vocab, (s.batch, s.seq + 1)).astype(np.int64)
        return (src, tgt[:, :-1].copy()), tgt[:, 1:].copy(), s.batch * s.seq
    users = rng.integers(0, s.users, s.batch).astype(np.int64)
    items = rng.integers(0, s.items or s.users, s.batch).astype(np.int64)
    labels = (rng.random(s.batch) < 0.5).astype(np.float32)
    return (users, items), labels, s.batch


def make_workload(fw, key: str, size: str = "small", device: str = "cpu", seed: int = 0) -> Workload:
    """Build model `key` in framework `fw` with its optimizer (SGD with momentum, or Adam) and
    return its training step."""
    fw.lib.manual_seed(seed)
    s = size_of(key, size)
    model = build(key, fw, size).to(device)
    model.train()
    if MODELS[key].optimizer == "adam":
        opt = fw.optim.Adam(model.parameters(), lr=1e-3)
    else:
        opt = fw.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    inputs, target, items = _batch(key, s, np.random.default_rng(seed))
    xs = [fw.from_numpy(a, device) for a in inputs]
    y = fw.from_numpy(target, device)
    family = MODELS[key].family
    F = fw.functional

    def loss_of(out):
        if family == "image":
            return F.cross_entropy(out, y)
        if family in ("gnmt", "seq2seq"):
            return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        return F.binary_cross_entropy_with_logits(out, y)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_of(model(*xs))
        loss.backward()
        opt.step()
        return loss

    nparams = sum(p.numel() for p in model.parameters())
    return Workload(step, items, model, nparams)
