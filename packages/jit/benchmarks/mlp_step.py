"""The MLP training step (784-512-512-10, batch 128, SGD with momentum; and Adam), eager against compiled.

Run from the repository root: `python packages/jit/benchmarks/mlp_step.py` (it needs ember.nn, a
layer above ember.jit, so it lives beside the package instead of in it).
"""

from __future__ import annotations

import argparse

import numpy as np

import ember.autograd as ea
import ember.nn as nn
import ember.jit as jit
import ember.optim as optim
from ember.jit.bench import compare, table


def make_step(opt_name: str, sizes=(784, 512, 512, 10)):
    def make():
        ea.manual_seed(0)
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        model = nn.Sequential(*layers[:-1])
        opt = (optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if opt_name == "sgd"
               else optim.Adam(model.parameters(), lr=1e-3))
        loss_fn = nn.CrossEntropyLoss()

        def step(x, y):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            return loss
        return step
    return make


def make_outside_step(compiled: bool, sizes=(32, 64, 64, 10)):
    """A training step whose model alone is compiled (`jit.compile(model)`, replayed through
    autograd), with the loss, its backward and SGD outside the compiled part."""
    def make():
        ea.manual_seed(0)
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        model = nn.Sequential(*layers[:-1])
        fwd = jit.compile(model) if compiled else model
        opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()

        def step(x, y):
            opt.zero_grad()
            loss = loss_fn(fwd(x), y)
            loss.backward()
            opt.step()
            return loss.detach()
        return step
    return make


def make_args(batch: int, features: int = 784, classes: int = 10):
    def make():
        rng = np.random.default_rng(0)
        return (ea.tensor(rng.standard_normal((batch, features)).astype(np.float32)),
                ea.tensor(rng.integers(0, classes, batch)))
    return make


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--number", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    rows = [compare("MLP 784-512-512-10 b128, SGD momentum", make_step("sgd"), make_args(128), a.number, a.repeat),
            compare("MLP 784-512-512-10 b128, Adam", make_step("adam"), make_args(128), a.number, a.repeat),
            compare("MLP 32-64-64-10 b16, SGD momentum (dispatch-bound)", make_step("sgd", (32, 64, 64, 10)),
                    make_args(16, 32), a.number * 50, a.repeat),
            compare("MLP 32-64-64-10 b16, compiled forward only (jit.compile(model)), backward outside",
                    make_outside_step(False), make_args(16, 32), a.number * 50, a.repeat,
                    make_compiled=make_outside_step(True))]
    print(table(rows))


if __name__ == "__main__":
    main()
