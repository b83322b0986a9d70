"""Weight EMA written with the torch._foreach_* family as fast trainers do: inverse-gamma warmup decay
(diffusers' EMAModel), _foreach_mul_/_foreach_add_ with alpha, _foreach_lerp_ with a scalar and with tensor lists,
_foreach_sub_/_foreach_addcmul_ for a Karras-style EMA of squared weights, _foreach_copy_ for store/restore,
per-tensor scalar lists, _foreach_norm with ord, parameters_to_vector, and the errors of mismatched lists."""

import copy

import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(0)


def r(t, n=4):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.norm = nn.GroupNorm(2, 4)
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        return self.head(torch.nn.functional.silu(self.norm(self.conv(x))).mean(dim=(2, 3)))


def ema_decay(step, inv_gamma=1.0, power=2 / 3, min_decay=0.0, max_decay=0.9999, update_after_step=0):
    step = max(0, step - update_after_step - 1)
    if step <= 0:
        return 0.0
    value = 1 - (1 + step / inv_gamma) ** -power
    return max(min_decay, min(value, max_decay))


class EMAModel:
    def __init__(self, params, **kw):
        self.shadow = [p.clone().detach() for p in params]
        self.kw, self.optimization_step, self.collected = kw, 0, None

    @torch.no_grad()
    def step(self, params):
        self.optimization_step += 1
        d = ema_decay(self.optimization_step, **self.kw)
        params = [p for p in params]
        torch._foreach_sub_(self.shadow, torch._foreach_sub(self.shadow, params), alpha=1 - d)
        return d

    def store(self, params):
        self.collected = [p.detach().clone() for p in params]

    @torch.no_grad()
    def copy_to(self, params):
        torch._foreach_copy_([p.data for p in params], self.shadow)

    @torch.no_grad()
    def restore(self, params):
        torch._foreach_copy_([p.data for p in params], self.collected)


model = Net()
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(0.3 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.53 + k).view_as(p))
print(
    "decays:",
    [round(ema_decay(s), 4) for s in [0, 1, 2, 10, 100, 10_000, 10**7]],
    round(ema_decay(50, update_after_step=40, min_decay=0.1), 4),
)

ema = EMAModel(model.parameters(), power=0.75)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0)
x = torch.randn(6, 2, 5, 5)
target = torch.randn(6, 3)
decays = []
for it in range(5):
    loss = (model(x) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    decays.append(round(ema.step(model.parameters()), 4))
print("decays used:", decays, "loss", round(loss.item(), 4))
print("shadow head bias:", r(ema.shadow[-1], 3), "live:", r(model.head.bias, 3))

ema.store(model.parameters())
ema.copy_to(model.parameters())
print("swapped:", torch.equal(model.head.bias, ema.shadow[-1]))
ema.restore(model.parameters())
print("restored:", torch.equal(model.head.bias, ema.collected[-1]))

with torch.no_grad():
    params = [p.detach() for p in model.parameters()]
    a = [p.clone() for p in params]
    b = copy.deepcopy(a)
    torch._foreach_mul_(a, 0.9)
    torch._foreach_add_(a, params, alpha=0.1)
    torch._foreach_lerp_(b, params, 0.1)
    print("mul/add == lerp:", all(torch.allclose(u, v, atol=1e-7) for u, v in zip(a, b)))
    w = [torch.full_like(p, 0.25) for p in params]
    c = [p.clone() for p in params]
    torch._foreach_lerp_(c, [torch.zeros_like(p) for p in params], w)
    print("tensor-weight lerp:", all(torch.allclose(u, 0.75 * v) for u, v in zip(c, params)))
    sq = [torch.zeros_like(p) for p in params]
    torch._foreach_addcmul_(sq, params, params, value=0.5)
    print("addcmul:", r(sq[-1], 3), r(params[-1].pow(2) * 0.5, 3))
    scales = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    scaled = torch._foreach_mul(params, scales)
    print(
        "scalar list:",
        [round(t.abs().sum().item() / max(p.abs().sum().item(), 1e-12), 3) for t, p in zip(scaled, params)],
    )
    norms = torch._foreach_norm(params)
    inf_norms = torch._foreach_norm(params, ord=float("inf"))
    print("norms:", [round(n.item(), 4) for n in norms], [round(n.item(), 4) for n in inf_norms])
    print(
        "total:",
        round(torch.linalg.vector_norm(torch.stack(norms)).item(), 4),
        round(parameters_to_vector(params).norm().item(), 4),
    )
    mx = torch._foreach_maximum(params, 0.0)
    print("maximum:", all(torch.equal(m, p.clamp(min=0)) for m, p in zip(mx, params)))
    sq_root = torch._foreach_sqrt(torch._foreach_abs(params))
    print("sqrt abs:", r(sq_root[-1], 3))

vec = parameters_to_vector(model.parameters())
print("vector:", tuple(vec.shape), vec.requires_grad, vec.grad_fn.name())
vector_to_parameters(vec * 0, model.parameters())
print("zeroed:", sum(p.abs().sum().item() for p in model.parameters()), model.head.bias.requires_grad)

try:
    torch._foreach_add_(params, params[:2])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch._foreach_mul_(params, [1.0, 2.0])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch._foreach_lerp_(params, [p.double() for p in params], 0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    vector_to_parameters(torch.zeros(3), model.parameters())
except Exception as e:
    print(type(e).__name__, e)
