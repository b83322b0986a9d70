"""Ported programs: short, realistic PyTorch programs that must run on ember with only their
imports changed.

Each program is PyTorch source. It runs once with PyTorch (when installed) and once under
`conftest.ember_import`, which maps `import torch...` to ember's packages (the import rule of
docs/pytorch_compat.md); nothing else in the source changes. Two names are given to a program:

- `record`, a dict the program fills with what it measured (losses, learning rates ...);
- `share_init(module)`, called right after a model is built: the PyTorch run saves the model's
  initial weights, the ember run loads the same weights (via numpy), so that deterministic programs
  must give the same numbers on both.

Without PyTorch the ember run is still checked: the program runs and its model trains.
"""

from __future__ import annotations

import builtins
import dataclasses
import math
import textwrap
from collections.abc import Callable

import numpy as np
import pytest

try:  # tests/ is a rootdir module or, with consider_namespace_packages, the package `tests`
    from tests.conftest import ember_import
except ImportError:
    from conftest import ember_import


@dataclasses.dataclass
class Program:
    source: str
    compare: dict[str, float]                  # record key -> rtol against PyTorch's value
    trains: Callable[[dict], None]             # asserts on ember's record (runs without torch)
    atol: float = 1e-6


def _decreasing(key, factor=1.0):
    def check(r):
        v = r[key]
        assert all(math.isfinite(x) for x in v), f"{key}: non-finite values {v}"
        assert v[-1] < factor * v[0], f"{key} did not decrease: {v}"
    return check


def _all(*checks):
    def check(r):
        for c in checks:
            c(r)
    return check


PROGRAMS: dict[str, Program] = {}

# ---------------------------------------------------------------------------------------------
PROGRAMS["mlp_classifier"] = Program(
    source='''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
rng = np.random.default_rng(0)
centers = rng.normal(size=(3, 8)) * 2
labels = rng.integers(0, 3, size=240)
features = centers[labels] + rng.normal(size=(240, 8))
X = torch.from_numpy(features.astype(np.float32))
y = torch.from_numpy(labels).long()
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=False)


class MLP(nn.Module):
    def __init__(self, d_in, hidden, n_classes):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.out(x)


model = MLP(8, 32, 3)
share_init(model)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)

record["losses"], record["lrs"] = [], []
for epoch in range(5):
    model.train()
    running, seen = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        running += loss.item() * xb.size(0)
        seen += xb.shape[0]
    scheduler.step()
    record["losses"].append(running / len(loader.dataset))
    record["lrs"].append(scheduler.get_last_lr()[0])

model.eval()
with torch.no_grad():
    pred = model(X).argmax(dim=1)
    record["accuracy"] = (pred == y).float().mean().item()
    _, top = torch.max(model(X), 1)
    record["agree"] = float(torch.equal(top, pred))
''',
    compare={"losses": 1e-4, "lrs": 1e-12, "accuracy": 1e-6, "agree": 0},
    trains=_all(_decreasing("losses", 0.7), lambda r: r["accuracy"] > 0.9 or pytest.fail(f"accuracy {r['accuracy']}"),
                lambda r: r["lrs"] == pytest.approx([0.05, 0.025, 0.025, 0.0125, 0.0125]),
                lambda r: r["agree"] == 1.0),
)

# ---------------------------------------------------------------------------------------------
PROGRAMS["cnn_batchnorm_dropout"] = Program(
    source='''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rng = np.random.default_rng(1)
images = rng.normal(size=(64, 1, 12, 12)).astype(np.float32)
labels = (images[:, 0, :6].mean(axis=(1, 2)) > images[:, 0, 6:].mean(axis=(1, 2))).astype(np.int64)
images[:, 0, :6] += 0.5 * labels[:, None, None]
dataset = TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
loader = DataLoader(dataset, batch_size=16, shuffle=True, drop_last=True, num_workers=2)


class ConvNet(nn.Module):
    def __init__(self, num_classes=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.dropout = nn.Dropout(p=0.25)
        self.fc = nn.Linear(16 * 3 * 3, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = x.view(x.size(0), -1)
        return self.fc(self.dropout(x))


model = ConvNet()
share_init(model)

# deterministic part: eval mode uses the running statistics and no dropout
model.eval()
with torch.no_grad():
    record["eval_logits"] = model(torch.from_numpy(images[:8])).numpy().copy()
model.train()
record["train_logits_shape"] = list(model(torch.from_numpy(images[:4])).shape)

optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
record["epoch_losses"] = []
for epoch in range(4):
    total = 0.0
    for batch, (xb, yb) in enumerate(loader):
        optimizer.zero_grad(set_to_none=True)
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
    record["epoch_losses"].append(total / len(loader))
record["n_batches"] = len(loader)
record["running_var_positive"] = bool((model.features[1].running_var > 0).all())
model.eval()
with torch.no_grad():
    correct = (model(torch.from_numpy(images)).argmax(1) == torch.from_numpy(labels)).sum().item()
record["accuracy"] = correct / len(dataset)
''',
    compare={"eval_logits": 1e-4, "train_logits_shape": 0, "n_batches": 0, "running_var_positive": 0},
    trains=_all(_decreasing("epoch_losses"), lambda r: r["accuracy"] > 0.7 or pytest.fail(f"accuracy {r['accuracy']}"),
                lambda r: r["n_batches"] == 4),
    atol=1e-5,
)

# ---------------------------------------------------------------------------------------------
PROGRAMS["lstm_language_model"] = Program(
    source='''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(2)
VOCAB, SEQ, BATCH = 12, 9, 8
starts = rng.integers(0, VOCAB, size=(BATCH, 1))
sequences = (starts + 3 * np.arange(SEQ)[None, :]) % VOCAB
tokens = torch.tensor(sequences)
inputs, targets = tokens[:, :-1], tokens[:, 1:]


class LanguageModel(nn.Module):
    def __init__(self, vocab, emb_dim=16, hidden=24, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb_dim)
        self.lstm = nn.LSTM(emb_dim, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


model = LanguageModel(VOCAB)
share_init(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
record["losses"] = []
for step in range(15):
    optimizer.zero_grad()
    logits, (h, c) = model(inputs)
    loss = F.cross_entropy(logits.transpose(1, 2), targets)     # (N, C, L) targets (N, L)
    loss.backward()
    optimizer.step()
    record["losses"].append(loss.item())
record["state_shapes"] = [list(h.shape), list(c.shape), list(logits.shape)]

# greedy generation, carrying the hidden state
model.eval()
with torch.no_grad():
    tok = tokens[:2, :1]
    state = None
    generated = []
    for _ in range(5):
        logits, state = model(tok, state)
        tok = logits[:, -1].argmax(dim=-1, keepdim=True)
        generated.append(tok.squeeze(1).tolist())
record["generated"] = np.array(generated, dtype=np.float64)
''',
    compare={"losses": 2e-4, "state_shapes": 0},
    trains=_all(_decreasing("losses", 0.7), lambda r: r["state_shapes"] == [[2, 8, 24], [2, 8, 24], [8, 8, 12]]),
    atol=1e-5,
)

# ---------------------------------------------------------------------------------------------
PROGRAMS["custom_autograd_function"] = Program(
    source='''
import math
import torch


class LegendrePolynomial3(torch.autograd.Function):
    """The PyTorch tutorial's custom Function: P3(x) = (5x^3 - 3x) / 2."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, slope):
        ctx.save_for_backward(input)
        ctx.slope = slope
        return input.clamp(min=0) + slope * input.clamp(max=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.clone()
            grad_input[input < 0] *= ctx.slope
        return grad_input, None


dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 500, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 2e-5
record["losses"] = []
for t in range(300):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 30 == 0:
        record["losses"].append(loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
record["coefficients"] = [a.item(), b.item(), c.item(), d.item()]

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
inp = torch.tensor([[1.0, -2.0], [-0.5, 3.0]])
out = MyReLU.apply(inp @ w, 0.1)
out.sum().backward()
record["relu_out"] = out.detach().numpy().copy()
record["relu_grad"] = w.grad.numpy().copy()
''',
    compare={"losses": 1e-4, "coefficients": 1e-4, "relu_out": 1e-6, "relu_grad": 1e-6},
    trains=_decreasing("losses", 0.5),
)

# ---------------------------------------------------------------------------------------------
PROGRAMS["gan_listing_2_and_gradient_penalty"] = Program(
    source='''
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
rng = np.random.default_rng(3)
BATCH, NOISE = 16, 4


def create_generator():
    return nn.Sequential(nn.Linear(NOISE, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))


def create_discriminator():
    return nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())


def get_noise():
    return torch.from_numpy(rng.normal(size=(BATCH, NOISE)).astype(np.float32))


loss = nn.BCELoss()
real_label = torch.ones(BATCH, 1)
fake_label = torch.zeros(BATCH, 1)

# the paper's Listing 2, as written
discriminator = create_discriminator()
generator = create_generator()
share_init(discriminator)
share_init(generator)
optimD = optim.Adam(discriminator.parameters())
optimG = optim.Adam(generator.parameters())


def step(real_sample):
    # (1) Update Discriminator
    errD_real = loss(discriminator(real_sample), real_label)
    errD_real.backward()
    fake = generator(get_noise())
    errD_fake = loss(discriminator(fake.detach()), fake_label)
    errD_fake.backward()
    optimD.step()
    # (2) Update Generator
    errG = loss(discriminator(fake), real_label)
    errG.backward()
    optimG.step()
    return errD_real.item(), errD_fake.item(), errG.item()


before = [p.detach().clone() for p in generator.parameters()]
errors = []
for i in range(10):
    real = torch.from_numpy((rng.normal(size=(BATCH, 2)) * 0.5 + [2.0, -1.0]).astype(np.float32))
    errors.append(step(real))
record["errors"] = np.array(errors)

# the usual form of the same step, with zero_grad
for i in range(10):
    real = torch.from_numpy((rng.normal(size=(BATCH, 2)) * 0.5 + [2.0, -1.0]).astype(np.float32))
    optimD.zero_grad()
    fake = generator(get_noise())
    errD = loss(discriminator(real), real_label) + loss(discriminator(fake.detach()), fake_label)
    errD.backward()
    optimD.step()
    optimG.zero_grad()
    errG = loss(discriminator(fake), real_label)
    errG.backward()
    optimG.step()
    errors.append((errD.item(), errG.item(), 0.0))
record["errors2"] = np.array(errors[10:])
record["generator_moved"] = float(sum((p.detach() - q).abs().sum().item()
                                      for p, q in zip(generator.parameters(), before)))

# a WGAN-GP critic step: the gradient penalty differentiates through autograd.grad
from torch import autograd

rng = np.random.default_rng(8)

critic = nn.Sequential(nn.Linear(3, 32), nn.Tanh(), nn.Linear(32, 1))
share_init(critic)
optimizer = torch.optim.Adam(critic.parameters(), lr=5e-3, betas=(0.5, 0.9))


def gradient_penalty(critic, real, fake):
    alpha = torch.from_numpy(rng.uniform(size=(real.size(0), 1)).astype(np.float32))
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interpolates = critic(interpolates)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones_like(d_interpolates),
                              create_graph=True, retain_graph=True)[0]
    return ((gradients.pow(2).sum(dim=1).sqrt() - 1) ** 2).mean()


record["critic_losses"], record["penalties"] = [], []
for step in range(12):
    real = torch.from_numpy((rng.normal(size=(32, 3)) + 2).astype(np.float32))
    fake = torch.from_numpy(rng.normal(size=(32, 3)).astype(np.float32))
    optimizer.zero_grad()
    gp = gradient_penalty(critic, real, fake)
    loss = critic(fake).mean() - critic(real).mean() + 10 * gp
    loss.backward()
    optimizer.step()
    record["critic_losses"].append(loss.item())
    record["penalties"].append(gp.item())

# gradient accumulation over micro-batches equals one big batch
model = nn.Linear(3, 1)
share_init(model)
X = torch.from_numpy(rng.normal(size=(16, 3)).astype(np.float32))
Y = X.sum(dim=1, keepdim=True)
criterion = nn.MSELoss()
model.zero_grad()
for xb, yb in zip(X.chunk(4), Y.chunk(4)):
    (criterion(model(xb), yb) / 4).backward()
accumulated = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
criterion(model(X), Y).backward()
record["accumulation_error"] = max((a - p.grad).abs().max().item() for a, p in zip(accumulated, model.parameters()))
record["grads"] = np.concatenate([p.grad.numpy().ravel() for p in model.parameters()])
''',
    compare={"errors": 1e-4, "errors2": 1e-4, "generator_moved": 1e-3, "critic_losses": 1e-4, "penalties": 1e-4,
             "grads": 1e-5},
    trains=_all(lambda r: (np.isfinite(r["errors"]).all() and np.isfinite(r["errors2"]).all()
                           and r["generator_moved"] > 0) or pytest.fail(f"GAN did not train: {r}"),
                _decreasing("critic_losses"),
                lambda r: r["accumulation_error"] < 1e-5
                or pytest.fail(f"accumulation error {r['accumulation_error']}")),
    atol=1e-5,
)

# ---------------------------------------------------------------------------------------------
PROGRAMS["checkpoint_resume"] = Program(
    source='''
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(4)
X = torch.from_numpy(rng.normal(size=(64, 6)).astype(np.float32))
Y = X[:, :1] * 2.0 - X[:, 1:2] + 0.5


def make_model():
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))


def train_steps(model, optimizer, n):
    model.train()
    losses = []
    for _ in range(n):
        optimizer.zero_grad()
        loss = F.mse_loss(model(X), Y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


model = make_model()
share_init(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
record["first"] = train_steps(model, optimizer, 5)

path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({
    "epoch": 5,
    "model_state_dict": model.state_dict(),
    "optimizer_state_dict": optimizer.state_dict(),
    "loss": record["first"][-1],
}, path)
record["continued"] = train_steps(model, optimizer, 5)

model2 = make_model()
optimizer2 = torch.optim.Adam(model2.parameters(), lr=0.5)
checkpoint = torch.load(path)
model2.load_state_dict(checkpoint["model_state_dict"])
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
record["epoch"] = checkpoint["epoch"]
record["saved_loss"] = checkpoint["loss"]
record["resumed"] = train_steps(model2, optimizer2, 5)
record["lr_after_load"] = optimizer2.param_groups[0]["lr"]
os.remove(path)
''',
    compare={"first": 1e-5, "continued": 1e-5, "resumed": 1e-5, "epoch": 0, "saved_loss": 1e-5, "lr_after_load": 0},
    trains=_all(_decreasing("first"),
                lambda r: np.testing.assert_allclose(r["resumed"], r["continued"], rtol=1e-6),
                lambda r: r["epoch"] == 5 and r["lr_after_load"] == 0.01 or pytest.fail(str(r))),
)

# ---------------------------------------------------------------------------------------------
PROGRAMS["weight_init"] = Program(
    source='''
import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(32, 64, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(64 * 4 * 4, 128)
        self.out = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        x = self.pool(x)
        return self.out(torch.tanh(self.fc(x.flatten(1))))


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.constant_(m.bias, 0.01)


model = Net()
model.apply(init_weights)
nn.init.kaiming_uniform_(model.out.weight, a=math.sqrt(5))
record["conv_std"] = model.conv.weight.std().item()
record["fc_absmax"] = model.fc.weight.abs().max().item()
record["out_absmax"] = model.out.weight.abs().max().item()
record["fc_bias"] = model.fc.bias.mean().item()
record["conv_bias_zero"] = float((model.conv.bias == 0).all())
record["requires_grad"] = float(all(p.requires_grad and p.is_leaf for p in model.parameters()))

rng = np.random.default_rng(5)
x = torch.from_numpy(rng.normal(size=(8, 32, 8, 8)).astype(np.float32))
target = torch.from_numpy(rng.integers(0, 10, size=8))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True, weight_decay=1e-4)
record["losses"] = []
for step in range(6):
    optimizer.zero_grad()
    loss = nn.CrossEntropyLoss()(model(x), target)
    loss.backward()
    optimizer.step()
    record["losses"].append(loss.item())
''',
    # the weights are random draws: only their statistics are comparable with PyTorch's
    compare={"conv_std": 0.03, "fc_absmax": 0.01, "out_absmax": 0.01, "fc_bias": 1e-6, "conv_bias_zero": 0,
             "requires_grad": 0},
    trains=_all(_decreasing("losses"),
                lambda r: np.testing.assert_allclose(r["conv_std"], math.sqrt(2 / (64 * 9)), rtol=0.03),
                lambda r: np.testing.assert_allclose(r["fc_absmax"], 5 / 3 * math.sqrt(6 / (1024 + 128)), rtol=0.01),
                lambda r: np.testing.assert_allclose(r["out_absmax"], 1 / math.sqrt(128), rtol=0.02),
                lambda r: r["conv_bias_zero"] == 1.0 and r["requires_grad"] == 1.0 or pytest.fail(str(r))),
)

# ---------------------------------------------------------------------------------------------
PROGRAMS["grad_clipping_adamw_cosine"] = Program(
    source='''
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import CosineAnnealingLR

torch.manual_seed(0)
rng = np.random.default_rng(6)
X = torch.from_numpy(rng.normal(size=(128, 10)).astype(np.float32))
w_true = torch.from_numpy(rng.normal(size=(10,)).astype(np.float32))
Y = torch.sin(X @ w_true) + 0.1 * X[:, 0]

# no bias before BatchNorm: its gradient is pure rounding noise, which Adam would amplify
model = nn.Sequential(nn.Linear(10, 32, bias=False), nn.BatchNorm1d(32), nn.Tanh(), nn.Linear(32, 1))
share_init(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.01)
scheduler = CosineAnnealingLR(optimizer, T_max=12, eta_min=0.001)
record["losses"], record["norms"], record["lrs"] = [], [], []
for step in range(12):
    optimizer.zero_grad()
    pred = model(X).squeeze(1)
    loss = F.mse_loss(pred, Y)
    loss.backward()
    total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    record["norms"].append(float(total_norm))
    clipped = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
    assert clipped.item() <= 0.5 * (1 + 1e-4) + 1e-6, clipped.item()
    optimizer.step()
    scheduler.step()
    record["losses"].append(loss.item())
    record["lrs"].append(scheduler.get_last_lr()[0])
model.eval()
with torch.no_grad():
    record["eval_loss"] = F.l1_loss(model(X).squeeze(1), Y).item()
''',
    compare={"losses": 1e-4, "norms": 1e-4, "lrs": 1e-9, "eval_loss": 1e-4},
    trains=_all(_decreasing("losses", 0.8),
                lambda r: r["lrs"][-1] == pytest.approx(0.001) or pytest.fail(str(r["lrs"]))),
)

# ---------------------------------------------------------------------------------------------
PROGRAMS["paper_listing_1_and_text_classifier"] = Program(
    source='''
from collections import OrderedDict
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)


# the paper's Listing 1
class LinearLayer(nn.Module):
    def __init__(self, in_sz, out_sz):
        super().__init__()
        t1 = torch.randn(in_sz, out_sz)
        self.w = nn.Parameter(t1)
        t2 = torch.randn(out_sz)
        self.b = nn.Parameter(t2)

    def forward(self, activations):
        t = torch.mm(activations, self.w)
        return t + self.b


class FullBasicModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 16, 3)
        self.fc = LinearLayer(16, 4)

    def forward(self, x):
        t1 = self.conv(x)
        t2 = nn.functional.relu(t1)
        t3 = self.fc(t2.mean((2, 3)))
        return nn.functional.log_softmax(t3, dim=1)


rng = np.random.default_rng(7)
images = torch.from_numpy(rng.normal(size=(16, 1, 8, 8)).astype(np.float32))
image_labels = torch.from_numpy(rng.integers(0, 4, size=16))
model = FullBasicModel()
share_init(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
record["listing1_losses"] = []
for _ in range(8):
    opt.zero_grad()
    loss = F.nll_loss(model(images), image_labels)
    loss.backward()
    opt.step()
    record["listing1_losses"].append(loss.item())


# a bag-of-embeddings text classifier over a custom Dataset, with a dict collate
class Reviews(Dataset):
    def __init__(self, n=48, length=6, vocab=30):
        self.tokens = rng.integers(1, vocab, size=(n, length))
        self.labels = (self.tokens < vocab // 2).sum(1) > length // 2

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        return {"tokens": torch.tensor(self.tokens[i]), "label": int(self.labels[i])}


pretrained = torch.from_numpy(rng.normal(size=(30, 8)).astype(np.float32))
pretrained[0] = 0


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(pretrained, freeze=False, padding_idx=0)
        self.layers = nn.Sequential(OrderedDict([
            ("hidden", nn.Linear(8, 16)),
            ("act", nn.LeakyReLU()),
            ("out", nn.Linear(16, 2)),
        ]))
        self.log_softmax = nn.LogSoftmax(dim=-1)
        self.activations = []
        self.layers.hidden.register_forward_hook(lambda mod, inp, out: self.activations.append(out.shape))

    def forward(self, tokens):
        return self.log_softmax(self.layers(self.embedding(tokens).mean(dim=1)))


clf = BagClassifier()
share_init(clf)
criterion = nn.NLLLoss()
opt2 = torch.optim.SGD(clf.parameters(), lr=0.2, momentum=0.9, nesterov=True, weight_decay=1e-4)
loader = DataLoader(Reviews(), batch_size=12)
record["text_losses"] = []
for epoch in range(6):
    total = 0.0
    for batch in loader:
        opt2.zero_grad()
        loss = criterion(clf(batch["tokens"]), batch["label"])
        loss.backward()
        opt2.step()
        total += loss.item()
    record["text_losses"].append(total / len(loader))
record["hooked"] = len(clf.activations)
record["embedding_trainable"] = float(clf.embedding.weight.requires_grad)
''',
    compare={"listing1_losses": 1e-4, "text_losses": 1e-4, "hooked": 0, "embedding_trainable": 0},
    trains=_all(_decreasing("listing1_losses"), _decreasing("text_losses", 0.9),
                lambda r: r["hooked"] == 24 or pytest.fail(str(r["hooked"]))),
)


PROGRAMS["validation_early_stopping"] = Program(
    source='''
import copy
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rng = np.random.default_rng(9)
X = rng.normal(size=(200, 5)).astype(np.float32)
y = (X @ rng.normal(size=(5, 1)) + 0.3 * np.sin(3 * X[:, :1])).astype(np.float32)
train_ds = TensorDataset(torch.from_numpy(X[:150]), torch.from_numpy(y[:150]))
val_ds = TensorDataset(torch.from_numpy(X[150:]), torch.from_numpy(y[150:]))
train_loader = DataLoader(train_ds, batch_size=25)
val_loader = DataLoader(val_ds, batch_size=100)

model = nn.Sequential(nn.Linear(5, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 1))
share_init(model)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)


def evaluate(model, loader):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for xb, yb in loader:
            total += criterion(model(xb), yb).item() * len(xb)
            n += len(xb)
    return total / n


best_loss, best_epoch, best_state = float("inf"), -1, None
record["val_losses"], record["train_losses"] = [], []
for epoch in range(8):
    model.train()
    running = 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    scheduler.step()
    val_loss = evaluate(model, val_loader)
    record["train_losses"].append(running / len(train_loader))
    record["val_losses"].append(val_loss)
    if val_loss < best_loss:
        best_loss, best_epoch = val_loss, epoch
        best_state = copy.deepcopy(model.state_dict())

with torch.no_grad():        # spoil the live weights: the deep copy must not share them
    for p in model.parameters():
        p.mul_(0.5)
record["spoiled_val_loss"] = evaluate(model, val_loader)
model.load_state_dict(best_state)
record["best_epoch"] = best_epoch
record["restored_val_loss"] = evaluate(model, val_loader)
record["best_val_loss"] = best_loss
''',
    compare={"val_losses": 1e-4, "train_losses": 1e-4, "best_epoch": 0, "restored_val_loss": 1e-4,
             "spoiled_val_loss": 1e-4},
    trains=_all(_decreasing("train_losses", 0.5),
                lambda r: np.testing.assert_allclose(r["restored_val_loss"], r["best_val_loss"], rtol=1e-6),
                lambda r: r["spoiled_val_loss"] > r["best_val_loss"] or pytest.fail(str(r))),
)


# ---------------------------------------------------------------------------------------------
# the harness
# ---------------------------------------------------------------------------------------------

class WeightBridge:
    """`share_init`: the PyTorch run records each model's initial state, the ember run loads it."""

    def __init__(self):
        self.saved: list[dict[str, np.ndarray]] = []
        self.used = 0

    def torch_side(self, model):
        self.saved.append({k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()})

    def ember_side(self, model):
        if not self.saved:   # no PyTorch run: ember keeps its own initialisation
            return
        import ember.autograd as ea
        state = self.saved[self.used]
        self.used += 1
        named = dict(model.named_parameters())
        named.update(dict(model.named_buffers()))
        assert sorted(named) == sorted(state), f"ember's model has {sorted(named)}, PyTorch's {sorted(state)}"
        with ea.no_grad():
            for name, tensor in named.items():
                assert tuple(tensor.shape) == state[name].shape, f"{name}: {tuple(tensor.shape)} vs {state[name].shape}"
                tensor.copy_(ea.from_numpy(state[name].copy()))


def run_program(name: str, *, framework: str, bridge: WeightBridge) -> dict:
    record: dict = {}
    env_builtins = dict(vars(builtins))
    if framework == "ember":
        env_builtins["__import__"] = ember_import
        share_init = bridge.ember_side
    else:
        share_init = bridge.torch_side
    namespace = {"__name__": f"ported_{name}", "__builtins__": env_builtins, "record": record,
                 "share_init": share_init}
    code = compile(textwrap.dedent(PROGRAMS[name].source), f"<ported program {name} on {framework}>", "exec")
    exec(code, namespace)
    return record


def assert_records_match(name: str, torch_rec: dict, ember_rec: dict):
    spec = PROGRAMS[name]
    for key, rtol in spec.compare.items():
        expected, actual = torch_rec[key], ember_rec[key]
        if rtol == 0:
            assert actual == expected or np.array_equal(np.asarray(actual), np.asarray(expected)), (
                f"{name}: {key} = {actual!r} on ember, {expected!r} on PyTorch")
        else:
            np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                                       rtol=rtol, atol=spec.atol, err_msg=f"{name}: {key} (ember vs PyTorch)")


def test_the_ember_import_mapping_resolves_every_replaced_module():
    import ember.autograd
    env = {"__builtins__": dict(vars(builtins), __import__=ember_import)}
    exec(textwrap.dedent('''
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.nn.init as init
        import torch.optim as optim
        from torch.optim import lr_scheduler
        from torch.optim.lr_scheduler import StepLR, CosineAnnealingLR
        from torch.utils.data import DataLoader, Dataset, TensorDataset
        import torch.utils.data
        from torch.autograd import Function, grad
        from torch import nn as nn2, optim as optim2
    '''), env)
    assert env["torch"].tensor is ember.autograd.tensor
    assert env["nn"].__name__ == "ember.nn" and env["F"].__name__ == "ember.nn.functional"
    assert env["init"].__name__ == "ember.nn.init" and env["optim"].__name__ == "ember.optim"
    assert env["lr_scheduler"].__name__ == "ember.optim.lr_scheduler"
    assert env["torch"].utils.data.DataLoader is env["DataLoader"]
    assert env["Function"] is ember.autograd.Function and env["torch"].autograd is ember.autograd
    assert env["nn2"] is env["nn"] and env["optim2"] is env["optim"]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_runs_and_trains_on_ember(name):
    record = run_program(name, framework="ember", bridge=WeightBridge())
    PROGRAMS[name].trains(record)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_gives_pytorchs_numbers(name):
    pytest.importorskip("torch")
    bridge = WeightBridge()
    torch_record = run_program(name, framework="torch", bridge=bridge)
    PROGRAMS[name].trains(torch_record)     # the program itself is sound on PyTorch
    ember_record = run_program(name, framework="ember", bridge=bridge)
    assert bridge.used == len(bridge.saved), "ember's run built a different number of models"
    assert_records_match(name, torch_record, ember_record)
