"""Weight averaging as SR/GAN trainers keep it: BasicSR's model_ema (a deep-copied generator updated with
torch._foreach_mul_/_foreach_add_), a lerp_-based EMA with warmup decay, buffers copied vs averaged, an EMA over
param groups with _foreach_lerp_ and tensor weights, swapping EMA weights in for validation, the state_dict of the
EMA model, and the list errors the _foreach ops raise."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class TinySR(nn.Module):
    def __init__(self, nf=8, scale=2):
        super().__init__()
        self.head = nn.Conv2d(3, nf, 3, padding=1)
        self.body = nn.Sequential(nn.Conv2d(nf, nf, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(nf, nf, 3, padding=1))
        self.norm = nn.GroupNorm(2, nf)
        self.up = nn.Sequential(nn.Conv2d(nf, 3 * scale * scale, 3, padding=1), nn.PixelShuffle(scale))
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.register_buffer("img_range", torch.tensor(1.0))

    def forward(self, x):
        f = self.head(x)
        f = f + self.norm(self.body(f))
        return self.up(f) + F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)


def fixed_batch(i):
    g = torch.Generator().manual_seed(100 + i)
    hr = torch.rand(2, 3, 8, 8, generator=g)
    return F.avg_pool2d(hr, 2), hr


net = TinySR()
ema_a = copy.deepcopy(net).eval().requires_grad_(False)
ema_b = copy.deepcopy(net).eval().requires_grad_(False)
opt = torch.optim.Adam(net.parameters(), lr=2e-3, betas=(0.9, 0.99))


@torch.no_grad()
def model_ema(ema, model, decay):
    ep, mp = list(ema.parameters()), list(model.parameters())
    torch._foreach_mul_(ep, decay)
    torch._foreach_add_(ep, mp, alpha=1 - decay)
    for eb, mb in zip(ema.buffers(), model.buffers()):
        eb.copy_(mb)


@torch.no_grad()
def lerp_ema(ema, model, step, base=0.999, warmup=10):
    decay = min(base, (1 + step) / (warmup + step))
    for e, m in zip(ema.parameters(), model.parameters()):
        e.lerp_(m, 1 - decay)
    for (name, eb), mb in zip(ema.named_buffers(), model.buffers()):
        if eb.is_floating_point():
            eb.lerp_(mb, 1 - decay)
        else:
            eb.copy_(mb)
    return decay


decays = []
for step in range(6):
    lr_img, hr = fixed_batch(step)
    loss = F.l1_loss(net(lr_img), hr)
    opt.zero_grad()
    loss.backward()
    opt.step()
    net.steps += 1
    model_ema(ema_a, net, 0.9)
    decays.append(round(lerp_ema(ema_b, net, step), 4))
    if step % 2 == 0:
        print("step", step, round(loss.item(), 4))
print("decays", decays)

lr_img, hr = fixed_batch(99)
with torch.no_grad():
    for name, m in (("net", net), ("ema_a", ema_a), ("ema_b", ema_b)):
        print(name, round(F.l1_loss(m(lr_img), hr).item(), 4))
print("buffers", ema_a.steps.item(), ema_b.steps.item(), ema_a.steps.dtype, ema_b.img_range.item())
diff = [(k, round((v - net.state_dict()[k]).abs().max().item(), 4)) for k, v in ema_a.state_dict().items()][:4]
print("ema-net gap", diff)
print("requires_grad", any(p.requires_grad for p in ema_a.parameters()), ema_a.training)

# _foreach_lerp_ with scalar, per-tensor list and tensor weights
ps = [p.detach().clone() for p in ema_a.parameters()]
qs = [p.detach() for p in net.parameters()]
r1 = torch._foreach_lerp(ps, qs, 0.25)
r2 = [a.lerp(b, 0.25) for a, b in zip(ps, qs)]
print("foreach_lerp", all(torch.allclose(a, b) for a, b in zip(r1, r2)), len(r1))
ws = [torch.full_like(p, 0.5) for p in ps]
torch._foreach_lerp_(ps, qs, ws)
print("tensor weights", round(sum(p.sum().item() for p in ps), 4))
norms = torch._foreach_norm(qs)
print("norms", [round(n.item(), 4) for n in norms[:3]], norms[0].dtype, norms[0].shape)
total = torch.linalg.vector_norm(torch.stack(norms))
print("global norm", round(total.item(), 4), round(nn.utils.clip_grad_norm_(net.parameters(), 1e9).item(), 4) > 0)

# swap EMA weights in for validation and back
backup = {k: v.clone() for k, v in net.state_dict().items()}
net.load_state_dict(ema_a.state_dict())
with torch.no_grad():
    swapped = round(F.l1_loss(net(lr_img), hr).item(), 4)
net.load_state_dict(backup)
with torch.no_grad():
    print("swap", swapped, round(F.l1_loss(net(lr_img), hr).item(), 4))
sd = ema_b.state_dict()
print("keys", list(sd)[:3], len(sd), sd["steps"].dtype)

# torch.optim.swa_utils style averaging function with foreach
avg = torch.optim.swa_utils.AveragedModel(net, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
for _ in range(3):
    avg.update_parameters(net)
print("AveragedModel", avg.n_averaged.item(), round(sum(p.sum().item() for p in avg.module.parameters()), 4))

for bad in [
    lambda: torch._foreach_mul_(ps, [0.5]),
    lambda: torch._foreach_add_(ps, qs[:-1]),
    lambda: torch._foreach_lerp_(ps, qs, [0.1, 0.2]),
    lambda: torch._foreach_add_(ps[:1], [torch.ones(2)]),
    lambda: torch._foreach_mul_([], 2.0),
    lambda: ps[0].lerp_(qs[0].double(), 0.5),
]:
    try:
        r = bad()
        print("ok", type(r).__name__)
    except Exception as e:
        print(type(e).__name__, e)
