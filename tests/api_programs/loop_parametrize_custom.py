"""torch.nn.utils.parametrize with hand-written modules, as training code registers them: symmetric and
skew-symmetric weights, a right_inverse that splits into several originals, stacked parametrizations, unsafe=True
shape changes, cached(), the state-dict keys they add, training through them and remove_parametrizations."""

import io

import torch
from torch import nn
from torch.nn.utils import parametrize

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class MatrixExponential(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return torch.matrix_exp(A - A.T)


class LowRank(nn.Module):
    """weight = U @ V; right_inverse hands back two originals."""

    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def forward(self, U, V):
        return U @ V

    def right_inverse(self, W):
        U, S, Vh = torch.linalg.svd(W, full_matrices=False)
        r = self.rank
        return U[:, :r] * S[:r].sqrt(), S[:r].sqrt()[:, None] * Vh[:r]


class Scale(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s

    def forward(self, X):
        return X * self.s

    def right_inverse(self, X):
        return X / self.s


class PadCols(nn.Module):
    """Changes the shape: only allowed with unsafe=True."""

    def forward(self, X):
        return torch.cat([X, X.sum(1, keepdim=True)], dim=1)


lin = nn.Linear(4, 4)
parametrize.register_parametrization(lin, "weight", Symmetric())
print(type(lin).__name__, type(lin).__mro__[1].__name__)
print(lin)
W = lin.weight
print("symmetric", torch.allclose(W, W.T), W)
print(sorted(lin.state_dict().keys()))
print([n for n, _ in lin.named_parameters()])
print("is_parametrized", parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "weight"),
      parametrize.is_parametrized(lin, "bias"))
print(type(lin.parametrizations).__name__, type(lin.parametrizations.weight).__name__,
      len(lin.parametrizations.weight))

# assigning to the parametrized weight needs a right_inverse
try:
    with torch.no_grad():
        lin.weight = torch.arange(16.0).view(4, 4)
except RuntimeError as e:
    print("RuntimeError", e)


class SymmetricInv(Symmetric):
    def right_inverse(self, X):
        return X.triu()


lin = nn.Linear(4, 4)
parametrize.register_parametrization(lin, "weight", SymmetricInv())
with torch.no_grad():
    lin.weight = torch.arange(16.0).view(4, 4)
print("original", lin.parametrizations.weight.original)
print("weight", lin.weight)

# stack a second parametrization on the same tensor
parametrize.register_parametrization(lin, "weight", Scale(2.0))
print("stacked", len(lin.parametrizations.weight), lin.weight[0])
with torch.no_grad():
    lin.weight = torch.eye(4) * 4
print("orig after assign", lin.parametrizations.weight.original.diag())

# orthogonal via matrix exponential: train a rotation to map e1 to a target
rot = nn.Linear(3, 3, bias=False)
parametrize.register_parametrization(rot, "weight", MatrixExponential())
opt = torch.optim.SGD(rot.parameters(), lr=0.5)
target = torch.tensor([[0.0, 0.6, 0.8]])
x = torch.tensor([[1.0, 0.0, 0.0]])
for step in range(6):
    opt.zero_grad()
    loss = ((rot(x) - target) ** 2).sum()
    loss.backward()
    opt.step()
    print("rot step", step, round(loss.item(), 4))
Q = rot.weight
print("orthogonal", round((Q @ Q.T - torch.eye(3)).abs().max().item(), 4), round(torch.det(Q).item(), 4))

# several originals
torch.manual_seed(1)
lr_lin = nn.Linear(5, 4, bias=False)
W0 = lr_lin.weight.detach().clone()
parametrize.register_parametrization(lr_lin, "weight", LowRank(2))
p = lr_lin.parametrizations.weight
print("originals", p.original0.shape, p.original1.shape)
print(sorted(lr_lin.state_dict().keys()))
print("rank", torch.linalg.matrix_rank(lr_lin.weight.detach()).item())
S = torch.linalg.svdvals(W0)
print("approx err", round((lr_lin.weight - W0).norm().item(), 4), round(S[2:].norm().item(), 4))

# cached(): the parametrization runs once inside the context
calls = []


class Counting(nn.Module):
    def forward(self, X):
        calls.append(1)
        return X * 1.0


c = nn.Linear(2, 2)
parametrize.register_parametrization(c, "weight", Counting())
calls.clear()
x2 = torch.ones(3, 2)
c(x2)
c(x2)
print("uncached calls", len(calls))
calls.clear()
with parametrize.cached():
    c(x2)
    c(x2)
    _ = c.weight
print("cached calls", len(calls))

# unsafe shape change
u = nn.Linear(3, 2)
try:
    parametrize.register_parametrization(u, "weight", PadCols())
except ValueError as e:
    print("ValueError", str(e).splitlines()[0])
parametrize.register_parametrization(u, "weight", PadCols(), unsafe=True)
print("unsafe shape", tuple(u.weight.shape), tuple(u.parametrizations.weight.original.shape))

# save/load a parametrized model's state into a fresh one
buf = io.BytesIO()
torch.save(lin.state_dict(), buf)
buf.seek(0)
fresh = nn.Linear(4, 4)
parametrize.register_parametrization(fresh, "weight", SymmetricInv())
parametrize.register_parametrization(fresh, "weight", Scale(2.0))
print(fresh.load_state_dict(torch.load(buf, weights_only=True)))
print("same weight", torch.equal(fresh.weight, lin.weight))

# removing: keep the parametrized value, or the original
parametrize.remove_parametrizations(lin, "weight", leave_parametrized=True)
print(type(lin).__name__, [n for n, _ in lin.named_parameters()], lin.weight.diag())
parametrize.remove_parametrizations(fresh, "weight", leave_parametrized=False)
print(type(fresh).__name__, fresh.weight.diag())
try:
    parametrize.remove_parametrizations(fresh, "weight")
except ValueError as e:
    print("ValueError", e)


# the consistency checks on registration and on assignment
class ToDouble(nn.Module):
    def forward(self, X):
        return X

    def right_inverse(self, X):
        return X.double()


class FirstRow(nn.Module):
    def forward(self, X):
        return X

    def right_inverse(self, X):
        return X[:1]


for bad in (ToDouble(), FirstRow()):
    for stacked in (False, True):
        m = nn.Linear(2, 2)
        if stacked:
            parametrize.register_parametrization(m, "weight", Symmetric())
        try:
            parametrize.register_parametrization(m, "weight", bad)
        except ValueError as e:
            print(type(bad).__name__, "stacked" if stacked else "first", "ValueError", e)
lr_lin2 = nn.Linear(5, 4, bias=False)
parametrize.register_parametrization(lr_lin2, "weight", LowRank(2))
try:
    lr_lin2.weight = torch.ones(4, 5, dtype=torch.float64)
except ValueError as e:
    print("ValueError", e)
