"""MIT 6.S191 lab 1 and NYU Deep Learning notebook snippets: tensors of each rank and their shapes, a Dense layer
and a model subclass, gradient-tape-like use of autograd.grad (minimising (x - x_f)^2), the spiral dataset with a
linear and a two-layer classifier, decision-boundary grids, reprs of parameters and state dicts, and the errors."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(6191)
device = torch.device("cpu")  # the labs pick "cuda:0" when available; the printed results are the CPU's
print("device", device, repr(device), device.type, device.index)

# Tensors of each rank.
integer = torch.tensor(1234)
decimal = torch.tensor(3.14159265359)
fibonacci = torch.tensor([1, 1, 2, 3, 5, 8])
count_to_100 = torch.tensor(range(100))
matrix = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
images = torch.zeros(10, 3, 256, 256)
for name, t in (("integer", integer), ("decimal", decimal), ("fibonacci", fibonacci), ("count", count_to_100),
                ("matrix", matrix), ("images", images)):
    print(name, t.ndim, tuple(t.shape), t.dtype, t.numel(), t.is_floating_point())
print("reprs", integer, decimal, fibonacci)
print(matrix)
print("row/col", matrix[1], matrix[:, 1], matrix[1, 1], matrix[1, 1].item())


def func(a, b):
    c = torch.add(a, b)
    d = torch.subtract(b, 1)
    return c * d


print("func", func(torch.tensor(1.5), torch.tensor(2.5)), func(matrix, 2), func(1, 2), func(1.5, 2.5))


class OurDenseLayer(nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super().__init__()
        self.W = nn.Parameter(torch.from_numpy(rng.standard_normal((num_inputs, num_outputs)).astype(np.float32)))
        self.bias = nn.Parameter(torch.from_numpy(rng.standard_normal((1, num_outputs)).astype(np.float32)))

    def forward(self, x):
        return torch.sigmoid(torch.matmul(x, self.W) + self.bias)


layer = OurDenseLayer(2, 3)
x_input = torch.tensor([[1, 2.0]])
y = layer(x_input)
print("dense", tuple(y.shape), y.grad_fn.name(), np.round(y.detach().numpy(), 4).tolist())
print("params", [(n, tuple(p.shape), p.requires_grad) for n, p in layer.named_parameters()])
print(layer.bias)
torch.set_printoptions(precision=2)
print(layer.state_dict())
torch.set_printoptions(profile="default")


class IdentityModel(nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super().__init__()
        self.dense = nn.Linear(num_inputs, num_outputs)
        with torch.no_grad():
            self.dense.weight.copy_(torch.tensor([[0.5, -0.25], [1.0, 2.0], [-1.5, 0.75]]))
            self.dense.bias.fill_(0.1)

    def forward(self, inputs, isidentity=False):
        return inputs if isidentity else F.relu(self.dense(inputs))


model = IdentityModel(2, 3)
print("identity", model(x_input).tolist(), model(x_input, isidentity=True).tolist())
print(model)

# "Gradient tape": autograd.grad of y = x^2, then gradient descent on (x - x_f)^2.
x = torch.tensor(3.0, requires_grad=True)
y = x * x
(dy_dx,) = torch.autograd.grad(y, x)
print("dy/dx", dy_dx, dy_dx.item() == 6.0, dy_dx.requires_grad)
x = torch.from_numpy(rng.standard_normal(1).astype(np.float32)).requires_grad_()
x_f, lr, history = 4.0, 1e-2, []
for i in range(500):
    loss = (x - x_f) ** 2
    grad, = torch.autograd.grad(loss, x)
    with torch.no_grad():
        x -= lr * grad
    history.append(x.item())
print("descent", [round(v, 4) for v in history[::100]], round(history[-1], 4), x.requires_grad, x.is_leaf)
try:
    z = x * 2
    torch.autograd.grad(z.sum(), x)
    torch.autograd.grad(z.sum(), x)
except RuntimeError as e:
    print("second grad", str(e).splitlines()[0][:90])

# The same with torch.func: grad of a scalar function, with an auxiliary output, and two mistakes.
dfdx = torch.func.grad(lambda t: (t - x_f) ** 2)
print("func.grad", dfdx(torch.tensor(1.0)), torch.func.grad(lambda t: ((t ** 3).sum(), t.mean()), has_aux=True)(
    torch.tensor([1.0, 2.0])))
for name, fn in (("has_aux without aux", lambda: torch.func.grad(lambda t: t ** 2, has_aux=True)(torch.tensor(1.0))),
                 ("python float", lambda: torch.func.grad(lambda t: (t ** 2).item())(torch.tensor(1.0))),
                 ("vector output", lambda: torch.func.grad(lambda t: t ** 2)(torch.ones(2)))):
    try:
        fn()
    except RuntimeError as e:
        print(name, type(e).__name__, str(e).splitlines()[0])

# NYU: the spiral dataset, a linear model and a two-layer net.
N, D, C, H = 40, 2, 3, 20
X = np.zeros((N * C, D), dtype=np.float32)
Y = np.zeros(N * C, dtype=np.int64)
for c in range(C):
    t = np.linspace(0, 1, N)
    inner = np.linspace((2 * math.pi / C) * c, (2 * math.pi / C) * (2 + c), N) + rng.standard_normal(N) * 0.2
    X[c * N:(c + 1) * N] = np.stack([t * np.sin(inner), t * np.cos(inner)], 1)
    Y[c * N:(c + 1) * N] = c
X, Y = torch.from_numpy(X), torch.from_numpy(Y)
print("spiral", tuple(X.shape), X.dtype, tuple(Y.shape), torch.bincount(Y).tolist(),
      round(X.norm(dim=1).max().item(), 4))


def fit(model, lr=1e-1, lambda_l2=1e-5, epochs=200):
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=lambda_l2)
    for t in range(epochs):
        y_pred = model(X)
        loss = criterion(y_pred, Y)
        score, predicted = torch.max(y_pred, 1)
        acc = (Y == predicted).sum().float() / len(Y)
        if t % 50 == 0 or t == epochs - 1:
            print("[EPOCH]: %i, [LOSS]: %.4f, [ACCURACY]: %.3f" % (t, loss.item(), acc))  # noqa: UP031
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


def seeded(model):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy((0.5 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
    return model.to(device)


linear = fit(seeded(nn.Sequential(nn.Linear(D, H), nn.Linear(H, C))))
two_layer = fit(seeded(nn.Sequential(nn.Linear(D, H), nn.ReLU(), nn.Linear(H, C))))
print(two_layer)
print("n params", sum(p.numel() for p in two_layer.parameters() if p.requires_grad))

# Decision boundary on a grid, as the plotting helper computes it.
xx, yy = torch.meshgrid(torch.linspace(-1, 1, 5), torch.linspace(-1, 1, 4), indexing="xy")
grid = torch.stack([xx.reshape(-1), yy.reshape(-1)], dim=1)
with torch.no_grad():
    Z = two_layer(grid).argmax(dim=1).reshape(xx.shape)
print("grid", tuple(xx.shape), xx[0].tolist(), yy[:, 0].tolist(), Z.tolist())
probs = F.softmax(two_layer(grid), dim=1)
print("probs", probs.requires_grad, tuple(probs.shape), np.round(probs[:2].detach().numpy(), 3).tolist())

# Common mistakes from the labs.
for name, fn in (
    ("numpy of a grad tensor", lambda: probs.numpy()),
    ("float32 @ float64", lambda: X @ torch.ones(2, 1, dtype=torch.float64)),
    ("int labels as float", lambda: F.cross_entropy(two_layer(X), Y.float())),
    ("wrong input width", lambda: two_layer(torch.ones(3, 3))),
    ("item of a vector", lambda: Y.item()),
    ("in-place on a leaf", lambda: layer.W.add_(1.0)),
):
    try:
        fn()
    except (RuntimeError, ValueError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])
