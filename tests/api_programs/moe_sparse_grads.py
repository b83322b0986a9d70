"""Which parameters an MoE step touches: experts no token reached keep grad None (ModuleList) or get zero slices
(3-D weights), AdamW creates state only for parameters with grads, zero_grad(set_to_none=False) materialises zeros,
autograd.grad with allow_unused/materialize_grads, grad hooks that count expert updates, and the grad_fn chain of a
routed forward."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.up = nn.Linear(d, h)
        self.down = nn.Linear(h, d)

    def forward(self, x):
        return self.down(F.relu(self.up(x)))


class TopOneMoE(nn.Module):
    def __init__(self, d=4, h=6, n=4):
        super().__init__()
        self.gate = nn.Linear(d, n, bias=False)
        self.experts = nn.ModuleList(Expert(d, h) for _ in range(n))
        self.w3d = nn.Parameter(torch.ones(n, d, d) * 0.1)

    def forward(self, x):
        probs = self.gate(x).softmax(-1)
        gate, idx = probs.max(-1)
        out = torch.zeros_like(x)
        for e in idx.unique().tolist():
            rows = (idx == e).nonzero().squeeze(1)
            out = out.index_add(0, rows, self.experts[e](x[rows]) * gate[rows, None])
        out3d = torch.bmm(x.unsqueeze(1), self.w3d[idx]).squeeze(1)
        return out + out3d, idx


torch.manual_seed(0)
moe = TopOneMoE()
with torch.no_grad():
    moe.gate.weight.copy_(torch.tensor([[2.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]))
x = torch.tensor([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [1.0, 0.5, 0, 0], [0, 1.0, 0.2, 0]])
y, idx = moe(x)
print("chosen:", idx.tolist(), "grad_fn:", y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
hits = {}
for i, e in enumerate(moe.experts):
    e.up.weight.register_hook(lambda g, i=i: hits.__setitem__(i, hits.get(i, 0) + 1))
y, idx = moe(x)
y.sum().backward()
print("hook hits:", dict(sorted(hits.items())))
print("grad is None:", {n: p.grad is None for n, p in moe.named_parameters() if "up.weight" in n})
print("w3d grad per expert:", moe.w3d.grad.abs().sum(dim=(1, 2)).round(decimals=4).tolist())
print("gate grad nonzero rows:", (moe.gate.weight.grad.abs().sum(1) > 0).tolist())

opt = torch.optim.AdamW(moe.parameters(), lr=0.1, weight_decay=0.01)
before = {n: p.detach().clone() for n, p in moe.named_parameters()}
opt.step()
changed = [n for n, p in moe.named_parameters() if not torch.equal(p, before[n])]
print("changed:", changed)
print("optimizer state entries:", len(opt.state), "of", sum(1 for _ in moe.parameters()))
print("state keys:", sorted(opt.state[moe.experts[0].up.weight].keys()),
      opt.state[moe.experts[0].up.weight]["step"])

opt.zero_grad(set_to_none=False)
print("after zero_grad(False):", [p.grad is None for p in moe.experts[2].parameters()],
      moe.experts[0].up.weight.grad.abs().sum().item())
opt.zero_grad()
print("after zero_grad():", all(p.grad is None for p in moe.parameters()))

y, idx = moe(x)
params = [moe.experts[0].up.weight, moe.experts[3].up.weight, moe.w3d]
g0, g3, gw = torch.autograd.grad(y.sum(), params, allow_unused=True, retain_graph=True)
print("allow_unused:", g0 is None, g3 is None, tuple(gw.shape))
g0, g3, gw = torch.autograd.grad(y.sum(), params, allow_unused=True, materialize_grads=True)
print("materialize_grads:", g3.abs().sum().item(), tuple(g3.shape), g0.abs().sum().round(decimals=4).item())
try:
    torch.autograd.grad(moe(x)[0].sum(), [moe.experts[3].up.weight])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(moe(x)[0].sum(), [moe.experts[3].up.weight], allow_unused=False, materialize_grads=True)
except Exception as e:
    print(type(e).__name__, e)

# clipping ignores parameters without grads; get_total_norm over only the grads that exist
y, _ = moe(x)
(y ** 2).sum().backward()
grads = [p.grad for p in moe.parameters() if p.grad is not None]
print("grads present:", len(grads), "total norm:", round(torch.nn.utils.get_total_norm(grads).item(), 4))
norm = torch.nn.utils.clip_grad_norm_(moe.parameters(), 0.5)
print("clipped from:", round(norm.item(), 4), "now:", round(torch.nn.utils.get_total_norm(
    [p.grad for p in moe.parameters() if p.grad is not None]).item(), 4))
try:
    torch.nn.utils.clip_grad_value_(moe.experts[3].parameters(), 0.1)
except Exception as e:
    print(type(e).__name__, e)
vec = torch.nn.utils.parameters_to_vector(moe.experts[0].parameters())
print("expert 0 vector:", vec.shape, vec.grad_fn.name())
