"""Experts stored three ways and converted between them: an nn.ModuleList of SwiGLU MLPs, fused 3-D parameters run
by einsum/bmm/baddbmm, and torch.func.stack_module_state + vmap(functional_call); sparse upcycling of a dense MLP
into experts, state_dict surgery between the layouts, and parameter counts (total against active)."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap


class SwiGLU(nn.Module):
    def __init__(self, d=6, h=8):
        super().__init__()
        self.gate_up = nn.Linear(d, 2 * h, bias=False)
        self.down = nn.Linear(h, d, bias=False)

    def forward(self, x):
        g, u = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(g) * u)


class FusedExperts(nn.Module):
    def __init__(self, n=4, d=6, h=8):
        super().__init__()
        self.gate_up_proj = nn.Parameter(torch.zeros(n, d, 2 * h))
        self.down_proj = nn.Parameter(torch.zeros(n, h, d))

    def forward(self, x):  # x: (n, tokens, d), one slab per expert
        g, u = torch.bmm(x, self.gate_up_proj).chunk(2, dim=-1)
        return torch.bmm(F.silu(g) * u, self.down_proj)


torch.manual_seed(0)
dense = SwiGLU()
experts = nn.ModuleList(copy.deepcopy(dense) for _ in range(4))
with torch.no_grad():  # upcycling: copies of the dense MLP, each nudged so that they can diverge
    for i, e in enumerate(experts):
        for p in e.parameters():
            p.add_(torch.cos(torch.arange(p.numel(), dtype=torch.float32).view_as(p) * (i + 1)) * 0.01)
print(experts)
print("distinct experts:", len({round(e.down.weight.sum().item(), 6) for e in experts}))

fused = FusedExperts()
sd = {"gate_up_proj": torch.stack([e.gate_up.weight.t() for e in experts]),
      "down_proj": torch.stack([e.down.weight.t() for e in experts])}
print(fused.load_state_dict(sd))
x = torch.sin(torch.arange(4 * 3 * 6, dtype=torch.float32).view(4, 3, 6) * 0.3)
y_loop = torch.stack([e(x[i]) for i, e in enumerate(experts)])
y_fused = fused(x)
print("fused == loop:", torch.allclose(y_fused, y_loop, atol=1e-6))
y_ein = torch.einsum("eth,ehd->etd", F.silu(torch.einsum("etd,edh->eth", x, fused.gate_up_proj[..., :8]))
                     * torch.einsum("etd,edh->eth", x, fused.gate_up_proj[..., 8:]), fused.down_proj)
print("einsum == loop:", torch.allclose(y_ein, y_loop, atol=1e-6))
bias = torch.linspace(-1, 1, 4 * 16).view(4, 1, 16)
gu = torch.baddbmm(bias, x, fused.gate_up_proj, beta=0.5, alpha=2.0)
print("baddbmm:", tuple(gu.shape), round(gu.sum().item(), 4), gu.grad_fn.name())

params, buffers = stack_module_state(list(experts))
print("stacked:", {k: tuple(v.shape) for k, v in params.items()}, buffers)
base = copy.deepcopy(experts[0]).to("meta")


def run_one(p, b, xi):
    return functional_call(base, (p, b), (xi,))


y_vmap = vmap(run_one)(params, buffers, x)
print("vmap == loop:", torch.allclose(y_vmap, y_loop, atol=1e-6), y_vmap.shape)
print("same input to all:", vmap(run_one, in_dims=(0, 0, None))(params, buffers, x[0]).shape)

# back from fused 3-D weights to per-expert state dicts
back = {}
for i, (gu_w, d_w) in enumerate(zip(fused.gate_up_proj.unbind(0), fused.down_proj.unbind(0))):
    back[f"{i}.gate_up.weight"] = gu_w.t().contiguous()
    back[f"{i}.down.weight"] = d_w.t()
restored = nn.ModuleList(SwiGLU() for _ in range(4))
print(restored.load_state_dict(back))
print("round trip:", all(torch.equal(a, b) for a, b in zip(restored.parameters(), experts.parameters())))
bad = dict(back)
bad["4.down.weight"] = bad.pop("3.down.weight")
try:
    restored.load_state_dict(bad)
except Exception as e:
    print(type(e).__name__, e)
print(restored.load_state_dict(bad, strict=False))

total = sum(p.numel() for p in experts.parameters())
per_expert = sum(p.numel() for p in experts[0].parameters())
router = nn.Linear(6, 4, bias=False)
print("total:", total + router.weight.numel(), "active (top-2):", 2 * per_expert + router.weight.numel())
print("down params:", sum(p.numel() for n, p in experts.named_parameters() if n.endswith("down.weight")))
print("fused named:", [(n, tuple(p.shape)) for n, p in fused.named_parameters()])
try:
    torch.bmm(x, fused.gate_up_proj[:3])
except Exception as e:
    print(type(e).__name__, e)
try:
    stack_module_state([experts[0], nn.Linear(6, 6)])
except Exception as e:
    print(type(e).__name__, e)
