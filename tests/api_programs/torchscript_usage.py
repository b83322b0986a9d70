"""TorchScript as older deployment code uses it: torch.jit.script on functions and modules with type
annotations, torch.jit.trace of a module with an example input (TracerWarning filtered), isinstance checks
against torch.jit.ScriptModule before export, shared parameters between the scripted and eager modules,
torch.jit.fork/wait for parallel branches, torch.jit.isinstance refinement, @torch.jit.ignore/unused,
torch.jit.is_scripting() fallbacks, and a scripted module trained for a few steps."""

# ruff: noqa: UP045  (TorchScript's own Optional annotations, kept as deployment code writes them)

import warnings
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
rng = np.random.default_rng(44)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=4):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init_(m, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    return m


@torch.jit.script
def masked_mean(x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
    if mask is None:
        return x.mean(dim=1)
    m = mask.unsqueeze(-1).to(x.dtype)
    return (x * m).sum(dim=1) / m.sum(dim=1).clamp(min=1.0)


class Pooler(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.scale: float = 0.5

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        pooled = masked_mean(x, mask)
        if torch.jit.is_scripting():
            out = torch.tanh(self.proj(pooled))
        else:
            out = torch.tanh(self.proj(pooled))
        return out * self.scale + self.debug_hook(pooled)

    @torch.jit.ignore
    def debug_hook(self, t: torch.Tensor) -> torch.Tensor:
        return t * 0.0

    @torch.jit.unused
    def export_only(self, t):
        return t


x = T(2, 5, 4)
mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
print("masked_mean", r(masked_mean(x, mask)), r(masked_mean(x)))

pool = init_(Pooler(4), 1)
spool = torch.jit.script(pool)
print("is_script", isinstance(spool, torch.jit.ScriptModule), isinstance(pool, torch.jit.ScriptModule),
      isinstance(spool, torch.nn.Module))
print("same_out", torch.allclose(spool(x, mask), pool(x, mask)), r(spool(x, mask)))
print("shared_params", spool.proj.weight.data_ptr() == pool.proj.weight.data_ptr(), spool.scale)
print("keys", list(spool.state_dict().keys()))
print(spool)


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Conv1d(3, 4, 3, padding=1), nn.ReLU())
        self.b = nn.Sequential(nn.Conv1d(3, 4, 5, padding=2), nn.Tanh())
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        fa = torch.jit.fork(self.a, x)
        fb = torch.jit.fork(self.b, x)
        h = torch.cat([torch.jit.wait(fa), torch.jit.wait(fb)], dim=1)
        return self.head(h.amax(dim=-1))


tower = init_(Tower(), 2)
sig = T(3, 3, 10)
traced = torch.jit.trace(tower, sig)
print("traced", isinstance(traced, torch.jit.ScriptModule), torch.allclose(traced(sig), tower(sig), atol=1e-6))
print(traced)
print("traced_other_batch", r(traced(sig[:1])), tuple(traced(T(5, 3, 10)).shape))

# training a scripted module updates the eager module's parameters (they are the same tensors)
stower = torch.jit.script(Tower())
stower.load_state_dict(tower.state_dict())
opt = torch.optim.Adam(stower.parameters(), lr=0.05)
y = torch.tensor([0, 1, 1])
for step in range(4):
    loss = F.cross_entropy(stower(sig), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("train", step, round(loss.item(), 4))
print("trained_head", r(stower.head.bias), stower.training)
stower.eval()
print("eval", stower.training, r(stower(sig).softmax(-1)))


# torch.jit.isinstance refines containers in scripted code; in eager it checks element types
def describe(obj):
    if torch.jit.isinstance(obj, list[int]):
        return "ints"
    if torch.jit.isinstance(obj, dict[str, torch.Tensor]):
        return "tensor dict"
    if torch.jit.isinstance(obj, tuple[int, str]):
        return "pair"
    return "other"


print("describe", [describe(o) for o in ([1, 2], {"w": torch.ones(1)}, (3, "x"), [1.5], {"w": 1})])
print("flags", torch.jit.is_scripting(), torch.jit.is_tracing(), issubclass(torch.jit.TracerWarning, Warning))
