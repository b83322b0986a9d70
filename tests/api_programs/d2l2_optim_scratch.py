"""d2l.ai chapter 12 (optimization algorithms) as the book writes it: gradient descent and Newton's method on
toy functions, 2-D trajectories with train_2d, SGD with a decaying rate, and momentum, Adagrad, RMSProp, Adadelta
and Adam written from scratch on a linear-regression net, each checked against torch.optim's own step."""

import math
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(5)


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def f(x):
    return x ** 2


def f_grad(x):
    return 2 * x


def gd(eta, f_grad):
    x = 10.0
    results = [x]
    for i in range(10):
        x -= eta * f_grad(x)
        results.append(float(x))
    print(f"epoch 10, x: {x:f}")
    return results


results = gd(0.2, f_grad)
gd(0.05, f_grad)
gd(1.1, f_grad)
c = torch.tensor(0.15 * np.pi)


def f_nc(x):
    return x * torch.cos(c * x)


def f_nc_grad(x):
    return torch.cos(c * x) - c * x * torch.sin(c * x)


print("nonconvex", round(gd(2, f_nc_grad)[-1], 4))

# Newton's method on a nonconvex function
c2 = torch.tensor(0.5)


def f2(x):
    return torch.cosh(c2 * x)


def f2_grad(x):
    return c2 * torch.sinh(c2 * x)


def f2_hess(x):
    return c2**2 * torch.cosh(c2 * x)


def newton(eta=1):
    x = 10.0
    results = [x]
    for i in range(10):
        x -= eta * f2_grad(x) / f2_hess(x)
        results.append(float(x))
    print("newton epoch 10, x:", round(float(x), 4), type(x).__name__)
    return results


newton()


def train_2d(trainer, steps=20, f_grad=None):
    x1, x2, s1, s2 = -5, -2, 0, 0
    results = [(x1, x2)]
    for i in range(steps):
        if f_grad:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2, f_grad)
        else:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2)
        results.append((x1, x2))
    print(f"epoch {i + 1}, x1: {float(x1):f}, x2: {float(x2):f}")
    return results


def f_2d(x1, x2):
    return x1 ** 2 + 2 * x2 ** 2


def f_2d_grad(x1, x2):
    return (2 * x1, 4 * x2)


eta = 0.1


def gd_2d(x1, x2, s1, s2, f_grad):
    g1, g2 = f_grad(x1, x2)
    return (x1 - eta * g1, x2 - eta * g2, 0, 0)


train_2d(gd_2d, f_grad=f_2d_grad)

# SGD with noisy gradients and a decaying learning rate
noise = iter(rng.normal(0.0, 1.0, (200,)).astype(np.float32).tolist())
t = 1


def exponential_lr():
    global t
    t += 1
    return math.exp(-0.1 * t)


def polynomial_lr():
    global t
    t += 1
    return (1 + 0.1 * t) ** (-0.5)


def sgd(x1, x2, s1, s2, f_grad):
    g1, g2 = f_grad(x1, x2)
    g1 += torch.tensor([next(noise)])
    g2 += torch.tensor([next(noise)])
    eta_t = eta * lr()
    return (x1 - eta_t * g1, x2 - eta_t * g2, 0, 0)


lr = exponential_lr
train_2d(sgd, steps=50, f_grad=f_2d_grad)
t, lr = 1, polynomial_lr
res = train_2d(sgd, steps=40, f_grad=f_2d_grad)
print("sgd_types", type(res[-1][0]).__name__, res[-1][0].shape, res[-1][0].dtype)

# momentum on an ill-conditioned quadratic
eta, beta = 0.6, 0.5


def f_ill(x1, x2):
    return 0.1 * x1 ** 2 + 2 * x2 ** 2


def momentum_2d(x1, x2, v1, v2):
    v1 = beta * v1 + 0.2 * x1
    v2 = beta * v2 + 4 * x2
    return x1 - eta * v1, x2 - eta * v2, v1, v2


train_2d(momentum_2d)
lambdas = [0.95, 0.9, 0.6, 0]
t = torch.arange(40).detach().numpy()
print("eff_weights", [round(float((lam ** t).sum()), 4) for lam in lambdas])

# the from-scratch optimizers on a linear-regression net
features = torch.from_numpy(rng.standard_normal((64, 5)).astype(np.float32))
true_w = torch.tensor([[2.0], [-3.4], [1.2], [0.5], [-1.0]])
labels = features @ true_w + 4.2 + 0.01 * torch.from_numpy(rng.standard_normal((64, 1)).astype(np.float32))


def init_params():
    w = torch.tensor(rng.normal(0, 0.01, (5, 1)).astype(np.float32), requires_grad=True)
    b = torch.zeros((1), requires_grad=True)
    return [w, b]


def init_momentum_states(feature_dim):
    return (torch.zeros((feature_dim, 1)), torch.zeros(1))


def sgd_momentum(params, states, hyperparams):
    for p, v in zip(params, states):
        with torch.no_grad():
            v[:] = hyperparams["momentum"] * v + p.grad
            p[:] -= hyperparams["lr"] * v
        p.grad.data.zero_()


def init_adagrad_states(feature_dim):
    return (torch.zeros((feature_dim, 1)), torch.zeros(1))


def adagrad(params, states, hyperparams):
    eps = 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] += torch.square(p.grad)
            p[:] -= hyperparams["lr"] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_rmsprop_states(feature_dim):
    return (torch.zeros((feature_dim, 1)), torch.zeros(1))


def rmsprop(params, states, hyperparams):
    gamma, eps = hyperparams["gamma"], 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] = gamma * s + (1 - gamma) * torch.square(p.grad)
            p[:] -= hyperparams["lr"] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_adadelta_states(feature_dim):
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    delta_w, delta_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((s_w, delta_w), (s_b, delta_b))


def adadelta(params, states, hyperparams):
    rho, eps = hyperparams["rho"], 1e-5
    for p, (s, delta) in zip(params, states):
        with torch.no_grad():
            s[:] = rho * s + (1 - rho) * torch.square(p.grad)
            g = (torch.sqrt(delta + eps) / torch.sqrt(s + eps)) * p.grad
            p[:] -= g
            delta[:] = rho * delta + (1 - rho) * g * g
        p.grad.data.zero_()


def init_adam_states(feature_dim):
    v_w, v_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((v_w, s_w), (v_b, s_b))


def adam(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-6
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = beta2 * s + (1 - beta2) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams["t"])
            s_bias_corr = s / (1 - beta2 ** hyperparams["t"])
            p[:] -= hyperparams["lr"] * v_bias_corr / (torch.sqrt(s_bias_corr) + eps)
        p.grad.data.zero_()
    hyperparams["t"] += 1


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def train_ch11(trainer_fn, states, hyperparams, num_epochs=2, batch_size=16):
    w, b = init_params()
    start = [w.detach().clone(), b.detach().clone()]
    for _ in range(num_epochs):
        for i in range(0, 64, batch_size):
            X, y = features[i:i + batch_size], labels[i:i + batch_size]
            l = squared_loss(linreg(X, w, b), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
    loss = squared_loss(linreg(features, w, b), labels).mean()
    return start, w, b, float(loss)


def train_concise(start, trainer_fn, hyperparams, num_epochs=2, batch_size=16):
    net = nn.Sequential(nn.Linear(5, 1))
    with torch.no_grad():
        net[0].weight.copy_(start[0].T)
        net[0].bias.copy_(start[1])
    loss = nn.MSELoss(reduction="none")
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    for _ in range(num_epochs):
        for i in range(0, 64, batch_size):
            X, y = features[i:i + batch_size], labels[i:i + batch_size]
            optimizer.zero_grad()
            out = net(X)
            l = loss(out, y).mean() / 2
            l.backward()
            optimizer.step()
    return net, optimizer


cases = [
    ("momentum", sgd_momentum, init_momentum_states, {"lr": 0.02, "momentum": 0.5},
     torch.optim.SGD, {"lr": 0.02, "momentum": 0.5}),
    ("adagrad", adagrad, init_adagrad_states, {"lr": 0.1},
     torch.optim.Adagrad, {"lr": 0.1, "eps": 1e-6}),
    ("rmsprop", rmsprop, init_rmsprop_states, {"lr": 0.01, "gamma": 0.9},
     torch.optim.RMSprop, {"lr": 0.01, "alpha": 0.9, "eps": 1e-6}),
    ("adadelta", adadelta, init_adadelta_states, {"rho": 0.9},
     torch.optim.Adadelta, {"rho": 0.9, "eps": 1e-5}),
    ("adam", adam, init_adam_states, {"lr": 0.01, "t": 1},
     torch.optim.Adam, {"lr": 0.01, "eps": 1e-6}),
]
for name, fn, init_states, hp, opt_cls, opt_hp in cases:
    start, w, b, loss = train_ch11(fn, init_states(5), hp)
    net, opt = train_concise(start, opt_cls, opt_hp)
    same = torch.allclose(net[0].weight, w.T, atol=1e-4) and torch.allclose(net[0].bias, b, atol=1e-4)
    print(name, f"loss {loss:.4f}", r(w.T, 5), round(b.item(), 4), same, sorted(opt.state[net[0].weight]))
print(repr(opt).splitlines()[:4])
print(type(opt).__name__, opt.defaults["betas"], opt.param_groups[0]["amsgrad"])
try:
    torch.optim.Adam(net.parameters(), lr=-0.1)
except ValueError as e:
    print("ValueError", e)
try:
    torch.optim.RMSprop(net.parameters(), alpha=-1.0)
except ValueError as e:
    print("ValueError", e)
