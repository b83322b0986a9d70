"""torch.nn.utils.parametrize as libraries use it: symmetric and positive constraints with right_inverse,
stacked parametrizations, cached(), original tensors in the state dict, removal with and without
leave_parametrized, and the errors of misuse."""

import torch
from torch import nn
import torch.nn.utils.parametrize as P

torch.manual_seed(2)
torch.set_printoptions(precision=4)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class Positive(nn.Module):
    def forward(self, X):
        return X.exp()

    def right_inverse(self, Y):
        return Y.log()


class CountingSkew(nn.Module):
    calls = 0

    def forward(self, X):
        CountingSkew.calls += 1
        A = X.triu(1)
        return A - A.T


lin = nn.Linear(3, 3)
w0 = lin.weight.detach().clone()
P.register_parametrization(lin, "weight", Symmetric())
print(lin)
print("is parametrized", P.is_parametrized(lin), P.is_parametrized(lin, "weight"), P.is_parametrized(lin, "bias"))
print("symmetric", torch.allclose(lin.weight, lin.weight.T))
print("original", lin.parametrizations.weight.original)
print("triu of w0", torch.allclose(lin.parametrizations.weight.original, w0.triu()))
print(sorted(lin.state_dict().keys()))
print([n for n, _ in lin.named_parameters()])
print(type(lin).__name__, type(lin).__mro__[1].__name__)

# assigning to a parametrized tensor goes through right_inverse
with torch.no_grad():
    lin.weight = torch.eye(3) * 2 + torch.ones(3, 3)
print("after assign", lin.weight)
print("original now", lin.parametrizations.weight.original)

# gradients land on the original
x = torch.randn(4, 3)
lin(x).pow(2).sum().backward()
print("grad", lin.parametrizations.weight.original.grad)

# stack a second parametrization
b = nn.Linear(2, 2)
P.register_parametrization(b, "bias", Positive())
with torch.no_grad():
    b.bias = torch.tensor([0.5, 2.0])
print("pos bias", b.bias, b.parametrizations.bias.original)
P.register_parametrization(b, "bias", Positive())
print("doubly", b.bias)
print(b.parametrizations.bias)

# caching: the parametrization runs once within cached()
sk = nn.Linear(4, 4, bias=False)
P.register_parametrization(sk, "weight", CountingSkew())
CountingSkew.calls = 0
y = torch.randn(2, 4)
sk(y)
sk(y)
print("uncached calls", CountingSkew.calls)
CountingSkew.calls = 0
with P.cached():
    sk(y)
    sk(y)
    _ = sk.weight + sk.weight
print("cached calls", CountingSkew.calls)

# state dict round trip into another parametrized module
other = nn.Linear(3, 3)
P.register_parametrization(other, "weight", Symmetric())
print(other.load_state_dict(lin.state_dict()))
print("equal", torch.equal(other.weight, lin.weight))
plain = nn.Linear(3, 3)
res = plain.load_state_dict(lin.state_dict(), strict=False)
print(res)

# removal
w_param = lin.weight.detach().clone()
P.remove_parametrizations(lin, "weight", leave_parametrized=True)
print(lin)
print("kept value", torch.equal(lin.weight.detach(), w_param), type(lin.weight).__name__)
print(sorted(lin.state_dict().keys()))
print("class restored", type(lin).__name__, P.is_parametrized(lin))

orig = b.parametrizations.bias.original.detach().clone()
P.remove_parametrizations(b, "bias", leave_parametrized=False)
print("original kept", torch.equal(b.bias.detach(), orig), b.bias)

# errors
try:
    P.remove_parametrizations(lin, "weight")
except ValueError as e:
    print("ValueError", e)


class Shrink(nn.Module):
    def forward(self, X):
        return X[:1]


try:
    P.register_parametrization(nn.Linear(2, 2), "weight", Shrink())
except ValueError as e:
    print("ValueError", str(e).splitlines()[0])

# parametrization on a buffer
m = nn.BatchNorm1d(3)
P.register_parametrization(m, "running_var", Positive())
print(m.running_var, [n for n, _ in m.named_buffers()])
print(sorted(m.state_dict().keys()))
