"""makemore part 5: the WaveNet-style hierarchical model built from hand-written torch.nn-like layers.

Embedding, FlattenConsecutive, Linear, BatchNorm1d over (0, 1) dims for 3-D input, Tanh, Sequential.
"""

import torch
import torch.nn.functional as F


class Linear:
    def __init__(self, fan_in, fan_out, bias=True):
        self.weight = torch.randn((fan_in, fan_out)) / fan_in**0.5
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps, self.momentum, self.training = eps, momentum, True
        self.gamma, self.beta = torch.ones(dim), torch.zeros(dim)
        self.running_mean, self.running_var = torch.zeros(dim), torch.ones(dim)

    def __call__(self, x):
        if self.training:
            if x.ndim == 2:
                dim = 0
            elif x.ndim == 3:
                dim = (0, 1)
            xmean = x.mean(dim, keepdim=True)
            xvar = x.var(dim, keepdim=True)
        else:
            xmean, xvar = self.running_mean, self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


class Embedding:
    def __init__(self, num_embeddings, embedding_dim):
        self.weight = torch.randn((num_embeddings, embedding_dim))

    def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

    def parameters(self):
        return [self.weight]


class FlattenConsecutive:
    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out

    def parameters(self):
        return []


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.out = x
        return self.out

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


torch.manual_seed(42)
vocab_size, block_size, n_embd, n_hidden = 27, 8, 10, 68
model = Sequential([
    Embedding(vocab_size, n_embd),
    FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    FlattenConsecutive(2), Linear(n_hidden * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    Linear(n_hidden, vocab_size),
])  # fmt: skip
with torch.no_grad():
    model.layers[-1].weight *= 0.1
parameters = model.parameters()
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

Xtr = torch.randint(0, vocab_size, (200, block_size))
Ytr = torch.randint(0, vocab_size, (200,))
ix = torch.randint(0, Xtr.shape[0], (4,))
Xb, Yb = Xtr[ix], Ytr[ix]
logits = model(Xb)
print(Xb.shape, Xb[:2], logits.shape)
for layer in model.layers:
    print(layer.__class__.__name__, ":", tuple(layer.out.shape))
print(model.layers[3].running_mean.shape, model.layers[3].out.stride(), model.layers[1].out.is_contiguous())

e = torch.randn(4, 8, 10)
explicit = torch.cat([e[:, ::2, :], e[:, 1::2, :]], dim=2)
print(explicit.shape, (e.view(4, 4, 20) == explicit).all(), e[:, ::2, :].stride(), e[:, 1::2, :].is_contiguous())
xx = torch.randn(32, 4, 68)
print(xx.mean((0, 1), keepdim=True).shape, xx.var((0, 1), keepdim=True).shape, xx.var([0, 1]).shape)
print(
    torch.allclose(xx.var((0, 1)), xx.reshape(-1, 68).var(0), atol=1e-5),
    xx.squeeze(1).shape,
    xx[:, :1].squeeze(1).shape,
)
print(
    torch.randn(4, 1, 5).squeeze((0, 1)).shape,
    torch.randn(1, 1).squeeze().shape,
    torch.randn(2, 1, 1).squeeze(-1).shape,
)

lossi = []
for i in range(20):
    ix = torch.randint(0, Xtr.shape[0], (32,))
    logits = model(Xtr[ix])
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 15 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    lossi.append(loss.log10().item())
print(round(lossi[0], 4), len(lossi), torch.tensor(lossi).view(-1, 5).mean(1))
for layer in model.layers:
    layer.training = False
with torch.no_grad():
    logits = model(Xtr[:50])
    print(round(F.cross_entropy(logits, Ytr[:50]).item(), 4))
print(model.layers[3].running_var.shape, model.layers[3].running_mean.requires_grad, model.layers[3].gamma.grad.shape)
try:
    FlattenConsecutive(3)(torch.randn(4, 8, 10))
except RuntimeError as err:
    print(type(err).__name__, err)
try:
    torch.randn(4, 8).var((0, 0))
except RuntimeError as err:
    print(type(err).__name__, err)
print(torch.randn(4, 8, 2).var((0, -2), correction=0).shape, torch.randn(4, 8, 2).mean((-1, 0)).shape)
print(torch.ones(3, 1).var(0), torch.ones(1).var(), torch.ones(1, 3).var(dim=(0, 1)), torch.ones(0).mean())
