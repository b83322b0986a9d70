"""The parametrizations tutorial: Symmetric and Skew parametrizations on nn.Linear, the module's class swap
(ParametrizedLinear) and its repr, original and parametrizations.weight, caching with P.cached(), chaining two
parametrizations, right_inverse for initialization (assigning to the weight), a parametrization that changes the
parameter's shape, remove_parametrizations with leave_parametrized, and state_dict round trips."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize

rng = np.random.default_rng(21)


def T(*shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def fill(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.5)
    return m


def r(t):
    return np.round(t.detach().double().numpy(), 4).tolist()


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


layer = fill(nn.Linear(3, 3))
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
print(torch.allclose(A, A.T))
print(A.shape, type(layer).__name__, type(layer).__mro__[1].__name__)
print(layer)
print(layer.parametrizations)
print(layer.parametrizations.weight)
print(type(layer.parametrizations.weight).__name__, r(layer.parametrizations.weight.original)[0])
print(sorted(layer.state_dict().keys()))

layer = fill(nn.Linear(3, 3))
parametrize.register_parametrization(layer, "weight", Skew())
X = layer.weight
print("skew", torch.allclose(X, -X.T), r(torch.diagonal(X)))


# caching: the weight is computed once inside the context
class NoisyParametrization(nn.Module):
    calls = 0

    def forward(self, X):
        NoisyParametrization.calls += 1
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", NoisyParametrization())
for _ in range(3):
    layer.weight
print("uncached calls", NoisyParametrization.calls)
NoisyParametrization.calls = 0
with parametrize.cached():
    for _ in range(3):
        layer.weight
print("cached calls", NoisyParametrization.calls, parametrize.is_parametrized(layer, "weight"),
      parametrize.is_parametrized(layer, "bias"))


# concatenating parametrizations: a matrix exponential of a skew matrix is orthogonal
class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


layer_orthogonal = fill(nn.Linear(3, 3))
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
Q = layer_orthogonal.weight
print("orthogonal", torch.dist(Q.T @ Q, torch.eye(3)) < 1e-5, len(layer_orthogonal.parametrizations.weight))
print([type(p).__name__ for p in layer_orthogonal.parametrizations.weight])

layer_spd = fill(nn.Linear(3, 3))
parametrize.register_parametrization(layer_spd, "weight", Symmetric())
parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
X = layer_spd.weight
print("spd", torch.allclose(X, X.T, atol=1e-6), (torch.linalg.eigvalsh(X) > 0.).all().item())


# initializing through right_inverse
class Symmetric2(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric2())
X = T(3, 3)
X = X + X.T
print("sym init", torch.allclose(layer.weight, layer.weight.T))
layer.weight = X
print("assigned", torch.allclose(layer.weight, X), r(layer.parametrizations.weight.original)[2])
try:
    layer_plain = nn.Linear(3, 3)
    parametrize.register_parametrization(layer_plain, "weight", Symmetric())
    layer_plain.weight = X
except RuntimeError as e:
    print("RuntimeError", e)


# a parametrization that changes the shape: a low-rank weight U V^T from one (n+m, r) original
class LowRank(nn.Module):
    def __init__(self, n, m):
        super().__init__()
        self.n, self.m = n, m

    def forward(self, UV):
        U, V = UV[: self.n], UV[self.n:]
        return U @ V.T

    def right_inverse(self, W):
        U, S, Vh = torch.linalg.svd(W, full_matrices=False)
        k = 2
        return torch.cat([U[:, :k] * S[:k].sqrt(), Vh[:k].T * S[:k].sqrt()])


lr = fill(nn.Linear(5, 4))
W0 = lr.weight.detach().clone()
parametrize.register_parametrization(lr, "weight", LowRank(4, 5), unsafe=True)
print("low rank", tuple(lr.parametrizations.weight.original.shape), tuple(lr.weight.shape),
      torch.linalg.matrix_rank(lr.weight).item())
print("best rank-2", round(torch.dist(lr.weight, W0).item(), 4),
      round(torch.linalg.svdvals(W0)[2:].norm().item(), 4))

# training the original through the parametrization
opt = torch.optim.SGD(lr.parameters(), lr=0.05)
x, y = T(8, 5), T(8, 4)
for step in range(3):
    opt.zero_grad()
    loss = ((lr(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), lr.parametrizations.weight.original.grad is not None)

# removing: keep the current value, or go back to the original
layer = fill(nn.Linear(3, 3))
parametrize.register_parametrization(layer, "weight", Symmetric())
sym = layer.weight.detach().clone()
orig = layer.parametrizations.weight.original.detach().clone()
parametrize.remove_parametrizations(layer, "weight")
print("removed", type(layer).__name__, torch.equal(layer.weight, sym), type(layer.weight).__name__)
layer = nn.Linear(3, 3)
with torch.no_grad():
    layer.weight.copy_(orig)
parametrize.register_parametrization(layer, "weight", Symmetric())
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
print("left original", torch.equal(layer.weight, orig), hasattr(layer, "parametrizations"))

# state_dict of a parametrized model and loading it into another
src = fill(nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 2)))
parametrize.register_parametrization(src[0], "weight", Symmetric())
dst = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 2))
parametrize.register_parametrization(dst[0], "weight", Symmetric())
print(list(src.state_dict().keys()))
print(dst.load_state_dict(src.state_dict()))
inp = T(2, 3)
print("same output", torch.allclose(src(inp), dst(inp)), r(dst(inp)))
try:
    nn.Sequential(nn.Linear(3, 3)).load_state_dict(src.state_dict(), strict=True)
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0])
try:
    parametrize.remove_parametrizations(nn.Linear(2, 2), "weight")
except ValueError as e:
    print("ValueError", e)
