"""Modern-code idioms: custom Optimizer and LRScheduler subclasses, pytree, sdpa_kernel, tf32 flags, jit,
Tensor subclasses."""

import math
import numpy as np
import torch
from torch.distributions import constraints
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch import nn
import torch.nn.functional as F
from torch.utils._pytree import tree_map, tree_flatten, tree_unflatten

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class Lion(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data.mul_(1 - group["lr"] * group["weight_decay"])
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)
                exp_avg = state["exp_avg"]
                b1, b2 = group["betas"]
                update = exp_avg * b1 + p.grad * (1 - b1)
                p.add_(torch.sign(update), alpha=-group["lr"])
                exp_avg.mul_(b2).add_(p.grad, alpha=1 - b2)
        return loss


class WarmupCosine(torch.optim.lr_scheduler.LRScheduler):
    def __init__(self, optimizer, warmup, total, last_epoch=-1):
        self.warmup, self.total = warmup, total
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        s = self.last_epoch
        if s < self.warmup:
            return [b * (s + 1) / self.warmup for b in self.base_lrs]
        p = (s - self.warmup) / max(1, self.total - self.warmup)
        return [b * 0.5 * (1 + math.cos(math.pi * p)) for b in self.base_lrs]


w = nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
opt = Lion([w], lr=0.1, weight_decay=0.01)
sch = WarmupCosine(opt, 2, 6)
lrs = []
for i in range(6):
    opt.zero_grad()
    (w**2).sum().backward()
    opt.step()
    sch.step()
    lrs.append(round(sch.get_last_lr()[0], 5))
print("lion", r(w), lrs, sorted(opt.state_dict()["state"][0].keys()), opt.state_dict()["param_groups"][0]["betas"])
lam = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5**s)
print("lambda_sd", sorted(lam.state_dict().keys()))
tree = {"a": torch.ones(2), "b": [torch.zeros(1), (torch.full((1,), 3.0), 5)]}
mapped = tree_map(lambda t: t * 2 if isinstance(t, torch.Tensor) else t, tree)
leaves, spec = tree_flatten(tree)
print("pytree", r(mapped["b"][1][0]), len(leaves), tree_unflatten(leaves, spec)["b"][1][1])

q = T(1, 2, 3, 4)
with sdpa_kernel(SDPBackend.MATH):
    o1 = F.scaled_dot_product_attention(q, q, q)
with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
    o2 = F.scaled_dot_product_attention(q, q, q, dropout_p=0.0, is_causal=True)
print("sdpa", r(o1), r(o2))
kv = T(1, 1, 3, 4)
print("gqa", F.scaled_dot_product_attention(q, kv, kv, enable_gqa=True).shape)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
torch.set_float32_matmul_precision("high")
print("precision", torch.get_float32_matmul_precision(), torch.backends.cudnn.is_available() in (True, False))


@torch.jit.script
def fused(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(x)


print("jit_script", r(fused(torch.ones(2))))
tr = torch.jit.trace(nn.Linear(2, 2), torch.ones(1, 2))
print("jit_trace", tr(torch.ones(1, 2)).shape)


@torch.inference_mode()
def infer(x):
    return x * 2


print("inference_decor", infer(w).requires_grad)


@torch.compiler.disable
def eager(x):
    return x + 1


print("compiler_disable", eager(torch.ones(1)).item())


class Scaled(torch.Tensor):
    pass


s = torch.ones(2).as_subclass(Scaled)
print("subclass", type(s).__name__, isinstance(s, torch.Tensor))
p = torch.ones(3, requires_grad=True)
acc = []
p.register_post_accumulate_grad_hook(lambda t: acc.append(t.grad.sum().item()))
(p * 2).sum().backward()
print("post_acc", acc)

print(
    "constraints",
    constraints.positive.check(torch.tensor([1.0, -1.0])).tolist(),
    isinstance(constraints.real, constraints.Constraint),
)
print(
    "special",
    r(torch.special.erfinv(torch.tensor([0.5]))),
    r(torch.special.logit(torch.tensor([0.25]))),
    r(torch.special.xlogy(torch.tensor([2.0]), torch.tensor([3.0]))),
    r(torch.special.i0(torch.tensor([1.0]))),
)
print("OK")
