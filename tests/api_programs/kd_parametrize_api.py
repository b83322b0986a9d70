"""torch.nn.utils.parametrize as compression code uses it: low-rank and masked weights, cached, transfer, remove."""

import torch

nn = torch.nn
F = torch.nn.functional
P = torch.nn.utils.parametrize
from torch.func import functional_call  # noqa: E402

torch.manual_seed(0)


class LowRank(nn.Module):
    """W = U @ V, stored as two factors (right_inverse returns a tuple)."""

    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def forward(self, U, V):
        return U @ V

    def right_inverse(self, W):
        U, S, Vh = torch.linalg.svd(W, full_matrices=False)
        r = self.rank
        return U[:, :r] * S[:r], Vh[:r]


class Mask(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask)

    def forward(self, W):
        return W * self.mask


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


lin = nn.Linear(6, 4)
w0 = lin.weight.detach().clone()
P.register_parametrization(lin, "weight", LowRank(2))
print(type(lin).__name__, P.type_before_parametrizations(lin).__name__)
print(P.is_parametrized(lin), P.is_parametrized(lin, "weight"), P.is_parametrized(lin, "bias"))
print(sorted(lin.state_dict().keys()))
print([tuple(t.shape) for t in (lin.parametrizations.weight.original0, lin.parametrizations.weight.original1)])
print("rank", torch.linalg.matrix_rank(lin.weight).item(), "err", round((lin.weight - w0).norm().item(), 4))
print(lin.parametrizations)

mask = (torch.arange(24).reshape(4, 6) % 3 != 0).float()
P.register_parametrization(lin, "weight", Mask(mask))
print("chain", len(lin.parametrizations.weight), "zeros", int((lin.weight == 0).sum()))
x = torch.randn(3, 6)
out = lin(x).sum()
out.backward()
g0 = lin.parametrizations.weight.original0.grad
print("grad0", tuple(g0.shape), round(g0.abs().sum().item(), 4))
print("param names", [n for n, _ in lin.named_parameters()])
print("buffer names", [n for n, _ in lin.named_buffers()])

with P.cached():
    a = lin.weight
    b = lin.weight
    print("cached same object", a is b)
print("uncached same object", lin.weight is lin.weight)

# transfer parametrizations to a fresh layer
other = nn.Linear(6, 4)
P.transfer_parametrizations_and_params(lin, other)
print(type(other).__name__, torch.allclose(other.weight, lin.weight))

# assignment goes through right_inverse of the whole chain
sym = nn.Linear(3, 3, bias=False)
P.register_parametrization(sym, "weight", Symmetric())
sym.weight = torch.arange(9.0).reshape(3, 3)
print("assigned", sym.weight.tolist())
print("original", sym.parametrizations.weight.original.tolist())
# functional_call: the plain name goes through right_inverse, the original's name is used as is
out = functional_call(sym, {"weight": torch.eye(3) * 2}, (torch.ones(1, 3),))
print("fc weight", out.tolist(), "original kept", sym.parametrizations.weight.original.tolist()[1])
out = functional_call(sym, {"parametrizations.weight.original": torch.ones(3, 3)}, (torch.ones(1, 3),))
print("fc original", out.tolist())


# unsafe parametrization that changes the shape
class Expand(nn.Module):
    def forward(self, X):
        return torch.cat([X, X], dim=0)


wide = nn.Linear(4, 2)
P.register_parametrization(wide, "weight", Expand(), unsafe=True)
print("unsafe shape", tuple(wide.weight.shape), tuple(wide.parametrizations.weight.original.shape))
print(
    "unsafe out", tuple(wide(torch.ones(1, 4)).shape) if False else tuple(F.linear(torch.ones(1, 4), wide.weight).shape)
)

# remove, keeping the value or the original
P.remove_parametrizations(sym, "weight", leave_parametrized=True)
print(type(sym).__name__, sym.weight.tolist()[0], isinstance(sym.weight, nn.Parameter))
P.remove_parametrizations(other, "weight", leave_parametrized=True)
print(type(other).__name__, P.is_parametrized(other), "rank", torch.linalg.matrix_rank(other.weight.detach()).item())

try:
    P.register_parametrization(nn.Linear(3, 3), "weight", Expand())
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    P.remove_parametrizations(nn.Linear(3, 3), "weight")
except Exception as e:
    print(type(e).__name__, e)
try:
    P.remove_parametrizations(lin, "weight", leave_parametrized=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    P.register_parametrization(nn.Linear(3, 3), "scale", Symmetric())
except Exception as e:
    print(type(e).__name__, e)
