"""d2l.ai chapter 12 continued, as the book writes it: convexity checks on toy functions, Newton's method with
autograd Hessians, the condition number that makes gradient descent slow, minibatch SGD on an airfoil-like
regression through TensorDataset/DataLoader with the book's Accumulator, the concise trainer with
nn.init.normal_ and torch.optim, and momentum's effective weights."""

import math
import numpy as np
import torch
from torch import nn
from torch.utils import data

rng = np.random.default_rng(13)


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


# 12.2 convexity: f(lambda a + (1 - lambda) b) <= lambda f(a) + (1 - lambda) f(b)
def convex_gap(f, a, b, lam):
    return lam * f(a) + (1 - lam) * f(b) - f(lam * a + (1 - lam) * b)


x = torch.arange(-2, 2, 0.01)
f = lambda x: 0.5 * x**2  # noqa: E731
g = lambda x: torch.cos(np.pi * x)  # noqa: E731
h = lambda x: torch.exp(0.5 * x)  # noqa: E731
for name, fn in (("quad", f), ("cos", g), ("exp", h)):
    gaps = convex_gap(fn, torch.tensor(-1.5), torch.tensor(1.0), torch.linspace(0, 1, 5))
    print(name, r(gaps, 5), bool((gaps >= -1e-6).all()), r(fn(x)[::100], 4))

# Newton's method with autograd Hessians
c = torch.tensor(0.15 * np.pi)


def f_nc(x):
    return x * torch.cos(c * x)


x = torch.tensor(10.0)
for i in range(5):
    grad = torch.autograd.functional.jacobian(f_nc, x)
    hess = torch.autograd.functional.hessian(f_nc, x)
    x = x - 0.5 * grad / hess
    print(f"newton step {i + 1}: x {x.item():.4f}, grad {grad.item():.4f}, hess {hess.item():.4f}")


def f_2d(x):
    return x[0] ** 2 + 2 * x[1] ** 2 + x[0] * x[1]


H = torch.autograd.functional.hessian(f_2d, torch.tensor([1.0, -1.0]))
evals = torch.linalg.eigvalsh(H)
print("hessian", H.tolist(), r(evals, 2), round((evals.max() / evals.min()).item(), 4))
xg = torch.tensor([1.0, -1.0], requires_grad=True)
(gr,) = torch.autograd.grad(f_2d(xg), xg, create_graph=True)
H2 = torch.stack([torch.autograd.grad(gr[i], xg, retain_graph=True)[0] for i in range(2)])
print("double_backward", torch.equal(H, H2), gr.grad_fn.name(), H2.requires_grad)
eta = 2 / (evals.max() + evals.min())
xk = torch.tensor([1.0, -1.0])
for _ in range(10):
    xk = xk - eta * (H @ xk)
print("gd_2d", r(xk, 2), round(f_2d(xk).item(), 6), round(eta.item(), 4))

# 12.5 minibatch SGD on an airfoil-like regression
n, d = 120, 5
X_np = rng.standard_normal((n, d)).astype(np.float32)
y_np = X_np @ np.array([0.5, -1.0, 0.3, 0.0, 2.0], np.float32) + 0.1 * rng.standard_normal(n).astype(np.float32)
X_np = (X_np - X_np.mean(axis=0)) / X_np.std(axis=0)
features, labels = torch.from_numpy(X_np), torch.from_numpy(y_np)


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def sgd(params, states, hyperparams):
    for p in params:
        p.data.sub_(hyperparams["lr"] * p.grad)
        p.grad.data.zero_()


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def evaluate_loss(net, data_iter, loss):
    metric = Accumulator(2)
    for X, y in data_iter:
        out = net(X)
        y = y.reshape(out.shape)
        l = loss(out, y)
        metric.add(l.sum(), l.numel())
    return metric[0] / metric[1]


def train_ch11(trainer_fn, states, hyperparams, data_iter, feature_dim, num_epochs=2):
    w = torch.from_numpy(rng.normal(0, 0.01, (feature_dim, 1)).astype(np.float32)).requires_grad_(True)
    b = torch.zeros((1), requires_grad=True)  # noqa: UP034
    net, loss = lambda X: linreg(X, w, b), squared_loss
    n_steps, losses = 0, []
    for _ in range(num_epochs):
        for X, y in data_iter:
            l = loss(net(X), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
            n_steps += 1
        losses.append(round(evaluate_loss(net, data_iter, loss), 4))
    return n_steps, losses, w


for batch_size, lr in ((120, 1.0), (1, 0.005), (10, 0.05)):
    data_iter = load_array((features, labels), batch_size, is_train=False)
    steps, losses, w = train_ch11(sgd, None, {"lr": lr}, data_iter, d)
    print(f"batch {batch_size}: steps {steps}, loss {losses}, w {r(w, 5)}")
data_iter = load_array((features, labels), 10, is_train=False)
Xb, yb = next(iter(data_iter))
print("loader", len(data_iter), Xb.shape, yb.shape, yb.dtype, type(data_iter.dataset).__name__,
      len(data_iter.dataset), [t.shape for t in data_iter.dataset[3]])
shuffled = load_array((features, labels), 10)
print("shuffled", len(shuffled), sum(len(yy) for _, yy in shuffled), type(shuffled.sampler).__name__)


def train_concise_ch11(trainer_fn, hyperparams, data_iter, num_epochs=3):
    net = nn.Sequential(nn.Linear(5, 1))

    def init_weights(module):
        if type(module) == nn.Linear:  # noqa: E721
            torch.nn.init.normal_(module.weight, std=0.01)
    net.apply(init_weights)
    with torch.no_grad():
        net[0].weight.copy_(torch.from_numpy(rng.normal(0, 0.01, (1, 5)).astype(np.float32)))
        net[0].bias.zero_()
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction="none")
    out_losses = []
    for _ in range(num_epochs):
        for X, y in data_iter:
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
        out_losses.append(round(evaluate_loss(net, data_iter, loss) / 2, 4))
    return net, optimizer, out_losses


for cls, hp in ((torch.optim.SGD, {"lr": 0.01}), (torch.optim.SGD, {"lr": 0.01, "momentum": 0.9}),
                (torch.optim.Adagrad, {"lr": 0.1}), (torch.optim.RMSprop, {"lr": 0.01, "alpha": 0.9}),
                (torch.optim.Adadelta, {"rho": 0.9}), (torch.optim.Adam, {"lr": 0.01})):
    net, opt, ls = train_concise_ch11(cls, hp, data_iter)
    print(cls.__name__, hp, ls, r(net[0].weight, 5), sorted(opt.state_dict()["state"].get(0, {})))

# momentum: the effective sample weight sum_t beta^t
for beta in (0.95, 0.9, 0.6, 0.0):
    t = torch.arange(40).float()
    w = beta ** t
    print(f"beta = {beta:.2f}", round(w.sum().item(), 4), round(1 / (1 - beta), 4), round(math.log(0.5) /
          math.log(beta), 4) if 0 < beta < 1 else None)
