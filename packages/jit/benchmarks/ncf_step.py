"""The NCF-like training step (two embeddings, concat, MLP, BCE with logits, Adam), eager against compiled.

Run from the repository root: `python packages/jit/benchmarks/ncf_step.py` (it needs ember.nn, a
layer above ember.jit, so it lives beside the package instead of in it). The embeddings' index
checks are meta steps, replayed with the plan, so the step captures whole.
"""

from __future__ import annotations

import argparse

import numpy as np

import ember.autograd as ea
import ember.nn as nn
import ember.optim as optim
from ember.jit.bench import compare, table


def make_step(users: int, items: int, dim: int, hidden: int):
    def make():
        ea.manual_seed(0)
        user_emb, item_emb = nn.Embedding(users, dim), nn.Embedding(items, dim)
        mlp = nn.Sequential(nn.Linear(2 * dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden // 2), nn.ReLU(),
                            nn.Linear(hidden // 2, 1))
        params = [*user_emb.parameters(), *item_emb.parameters(), *mlp.parameters()]
        opt = optim.Adam(params, lr=1e-3)
        loss_fn = nn.BCEWithLogitsLoss()

        def step(u, i, y):
            opt.zero_grad()
            loss = loss_fn(mlp(ea.cat([user_emb(u), item_emb(i)], dim=1)).squeeze(1), y)
            loss.backward()
            opt.step()
            return loss
        return step
    return make


def make_args(batch: int, users: int, items: int):
    def make():
        rng = np.random.default_rng(0)
        return (ea.tensor(rng.integers(0, users, batch)), ea.tensor(rng.integers(0, items, batch)),
                ea.tensor(rng.integers(0, 2, batch).astype(np.float32)))
    return make


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--number", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    rows = [compare("NCF 1000x1000 users/items, d32, MLP 64-64-32-1, b1024, Adam", make_step(1000, 1000, 32, 64),
                    make_args(1024, 1000, 1000), a.number, a.repeat),
            compare("NCF 100x100, d8, MLP 16-16-8-1, b64, Adam (dispatch-bound)", make_step(100, 100, 8, 16),
                    make_args(64, 100, 100), a.number * 10, a.repeat)]
    print(table(rows))


if __name__ == "__main__":
    main()
