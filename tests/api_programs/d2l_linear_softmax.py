"""d2l.ai chapters 3-4: linear regression from scratch (synthetic_data, data_iter, linreg, squared_loss, sgd under
no_grad) and concisely (TensorDataset/DataLoader, nn.Linear, MSELoss, optim.SGD, weight.data.normal_); softmax
regression from scratch (softmax by broadcasting, cross_entropy by fancy indexing, accuracy, Accumulator) and
concisely (nn.Flatten, CrossEntropyLoss with reduction='none', the LogSumExp trick at extreme logits)."""

import math

import numpy as np
import torch
from torch import nn
from torch.utils import data

rng = np.random.default_rng(3)


def randn(*shape, std=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * std).astype(np.float32))


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def synthetic_data(w, b, num_examples):
    """Generate y = Xw + b + noise."""
    X = randn(num_examples, len(w))
    y = torch.matmul(X, w) + b
    y += randn(*y.shape, std=0.01)
    return X, y.reshape((-1, 1))


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 200)
print("features:", features[0].shape, "label:", labels[0].shape, labels.dtype)
print(torch.normal(0, 1, (5, len(true_w))).shape, torch.normal(0, 0.01, size=(3, 1)).dtype)
for mistake in (lambda: torch.normal(0, 1), lambda: torch.normal(torch.zeros(2), torch.ones(3)),
                lambda: torch.normal(0, -1.0, (2,))):
    try:
        mistake()
    except (TypeError, RuntimeError) as e:
        print(type(e).__name__ + ":", str(e).splitlines()[0])


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i : min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


batch_size = 10
for X, y in data_iter(batch_size, features, labels):
    print(X.shape, y.shape, r(X, 4))
    break

w = randn(2, 1, std=0.01).requires_grad_(True)
b = torch.zeros(1, requires_grad=True)


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


lr, num_epochs = 0.03, 3
for epoch in range(num_epochs):
    for X, y in data_iter(batch_size, features, labels):
        l = squared_loss(linreg(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):f}")
print("error in w:", r(true_w - w.reshape(true_w.shape), 2), "error in b:", round(true_b - b.item(), 4))
print(w.is_leaf, w.grad_fn, b.grad)


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


data_it = load_array((features, labels), batch_size, is_train=False)
first = next(iter(data_it))
print(type(first).__name__, len(first), first[0].shape, len(data_it), len(data_it.dataset))
net = nn.Sequential(nn.Linear(2, 1))
print(net)
with torch.no_grad():
    net[0].weight.copy_(randn(1, 2, std=0.01))
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(3):
    for X, y in data_it:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f"epoch {epoch + 1}, loss {l:f}")
print("w err", r(true_w - net[0].weight.data.reshape(true_w.shape), 2), "b err", round(true_b - net[0].bias.item(), 4))
print(net[0].weight.grad.shape, loss, nn.HuberLoss(delta=1.0)(net(features), labels).item() < 0.01)

# softmax regression from scratch on a fake 4x4 "Fashion-MNIST"
num_inputs, num_outputs, n = 16, 5, 60
imgs = torch.from_numpy(rng.random((n, 1, 4, 4)).astype(np.float32))
targets = torch.from_numpy(rng.integers(0, num_outputs, n))
W = randn(num_inputs, num_outputs, std=0.01).requires_grad_(True)
b = torch.zeros(num_outputs, requires_grad=True)
X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdim=True), X.sum(1, keepdim=True))


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


X_prob = softmax(randn(2, 5))
print(r(X_prob, 5), r(X_prob.sum(1)))


def net_scratch(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])


print(cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))


class Accumulator:
    """Sums over n variables."""

    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


loader = data.DataLoader(data.TensorDataset(imgs, targets), batch_size=20, shuffle=False)
for epoch in range(3):
    metric = Accumulator(3)
    for X, y in loader:
        y_hat = net_scratch(X)
        l = cross_entropy(y_hat, y)
        l.sum().backward()
        sgd([W, b], 0.5, X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    print(f"epoch {epoch + 1} loss {metric[0] / metric[2]:.4f} acc {metric[1] / metric[2]:.4f}")

# concise softmax regression and numerical stability
net = nn.Sequential(nn.Flatten(), nn.Linear(16, 5))


def init_weights(m):
    if type(m) is nn.Linear:
        with torch.no_grad():
            m.weight.copy_(randn(*m.weight.shape, std=0.01))
            m.bias.zero_()


net.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction="none")
trainer = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(3):
    for X, y in loader:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
    with torch.no_grad():
        out = net(imgs)
        print(epoch, round(loss(out, targets).mean().item(), 4), accuracy(out, targets) / n, out.dtype)
print(net, loss)
big = torch.tensor([[1000.0, 0.0, -1000.0], [50.0, 60.0, 70.0]])
print("naive", softmax(big))
print("stable", torch.softmax(big, dim=1), nn.functional.log_softmax(big, dim=1))
print("ce", loss(big, torch.tensor([2, 0])), torch.logsumexp(big, dim=1))
print("exp overflow", torch.exp(torch.tensor([100.0, 88.0, 89.0])), math.isinf(torch.exp(torch.tensor(89.0)).item()))
try:
    loss(big, torch.tensor([3, 0]))
except IndexError as e:
    print("IndexError:", e)
try:
    nn.CrossEntropyLoss()(big, torch.tensor([1.0, 0.0]))
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
