"""d2l.ai chapter 7 and LeNet: corr2d by hand, a Conv2D module, edge detection and learning the kernel back,
comp_conv2d with padding and stride, multi-input and multi-output channels (torch.stack over a generator),
1x1 convolution as a matrix product, pool2d by hand against nn.MaxPool2d/AvgPool2d with padding and stride,
and LeNet: its layer-by-layer shapes, init_cnn with xavier_uniform_, a few SGD steps, evaluate_accuracy."""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(7)


def randn(*shape, std=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * std).astype(np.float32))


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def corr2d(X, K):
    """Compute 2D cross-correlation."""
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i : i + h, j : j + w] * K).sum()
    return Y


X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print(corr2d(X, K))


class Conv2D(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.weight = nn.Parameter(randn(*kernel_size))
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return corr2d(x, self.weight) + self.bias


X = torch.ones((6, 8))
X[:, 2:6] = 0
print(X)
K = torch.tensor([[1.0, -1.0]])
Y = corr2d(X, K)
print(Y)
print(corr2d(X.t(), K))

conv2d = nn.LazyConv2d(1, kernel_size=(1, 2), bias=False)
X = X.reshape((1, 1, 6, 8))
Y = Y.reshape((1, 1, 6, 7))
conv2d(X)
with torch.no_grad():
    conv2d.weight.copy_(randn(1, 1, 1, 2))
lr = 3e-2
for i in range(10):
    Y_hat = conv2d(X)
    l = (Y_hat - Y) ** 2
    conv2d.zero_grad()
    l.sum().backward()
    conv2d.weight.data[:] -= lr * conv2d.weight.grad
    if (i + 1) % 2 == 0:
        print(f"epoch {i + 1}, loss {l.sum():.3f}")
print(conv2d.weight.data.reshape((1, 2)), conv2d)

custom = Conv2D(kernel_size=(1, 2))
out = custom(X[0, 0])
out.sum().backward()
print(out.shape, r(custom.weight.grad), custom.bias.grad)


def comp_conv2d(conv2d, X):
    X = X.reshape((1, 1) + X.shape)
    Y = conv2d(X)
    return Y.reshape(Y.shape[2:])


X = torch.from_numpy(rng.random((8, 8)).astype(np.float32))
print(comp_conv2d(nn.LazyConv2d(1, kernel_size=3, padding=1), X).shape)
print(comp_conv2d(nn.LazyConv2d(1, kernel_size=(5, 3), padding=(2, 1)), X).shape)
print(comp_conv2d(nn.LazyConv2d(1, kernel_size=3, padding=1, stride=2), X).shape)
print(comp_conv2d(nn.LazyConv2d(1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4)), X).shape)
print(nn.Conv2d(1, 1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4)))
print(nn.Conv2d(2, 4, 3, padding="same", padding_mode="reflect", dilation=2, groups=2, bias=False))
for mistake in (lambda: comp_conv2d(nn.Conv2d(1, 1, 3, stride=0), X),
                lambda: comp_conv2d(nn.Conv2d(1, 1, 3, padding=-1), X),
                lambda: F.conv2d(X[None, None], torch.ones(1, 1, 3, 3), dilation=(1, 0)),
                lambda: F.conv2d(X[None, None], torch.ones(1, 3, 3)), lambda: F.conv2d(X[None, None], torch.ones(3, 3)),
                lambda: F.conv2d(X[None, None], torch.ones(1, 1, 3, 3), stride=(1, 1, 1)),
                lambda: nn.Conv2d(2, 3, 3)(X[None, None])):
    try:
        print(mistake().shape)
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__ + ":", e)


def corr2d_multi_in(X, K):
    return sum(corr2d(x, k) for x, k in zip(X, K))


X = torch.tensor([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
                  [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]])
K = torch.tensor([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
print(corr2d_multi_in(X, K))


def corr2d_multi_in_out(X, K):
    return torch.stack([corr2d_multi_in(X, k) for k in K], 0)


K = torch.stack((K, K + 1, K + 2), 0)
print(K.shape)
print(corr2d_multi_in_out(X, K))
print(torch.allclose(corr2d_multi_in_out(X, K), nn.functional.conv2d(X[None], K)[0]))


def corr2d_multi_in_out_1x1(X, K):
    c_i, h, w = X.shape
    c_o = K.shape[0]
    X = X.reshape((c_i, h * w))
    K = K.reshape((c_o, c_i))
    Y = torch.matmul(K, X)
    return Y.reshape((c_o, h, w))


X = randn(3, 3, 3)
K = randn(2, 3, 1, 1)
Y1 = corr2d_multi_in_out_1x1(X, K)
Y2 = corr2d_multi_in_out(X, K)
print(float(torch.abs(Y1 - Y2).sum()) < 1e-5, Y1.shape)


def pool2d(X, pool_size, mode="max"):
    p_h, p_w = pool_size
    Y = torch.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == "max":
                Y[i, j] = X[i : i + p_h, j : j + p_w].max()
            elif mode == "avg":
                Y[i, j] = X[i : i + p_h, j : j + p_w].mean()
    return Y


X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
print(pool2d(X, (2, 2)), pool2d(X, (2, 2), "avg"), sep="\n")
X = torch.arange(16, dtype=torch.float32).reshape((1, 1, 4, 4))
print(X)
pool2d_ = nn.MaxPool2d(3)
print(pool2d_(X), pool2d_)
pool2d_ = nn.MaxPool2d(3, padding=1, stride=2)
print(pool2d_(X))
pool2d_ = nn.MaxPool2d((2, 3), stride=(2, 3), padding=(0, 1))
print(pool2d_(X), pool2d_)
X = torch.cat((X, X + 1), 1)
print(X.shape)
print(nn.MaxPool2d(3, padding=1, stride=2)(X))
print(nn.AvgPool2d(3, padding=1, stride=2)(X), nn.AvgPool2d(3, padding=1, stride=2, count_include_pad=False)(X)[0, 0])
print(nn.AvgPool2d(2, ceil_mode=True)(X[:, :, :3, :3]), nn.AvgPool2d(2))
for mistake in (lambda: nn.MaxPool2d(3, padding=2)(X), lambda: nn.MaxPool2d(2)(X[0, 0]),
                lambda: nn.AvgPool2d(2)(X[0, 0, 0]), lambda: F.max_pool1d(X[0, 0, 0], 2),
                lambda: nn.AvgPool1d(2)(X), lambda: nn.MaxPool2d(2)(X[:, :0]), lambda: nn.MaxPool2d(2)(X[0, :0])):
    try:
        print(mistake().shape)
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__ + ":", e)


def init_cnn(module):
    if type(module) is nn.Linear or type(module) is nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


net = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.LazyLinear(120), nn.Sigmoid(),
    nn.LazyLinear(84), nn.Sigmoid(),
    nn.LazyLinear(10))
X = torch.from_numpy(rng.random((1, 1, 28, 28)).astype(np.float32))
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, "output shape:\t", X.shape)
net.apply(init_cnn)
print(all(p.abs().max() <= (6 / (p.shape[0] + p[0].numel())) ** 0.5 for p in net.parameters() if p.dim() > 1))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(randn(*p.shape, std=0.1))
print(sum(p.numel() for p in net.parameters()), net)
imgs = torch.from_numpy(rng.random((16, 1, 28, 28)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 10, 16))
opt = torch.optim.SGD(net.parameters(), lr=0.9)
loss = nn.CrossEntropyLoss()
for step in range(3):
    opt.zero_grad()
    l = loss(net(imgs), labels)
    l.backward()
    opt.step()
    print(step, round(l.item(), 4), round(net[0].weight.grad.norm().item(), 4))


def evaluate_accuracy(net, data_iter):
    net.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for X, y in data_iter:
            correct += (net(X).argmax(dim=1) == y).sum().item()
            total += y.numel()
    return correct / total


print(evaluate_accuracy(net, [(imgs[:8], labels[:8]), (imgs[8:], labels[8:])]), net.training)
