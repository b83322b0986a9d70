"""'What is torch.nn really?': MNIST-shaped numpy data through map(torch.tensor), manual weights with
requires_grad_, a hand-written log_softmax and nll, then F.cross_entropy, nn.Module, nn.Linear, optim,
TensorDataset, DataLoader, the get_data/get_model/loss_batch/fit functions, a CNN with a Lambda module,
WrappedDataLoader with preprocess, and nn.AdaptiveAvgPool2d."""

import math
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import TensorDataset, DataLoader

rng = np.random.default_rng(0)
n_train, n_valid = 160, 64
protos = rng.random((10, 784)).astype(np.float32)
y_np = rng.integers(0, 10, n_train + n_valid)
x_np = np.clip(protos[y_np] * 0.7 + rng.random((n_train + n_valid, 784)).astype(np.float32) * 0.3, 0, 1)
x_train, y_train, x_valid, y_valid = map(
    torch.tensor, (x_np[:n_train], y_np[:n_train], x_np[n_train:], y_np[n_train:]))
n, c = x_train.shape
print(x_train.dtype, y_train.dtype, x_train.shape, y_train.min(), y_train.max())
print(n, c, type(n).__name__)

weights = torch.from_numpy(rng.standard_normal((784, 10)).astype(np.float32)) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)
print("weights", weights.is_leaf, weights.requires_grad, weights.grad_fn, bias.is_leaf)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0].shape, preds.shape, type(preds.grad_fn).__name__)
print("preds0", np.round(preds[0].detach().numpy().astype(np.float64), 4).tolist())


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]
print("loss", round(loss_func(preds, yb).item(), 4))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


print("acc", accuracy(preds, yb))
lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print("manual", round(loss_func(model(xb), yb).item(), 4), accuracy(model(xb), yb))

loss_func = F.cross_entropy


def model(xb):
    return xb @ weights + bias


print("F.ce", round(loss_func(model(xb), yb).item(), 4), accuracy(model(xb), yb))


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        w = rng.standard_normal((784, 10)).astype(np.float32)
        self.weights = nn.Parameter(torch.from_numpy(w) / math.sqrt(784))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


model = Mnist_Logistic()
print(model, [(k, tuple(p.shape)) for k, p in model.named_parameters()])
print("before", round(loss_func(model(xb), yb).item(), 4))


def fit():
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


fit()
print("after", round(loss_func(model(xb), yb).item(), 4), model.weights.grad)


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)) * 0.05)
    return m


def get_model():
    model = det(Mnist_Logistic())
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
print(model, opt.param_groups[0]["lr"], len(opt.param_groups[0]["params"]))
train_ds = TensorDataset(x_train, y_train)
print("ds", len(train_ds), [t.shape for t in train_ds[0:3]], train_ds[5][1])
train_dl = DataLoader(train_ds, batch_size=bs)
print("dl", len(train_dl), [xb.shape for xb, _ in train_dl])
for epoch in range(epochs):
    model.train()
    for xb, yb in train_dl:
        loss = loss_func(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print("dl fit", round(loss_func(model(xb), yb).item(), 4))


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True), DataLoader(valid_ds, batch_size=bs * 2))


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, "valid", nums, type(val_loss).__name__, model.training)


torch.manual_seed(0)
valid_ds = TensorDataset(x_valid, y_valid)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, 28, 28)


model = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AvgPool2d(4),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
det(model)
print(model)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
shapes = []
h = x_valid[:2]
for layer in model:
    h = layer(h)
    shapes.append(tuple(h.shape))
print("shapes", shapes)
fixed_train = DataLoader(train_ds, batch_size=bs)
fit(1, model, loss_func, opt, fixed_train, valid_dl)
with torch.no_grad():
    out = model(x_valid)
print("cnn", round(loss_func(out, y_valid).item(), 4), round(accuracy(out, y_valid).item(), 4))


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))


def preprocess(x, y):
    return x.view(-1, 1, 28, 28), y


train_dl = WrappedDataLoader(DataLoader(train_ds, batch_size=bs), preprocess)
valid_dl = WrappedDataLoader(DataLoader(valid_ds, batch_size=bs * 2), preprocess)
model = nn.Sequential(
    nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
det(model)
print(model[6], model[6](torch.ones(2, 10, 3, 5)).shape)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
fit(2, model, loss_func, opt, train_dl, valid_dl)
with torch.no_grad():
    xv, yv = next(iter(valid_dl))
    out = model(xv)
print("adaptive", xv.shape, round(loss_func(out, yv).item(), 4), accuracy(out, yv).dtype)
print("momentum bufs", len(opt.state), sorted(opt.state[model[0].weight]))
