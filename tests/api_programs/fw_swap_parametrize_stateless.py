"""Reparameterizing modules the way libraries do: torch.utils.swap_tensors (values and identity),
nn.utils.parametrize with right_inverse (positive, symmetric and unit-norm weights, several parametrizations
chained, caching, state-dict keys, removal with leave_parametrized), and torch.func.functional_call /
torch.nn.utils.stateless.functional_call with tied weights, strict checking and buffers."""

import torch
from torch import nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as P
from torch.func import functional_call
from torch.nn.utils import stateless

torch.set_printoptions(precision=4)


def det(*shape, k=0.7):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * k + 0.2).reshape(shape)


# swap_tensors
a = torch.arange(4.0)
b = torch.full((2, 3), 7.0)
ida, idb = id(a), id(b)
torch.utils.swap_tensors(a, b)
print("swapped", a.shape, b.shape, id(a) == ida, a.sum().item(), b.sum().item())
p = nn.Parameter(torch.ones(2))
q = nn.Parameter(torch.zeros(2))
torch.utils.swap_tensors(p, q)
print("params swapped", p, q.requires_grad)
lin = nn.Linear(2, 2)
w_obj = lin.weight
torch.utils.swap_tensors(lin.weight, nn.Parameter(det(2, 2)))
print("module weight swapped in place of identity", lin.weight is w_obj, lin.weight)


# parametrizations with right_inverse
class Positive(nn.Module):
    def forward(self, x):
        return F.softplus(x)

    def right_inverse(self, y):
        return torch.log(torch.expm1(y))


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class UnitRows(nn.Module):
    def forward(self, W):
        return W / W.norm(dim=1, keepdim=True)


layer = nn.Linear(3, 3)
with torch.no_grad():
    layer.weight.copy_(det(3, 3) + 1.5)
P.register_parametrization(layer, "weight", Symmetric())
print("symmetric", torch.equal(layer.weight, layer.weight.T), type(layer).__name__, P.is_parametrized(layer))
print("original", layer.parametrizations.weight.original)
layer.weight = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]])
print("after assignment via right_inverse", layer.parametrizations.weight.original)
print("keys", list(layer.state_dict()))

pos = nn.Linear(2, 2, bias=False)
with torch.no_grad():
    pos.weight.copy_(torch.tensor([[0.5, 1.0], [2.0, 0.1]]))
P.register_parametrization(pos, "weight", Positive())
print("positive weight equals assigned", torch.allclose(pos.weight, torch.tensor([[0.5, 1.0], [2.0, 0.1]])))
print("unconstrained", pos.parametrizations.weight.original)
opt = torch.optim.SGD(pos.parameters(), lr=0.05)
for _ in range(3):
    loss = (pos(torch.ones(1, 2)) + 10).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("stays positive", pos.weight.min().item() > 0, pos.weight)

chained = nn.Linear(4, 2, bias=False)
with torch.no_grad():
    chained.weight.copy_(det(2, 4))
P.register_parametrization(chained, "weight", UnitRows())
P.register_parametrization(chained, "weight", Positive(), unsafe=True)
print("chain", chained.parametrizations.weight, chained.weight.norm(dim=1))
calls = []


class Counting(nn.Module):
    def forward(self, x):
        calls.append(1)
        return x * 2


cached = nn.Linear(2, 2)
P.register_parametrization(cached, "bias", Counting())
with P.cached():
    for _ in range(4):
        cached.bias
print("cached calls", len(calls))
cached.bias
cached.bias
print("uncached calls", len(calls))
b_before = cached.bias.detach().clone()
P.remove_parametrizations(cached, "bias", leave_parametrized=True)
print("removed", P.is_parametrized(cached), torch.equal(cached.bias, b_before), type(cached.bias).__name__)
P.remove_parametrizations(layer, "weight", leave_parametrized=False)
print("removed original", layer.weight)
try:
    P.remove_parametrizations(layer, "weight")
except ValueError as e:
    print("ValueError:", e)


class BadInverse(nn.Module):
    def forward(self, x):
        return x[:1]


try:
    P.register_parametrization(nn.Linear(2, 2), "weight", BadInverse())
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])


# functional_call with tied weights
class TiedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.out = nn.Linear(3, 5, bias=False)
        self.out.weight = self.emb.weight
        self.register_buffer("temp", torch.tensor(2.0))

    def forward(self, ids):
        return self.out(self.emb(ids)) / self.temp


lm = TiedLM()
with torch.no_grad():
    lm.emb.weight.copy_(det(5, 3))
ids = torch.tensor([0, 3, 4])
print("named params (dedup)", [n for n, _ in lm.named_parameters()])
print("named params (all)", [n for n, _ in lm.named_parameters(remove_duplicate=False)])
new_emb = det(5, 3, k=1.9)
out_tied = functional_call(lm, {"emb.weight": new_emb}, (ids,))
ref = new_emb[ids] @ new_emb.t() / 2.0
print("tied replaced both", torch.allclose(out_tied, ref))
out_untied = functional_call(lm, {"emb.weight": new_emb}, (ids,), tie_weights=False)
print("tie_weights=False keeps out.weight", torch.allclose(out_untied, new_emb[ids] @ lm.emb.weight.t() / 2.0))
try:
    functional_call(lm, {"emb.weight": new_emb, "out.weight": new_emb * 2}, (ids,))
except ValueError as e:
    print("ValueError:", str(e)[:110])
print("buffers too", functional_call(lm, ({"emb.weight": new_emb}, {"temp": torch.tensor(4.0)}), (ids,))[0])
try:
    functional_call(lm, {"emb.weight": new_emb}, (ids,), strict=True)
except RuntimeError as e:
    print("RuntimeError:", str(e).replace("\n", " | ")[:120])
print("stateless.functional_call", torch.allclose(stateless.functional_call(lm, {"emb.weight": new_emb}, (ids,)),
                                                   out_tied))
print("module unchanged", torch.equal(lm.emb.weight, det(5, 3)), lm.temp.item())
grads = torch.autograd.grad(functional_call(lm, {"emb.weight": new_emb.requires_grad_()}, (ids,)).sum(), new_emb)
print("grad through both uses", grads[0])
