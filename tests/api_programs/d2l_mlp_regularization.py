"""d2l.ai chapter 5: activation functions and their derivatives (relu, sigmoid, tanh with backward of ones and
retain_graph), an MLP from scratch with a hand-written relu, weight decay from scratch (l2_penalty) and concisely
(a parameter group with weight_decay), dropout from scratch against nn.Dropout/F.dropout, and numerical stability:
vanishing sigmoid gradients, exploding matrix products, the nn.init family with its gains and errors."""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(12)


def randn(*shape, std=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * std).astype(np.float32))


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def err(f):
    try:
        f()
        print("  no error")
    except Exception as e:
        print(" ", type(e).__name__ + ":", str(e).splitlines()[0])


x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
print(x.shape, x.dtype, r(x[78:83], 5))
y = torch.relu(x)
y.backward(torch.ones_like(x), retain_graph=True)
print("relu", r(y[78:83], 5), r(x.grad[78:83], 5))
x.grad.data.zero_()
y = torch.sigmoid(x)
y.backward(torch.ones_like(x), retain_graph=True)
print("sigmoid", r(y[::40], 4), r(x.grad[::40], 4), round(x.grad.max().item(), 4))
x.grad.data.zero_()
y = torch.tanh(x)
y.backward(torch.ones_like(x), retain_graph=True)
print("tanh", r(y[::40], 4), r(x.grad[::40], 4), x.grad.argmax().item())
y.backward(torch.ones_like(x))
print("accumulated", r(x.grad[::40], 4))
print(F.relu6(torch.tensor([-1.0, 3.0, 9.0])), F.leaky_relu(torch.tensor([-2.0, 2.0]), 0.1), nn.PReLU())

# MLP from scratch on a 3-class problem
num_inputs, num_outputs, num_hiddens, n = 12, 3, 32, 48
feats = randn(n, num_inputs)
labels = torch.from_numpy(rng.integers(0, num_outputs, n))
W1 = nn.Parameter(randn(num_inputs, num_hiddens) * 0.1)
b1 = nn.Parameter(torch.zeros(num_hiddens))
W2 = nn.Parameter(randn(num_hiddens, num_outputs) * 0.1)
b2 = nn.Parameter(torch.zeros(num_outputs))
params = [W1, b1, W2, b2]


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)
    return H @ W2 + b2


loss = nn.CrossEntropyLoss(reduction="none")
updater = torch.optim.SGD(params, lr=0.5)
for epoch in range(5):
    for i in range(0, n, 16):
        l = loss(net(feats[i : i + 16]), labels[i : i + 16])
        updater.zero_grad()
        l.mean().backward()
        updater.step()
    with torch.no_grad():
        out = net(feats)
        acc = (out.argmax(1) == labels).float().mean()
    print(f"epoch {epoch} loss {loss(out, labels).mean():.4f} acc {acc:.4f}")
print(type(W1).__name__, W1.shape, relu(torch.tensor([-1.0, 0.0, 2.0])), W1.grad.shape)
err(lambda: nn.Linear(num_inputs, num_hiddens / 2))  # a halved hidden width left as a float
err(lambda: nn.Linear(num_hiddens / 2, num_outputs))
err(lambda: torch.randn(num_inputs, num_hiddens / 2))

# weight decay: high-dimensional linear regression with 20 examples
n_train, num_inputs = 20, 50
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
X_train = randn(n_train, num_inputs)
y_train = X_train @ true_w + true_b + randn(n_train, 1, std=0.01)
X_test = randn(100, num_inputs)
y_test = X_test @ true_w + true_b


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


def train_scratch(lambd):
    w = randn(num_inputs, 1).requires_grad_(True)
    b = torch.zeros(1, requires_grad=True)
    for epoch in range(30):
        for i in range(0, n_train, 5):
            X, y = X_train[i : i + 5], y_train[i : i + 5]
            l = ((X @ w + b - y) ** 2 / 2).sum() + lambd * l2_penalty(w)
            l.backward()
            with torch.no_grad():
                for p in (w, b):
                    p -= 0.003 * p.grad / 5
                    p.grad.zero_()
    with torch.no_grad():
        test_l = ((X_test @ w + b - y_test) ** 2 / 2).mean()
    print(f"lambda {lambd}: L2 norm of w {float(torch.norm(w)):.4f} test loss {float(test_l):.4f}")


train_scratch(0)
train_scratch(3)


def train_concise(wd):
    net = nn.Sequential(nn.Linear(num_inputs, 1))
    with torch.no_grad():
        net[0].weight.copy_(randn(1, num_inputs))
        net[0].bias.zero_()
    loss = nn.MSELoss(reduction="none")
    trainer = torch.optim.SGD([{"params": net[0].weight, "weight_decay": wd}, {"params": net[0].bias}], lr=0.003)
    for epoch in range(30):
        for i in range(0, n_train, 5):
            trainer.zero_grad()
            l = loss(net(X_train[i : i + 5]), y_train[i : i + 5])
            l.mean().backward()
            trainer.step()
    print("wd", wd, "w norm", round(net[0].weight.norm().item(), 4), [g["weight_decay"] for g in trainer.param_groups])
    return trainer


print(train_concise(3))
print(train_concise(0).state_dict()["param_groups"][0])

# dropout from scratch with a numpy-drawn mask


def dropout_layer(X, dropout, mask_u):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (mask_u > dropout).float()
    return mask * X / (1.0 - dropout)


X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
U = torch.from_numpy(rng.random((2, 8)).astype(np.float32))
print("dropout_p = 0:", dropout_layer(X, 0, U))
print("dropout_p = 0.5:", dropout_layer(X, 0.5, U))
print("dropout_p = 1:", dropout_layer(X, 1, U))
drop = nn.Dropout(0.5)
print(drop, drop.training, torch.equal(drop.eval()(X), X), drop.training)
drop.train()
Y = drop(X)
kept = Y != 0
print(Y.shape, torch.allclose(Y[kept], 2 * X[kept]), F.dropout(X, 1.0).sum(), torch.equal(F.dropout(X, 0.0), X))
print(torch.equal(F.dropout(X, 0.5, training=False), X), nn.Dropout1d(0.2), nn.Dropout2d(), nn.AlphaDropout(0.1))
err(lambda: nn.Dropout(1.5))
err(lambda: F.dropout(X, -0.1))

# numerical stability and initialization
M = randn(4, 4)
for i in range(100):
    M = M @ randn(4, 4)
print("after 100 products", M.abs().max().item() > 1e20, M.dtype)
M = M.double()
print(torch.isfinite(M).all().item(), f"{M.abs().max().item():.1e}"[-3:])
for name in ["linear", "conv2d", "sigmoid", "tanh", "relu", "selu"]:
    print(name, round(nn.init.calculate_gain(name), 4), end="; ")
print(round(nn.init.calculate_gain("leaky_relu", 0.2), 4), round(nn.init.calculate_gain("leaky_relu"), 4))
w = torch.empty(64, 32)
nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("tanh"))
bound = nn.init.calculate_gain("tanh") * (6 / (64 + 32)) ** 0.5
print("xavier bound", w.abs().max().item() <= bound, round(bound, 4))
nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")
print("kaiming bound", w.abs().max().item() <= (6 / 64) ** 0.5, nn.init.kaiming_normal_(w).shape)
nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
print("trunc", w.min().item() >= -0.5, w.max().item() <= 0.5)
q = nn.init.orthogonal_(torch.empty(3, 5))
print("orthogonal", torch.allclose(q @ q.T, torch.eye(3), atol=1e-5))
print(nn.init.eye_(torch.empty(2, 3)), nn.init.dirac_(torch.empty(2, 2, 3))[:, :, 1])
print(nn.init.uniform_(torch.empty(3), a=2.0, b=2.0), nn.init.ones_(torch.empty(2)), nn.init.zeros_(torch.empty(2)))
err(lambda: nn.init.calculate_gain("foo"))
err(lambda: nn.init.xavier_uniform_(torch.empty(5)))
err(lambda: nn.init.kaiming_uniform_(torch.empty(3, 3), mode="fan"))
err(lambda: nn.init.orthogonal_(torch.empty(3)))
err(lambda: nn.init.eye_(torch.empty(2, 2, 2)))
err(lambda: nn.init.calculate_gain("leaky_relu", "0.2"))
