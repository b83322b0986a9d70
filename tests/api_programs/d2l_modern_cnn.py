"""d2l.ai chapter 8 at tiny sizes: AlexNet-style and VGG blocks, NiN blocks with AdaptiveAvgPool2d, a GoogLeNet
Inception block (four branches concatenated), batch normalization from scratch (moving averages, train/eval)
against nn.BatchNorm2d/LazyBatchNorm1d, ResNet's Residual (1x1 projection), DenseNet's dense and transition
blocks; layer summaries, running statistics, state_dict keys and gradients through each."""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(8)


def randn(*shape, std=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * std).astype(np.float32))


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def materialize(net, X, std=0.2):
    """Run once so lazy modules get shapes, then overwrite weights deterministically."""
    net(X)
    with torch.no_grad():
        for name, p in net.named_parameters():
            if name.endswith("bias") or p.dim() == 1:
                p.copy_(randn(*p.shape, std=0.05))
            else:
                p.copy_(randn(*p.shape, std=std))
    return net


def layer_summary(net, X_shape):
    X = torch.from_numpy(rng.random(X_shape).astype(np.float32))
    for layer in net:
        X = layer(X)
        print(layer.__class__.__name__, "output shape:\t", X.shape)


alex = nn.Sequential(
    nn.LazyConv2d(8, kernel_size=5, stride=2, padding=1), nn.ReLU(), nn.MaxPool2d(kernel_size=3, stride=2),
    nn.LazyConv2d(16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(kernel_size=3, stride=2),
    nn.Flatten(), nn.LazyLinear(32), nn.ReLU(), nn.Dropout(p=0.5), nn.LazyLinear(10))
layer_summary(alex, (1, 1, 32, 32))
print(alex[9])


def vgg_block(num_convs, out_channels):
    layers = []
    for _ in range(num_convs):
        layers.append(nn.LazyConv2d(out_channels, kernel_size=3, padding=1))
        layers.append(nn.ReLU())
    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
    return nn.Sequential(*layers)


arch = ((1, 4), (2, 8))
vgg = nn.Sequential(*[vgg_block(*b) for b in arch], nn.Flatten(), nn.LazyLinear(16), nn.ReLU(), nn.LazyLinear(10))
layer_summary(vgg, (1, 1, 16, 16))
print(vgg[1])


def nin_block(out_channels, kernel_size, strides, padding):
    return nn.Sequential(
        nn.LazyConv2d(out_channels, kernel_size, strides, padding), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU())


nin = nn.Sequential(
    nin_block(8, kernel_size=5, strides=2, padding=0), nn.MaxPool2d(3, stride=2),
    nin_block(10, kernel_size=3, strides=1, padding=1), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten())
X = torch.from_numpy(rng.random((2, 1, 24, 24)).astype(np.float32))
materialize(nin, X)
layer_summary(nin, (2, 1, 24, 24))
print(r(nin(X), 5), nin[3])


class Inception(nn.Module):
    def __init__(self, c1, c2, c3, c4, **kwargs):
        super().__init__(**kwargs)
        self.b1_1 = nn.LazyConv2d(c1, kernel_size=1)
        self.b2_1 = nn.LazyConv2d(c2[0], kernel_size=1)
        self.b2_2 = nn.LazyConv2d(c2[1], kernel_size=3, padding=1)
        self.b3_1 = nn.LazyConv2d(c3[0], kernel_size=1)
        self.b3_2 = nn.LazyConv2d(c3[1], kernel_size=5, padding=2)
        self.b4_1 = nn.MaxPool2d(kernel_size=3, stride=1, padding=1)
        self.b4_2 = nn.LazyConv2d(c4, kernel_size=1)

    def forward(self, x):
        b1 = F.relu(self.b1_1(x))
        b2 = F.relu(self.b2_2(F.relu(self.b2_1(x))))
        b3 = F.relu(self.b3_2(F.relu(self.b3_1(x))))
        b4 = F.relu(self.b4_2(self.b4_1(x)))
        return torch.cat((b1, b2, b3, b4), dim=1)


inc = Inception(4, (3, 6), (2, 3), 3)
X = torch.from_numpy(rng.random((2, 5, 6, 6)).astype(np.float32))
materialize(inc, X)
Y = inc(X)
Y.mean().backward()
print(Y.shape, r(Y.mean((0, 2, 3)), 16), r(inc.b3_2.weight.grad, 3))
print([k for k in inc.state_dict()][:6], len(inc.state_dict()))


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        shape = (1, num_features) if num_dims == 2 else (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean, self.moving_var, eps=1e-5, momentum=0.1)
        return Y


X = randn(4, 3, 5, 5) * 2 + 1
mine, ref = BatchNorm(3, num_dims=4), nn.BatchNorm2d(3)
for _ in range(3):
    a, b = mine(X), ref(X)
print(torch.allclose(a, b, atol=1e-5), r(mine.moving_mean), r(ref.running_mean), ref.num_batches_tracked)
# PyTorch's running_var is unbiased; the book's moving_var is biased
print(r(mine.moving_var), r(ref.running_var), ref)
with torch.no_grad():
    a, b = mine(X), ref.eval()(X)
print(round((a - b).abs().max().item(), 3) < 0.1, r(b, 4))
print(list(ref.state_dict()), ref.state_dict()["num_batches_tracked"].dtype)
bn1 = nn.LazyBatchNorm1d(momentum=None)
print(bn1)
Z = randn(6, 4)
bn1(Z)
bn1(Z * 2)
print(bn1, r(bn1.running_mean, 4), r(bn1.running_var, 4), bn1.num_batches_tracked)
try:
    nn.BatchNorm1d(4)(randn(1, 4))
except ValueError as e:
    print("ValueError:", e)
print(r(nn.BatchNorm1d(4, affine=False, track_running_stats=False).eval()(Z), 4))
for rm, rv in [(None, None), (torch.zeros(4), None)]:
    try:
        F.batch_norm(Z, rm, rv, training=False)
    except RuntimeError as e:
        print("RuntimeError:", e)


class Residual(nn.Module):
    def __init__(self, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1, stride=strides) if use_1x1conv else None
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


X = torch.from_numpy(rng.random((4, 3, 6, 6)).astype(np.float32))
blk = Residual(3)
print(blk(X).shape)
blk = materialize(Residual(6, use_1x1conv=True, strides=2), X)
Y = blk(X)
Y.sum().backward()
print(Y.shape, r(Y, 4), r(blk.conv3.weight.grad, 3), blk.conv3 is not None, blk.bn1)


def conv_block(num_channels):
    return nn.Sequential(nn.LazyBatchNorm2d(), nn.ReLU(), nn.LazyConv2d(num_channels, kernel_size=3, padding=1))


class DenseBlock(nn.Module):
    def __init__(self, num_convs, num_channels):
        super().__init__()
        layer = []
        for i in range(num_convs):
            layer.append(conv_block(num_channels))
        self.net = nn.Sequential(*layer)

    def forward(self, X):
        for blk in self.net:
            Y = blk(X)
            X = torch.cat((X, Y), dim=1)
        return X


def transition_block(num_channels):
    return nn.Sequential(
        nn.LazyBatchNorm2d(), nn.ReLU(), nn.LazyConv2d(num_channels, kernel_size=1),
        nn.AvgPool2d(kernel_size=2, stride=2))


blk = DenseBlock(2, 10)
X = torch.from_numpy(rng.random((4, 3, 8, 8)).astype(np.float32))
materialize(blk, X)
Y = blk(X)
print(Y.shape, r(Y[:, 3:].mean((0, 2, 3)), 4))
tb = transition_block(10)
materialize(tb, Y)
print(tb(Y).shape, r(tb(Y), 4), tb)
print(sum(p.numel() for p in blk.parameters()), sum(b.numel() for b in blk.buffers()))
