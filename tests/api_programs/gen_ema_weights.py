"""EMA of weights as diffusion/GAN repos keep it: a deepcopy shadow with requires_grad_(False), warmup decay
(min(decay, (1+n)/(10+n))), torch._foreach_lerp_/_foreach_mul_ updates, buffer copies, power-function EMA (EDM2),
swapping weights in for evaluation with a context manager, torch.optim.swa_utils.AveragedModel with
get_ema_multi_avg_fn, and the state dicts that checkpoints store."""

import contextlib
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, get_ema_avg_fn, get_ema_multi_avg_fn

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def det_init_(module, scale=0.3):
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.45 + 0.02 * k) + k).view_as(p))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


class EMA:
    def __init__(self, model, decay=0.999, warmup=True):
        self.shadow = copy.deepcopy(model).eval().requires_grad_(False)
        self.decay, self.warmup, self.num_updates = decay, warmup, 0

    def get_decay(self):
        if not self.warmup:
            return self.decay
        return min(self.decay, (1 + self.num_updates) / (10 + self.num_updates))

    @torch.no_grad()
    def update(self, model):
        self.num_updates += 1
        d = self.get_decay()
        ema_p = [p for p in self.shadow.parameters() if p.dtype.is_floating_point]
        cur_p = [p for p in model.parameters() if p.dtype.is_floating_point]
        torch._foreach_lerp_(ema_p, cur_p, 1.0 - d)
        for b_ema, b in zip(self.shadow.buffers(), model.buffers()):
            b_ema.copy_(b)
        return d

    def state_dict(self):
        return {"shadow": self.shadow.state_dict(), "num_updates": self.num_updates, "decay": self.decay}


@contextlib.contextmanager
def ema_scope(model, ema):
    backup = [p.detach().clone() for p in model.parameters()]
    with torch.no_grad():
        for p, e in zip(model.parameters(), ema.shadow.parameters()):
            p.copy_(e)
    try:
        yield model
    finally:
        with torch.no_grad():
            for p, b in zip(model.parameters(), backup):
                p.copy_(b)


model = Net()
det_init_(model)
ema = EMA(model, decay=0.99)
print("shadow requires_grad", any(p.requires_grad for p in ema.shadow.parameters()), "training", ema.shadow.training)
print("shared storage", ema.shadow.fc1.weight.data_ptr() == model.fc1.weight.data_ptr())

x = torch.sin(torch.arange(16 * 4, dtype=torch.float32).view(16, 4) * 0.5)
y = torch.stack([x[:, 0] * x[:, 1], x[:, 2] - x[:, 3]], 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
decays = []
for step in range(25):
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    decays.append(round(ema.update(model), 4))
print("decays", decays[:5], decays[-2:])
print("loss", round(loss.item(), 4), "ema num_updates", ema.num_updates)
print("model fc2", r(model.fc2.weight), "\nema   fc2", r(ema.shadow.fc2.weight))
print("bn buffers copied", torch.equal(ema.shadow.bn.running_mean, model.bn.running_mean),
      ema.shadow.bn.num_batches_tracked.item())
model.eval()
with ema_scope(model, ema):
    out_ema = model(x[:3])
    print("inside scope", torch.allclose(model.fc1.weight, ema.shadow.fc1.weight))
print("restored", not torch.allclose(model.fc1.weight, ema.shadow.fc1.weight), r(out_ema))
print("ema eval matches", torch.allclose(out_ema, ema.shadow(x[:3])))
sd = ema.state_dict()
print("state keys", list(sd["shadow"].keys()), sd["num_updates"])

# foreach ops by hand equal the loop
a = [torch.ones(3), torch.full((2, 2), 2.0)]
b = [torch.zeros(3), torch.full((2, 2), 4.0)]
loop = [ai * 0.9 + bi * 0.1 for ai, bi in zip(a, b)]
torch._foreach_mul_(a, 0.9)
torch._foreach_add_(a, b, alpha=0.1)
print("foreach == loop", all(torch.allclose(p, q) for p, q in zip(a, loop)), r(a[1], 4))
print("foreach_norm", torch._foreach_norm(a), torch._foreach_sub(a, 1.0)[0])


# power-function EMA profile (Karras et al. 2024): beta_t = (1 - 1/t)^(gamma+1)
def power_function_beta(std, t):
    gamma = ((1 + 6 * std ** 2) ** 0.5 - 1) / (2 * std ** 2)  # a closed-form stand-in for the sigma_rel solve
    return (1 - 1 / t) ** (gamma + 1), gamma


for std in [0.05, 0.1]:
    betas = [power_function_beta(std, t)[0] for t in [2, 10, 100, 1000]]
    print(f"sigma_rel {std}: gamma {power_function_beta(std, 2)[1]:.4f} betas", [round(v, 4) for v in betas])

# torch.optim.swa_utils.AveragedModel as an EMA
det_init_(model)
avg = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
print(type(avg.module).__name__, "n_averaged", avg.n_averaged, avg.n_averaged.dtype)
model.train()
for step in range(5):
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    avg.update_parameters(model)
print("avg n_averaged", avg.n_averaged.item(), "fc1.bias", r(avg.module.fc1.bias, 4))
print("avg bn mean", r(avg.module.bn.running_mean, 4), "keys", list(avg.state_dict().keys())[:3], len(avg.state_dict()))
avg2 = AveragedModel(model, avg_fn=get_ema_avg_fn(0.5))
avg2.update_parameters(model)
w0 = avg2.module.fc2.weight.clone()
with torch.no_grad():
    model.fc2.weight.add_(1.0)
avg2.update_parameters(model)
print("ema_avg_fn step", torch.allclose(avg2.module.fc2.weight, w0 + 0.5, atol=1e-6))
print("avg forward", r(avg(x[:2]), 4), avg.training)
