"""The training-kernel rows (issue 16's table): five small CPU training steps, ember beside PyTorch.

Each row is one training step (forward, backward, SGD with momentum, `loss.item()`) of a small
model whose time goes to the kernels, not to Python: an MLP, a LeNet-style CNN, a VGG-style
conv+BatchNorm+ReLU stack, a ResNet-18-style net and a MobileNet-style depthwise-separable net.
The two frameworks run interleaved in one process, so the ratio is the measure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ember.bench import frameworks
from ember.bench.progress import Progress
from ember.bench.timing import stat_of, time_calls

__all__ = ["TRAIN_ROWS", "TrainRow", "run_training_rows", "make_train_step"]


def mlp(fw):
    nn = fw.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def lenet(fw):
    nn = fw.nn
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 12 * 12, 128), nn.ReLU(), nn.Linear(128, 10))


def vgg_small(fw):
    nn = fw.nn
    layers: list[Any] = []
    cin = 3
    for v in (32, 32, "M", 64, 64, "M", 128, 128, "M"):
        if v == "M":
            layers.append(nn.MaxPool2d(2))
        else:
            layers += [nn.Conv2d(cin, v, 3, padding=1, bias=False), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            cin = v
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 10))


def _basic_block(fw):
    nn = fw.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.shortcut = None
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            identity = x if self.shortcut is None else self.shortcut(x)
            out = self.relu(self.bn1(self.conv1(x)))
            return self.relu(self.bn2(self.conv2(out)) + identity)

    return BasicBlock


def resnet18_small(fw):
    nn = fw.nn
    block = _basic_block(fw)
    layers: list[Any] = [nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True)]
    cin = 16
    for i, width in enumerate((16, 32, 64, 128)):
        for j in range(2):
            layers.append(block(cin, width, 2 if j == 0 and i > 0 else 1))
            cin = width
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 10))


def mobilenet_small(fw):
    nn = fw.nn
    layers: list[Any] = [nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True)]
    cin = 32
    for cout, stride in ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1)):
        layers += [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
                   nn.ReLU(inplace=True), nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout),
                   nn.ReLU(inplace=True)]
        cin = cout
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 10))


@dataclass(frozen=True)
class TrainRow:
    """One row: the model, its input of one sample, the batch, and the target ratio to PyTorch."""

    name: str
    builder: Any
    sample_shape: tuple[int, ...]
    batch: int
    target: float  # ember's throughput must reach this fraction of PyTorch's
    steps: int  # training steps per timed call, so a call lasts long enough to time


TRAIN_ROWS = {
    "mlp": TrainRow("MLP 784-512-512-10, batch 128", mlp, (784,), 128, 0.95, 10),
    "lenet": TrainRow("LeNet-style CNN, 1×28×28, batch 64", lenet, (1, 28, 28), 64, 0.8, 2),
    "vgg": TrainRow("VGG-style conv3×3+BN+ReLU, 3×32×32, batch 32", vgg_small, (3, 32, 32), 32, 0.8, 1),
    "resnet18": TrainRow("ResNet-18-style, widths 16–128, batch 32", resnet18_small, (3, 32, 32), 32, 0.8, 1),
    "mobilenet": TrainRow("MobileNet-style depthwise-separable, batch 32", mobilenet_small, (3, 32, 32), 32,
                          0.8, 1),
}


def make_train_step(fw, key: str, seed: int = 0):
    """The training step of row `key` in framework `fw`: a callable running `TrainRow.steps` steps."""
    row = TRAIN_ROWS[key]
    fw.lib.manual_seed(seed)
    model = row.builder(fw)
    model.train()
    opt = fw.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(seed)
    x = fw.from_numpy(rng.standard_normal((row.batch, *row.sample_shape), dtype=np.float32))
    y = fw.from_numpy(rng.integers(0, 10, row.batch).astype(np.int64))
    F = fw.functional

    def step():
        for _ in range(row.steps):
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            loss.item()

    return step


def run_training_rows(keys: list[str], compare: bool = True, repeats: int = 5, warmup: int = 1,
                      threads: int | None = None, clock: str = "wall") -> list[dict]:
    """Samples/s of each row (median ± spread), ember and PyTorch interleaved, with the ratio and target.

    `threads` sets both frameworks' intra-op threads (`set_num_threads`); on a machine whose cores
    other work shares, one thread each keeps spinning BLAS pools from measuring the neighbours, and
    `clock="cpu"` times each step in this process's CPU time rather than wall time."""
    fws = [frameworks.load("ember")]
    if compare:
        fws.append(frameworks.load("torch"))
    if threads is not None:
        for fw in fws:
            fw.lib.set_num_threads(threads)
    rows = []
    with Progress(len(keys) * repeats, "training rows") as bar:
        for key in keys:
            spec = TRAIN_ROWS[key]
            steps = {fw.name: make_train_step(fw, key) for fw in fws}
            secs = time_calls(steps, repeats, warmup, tick=lambda spec=spec: bar.update(1, model=spec.name),
                              clock=time.process_time if clock == "cpu" else time.perf_counter)
            row: dict = {"key": key, "model": spec.name, "unit": "samples/s", "target": spec.target}
            for name, samples in secs.items():
                row[name] = stat_of([spec.batch * spec.steps / s for s in samples])
            if "torch" in row:
                row["ratio"] = row["ember"]["median"] / row["torch"]["median"]
            rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    """The rows as a Markdown table (PyTorch, ember, ratio, target)."""
    lines = ["| workload | PyTorch | ember | ember/PyTorch | target |", "|---|---|---|---|---|"]
    for r in rows:
        t = r.get("torch")
        lines.append(f"| {r['model']} | {t['median']:,.0f} ± {t['spread']:,.0f} | " if t else f"| {r['model']} | — | ")
        e = r["ember"]
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "—"
        lines[-1] += f"{e['median']:,.0f} ± {e['spread']:,.0f} | {ratio} | ≥ {r['target']:.2f} |"
    return "\n".join(lines) + "\n"
