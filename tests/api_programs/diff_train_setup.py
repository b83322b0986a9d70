"""The optimizer side of a diffusion training script: AdamW param groups that exempt biases, norms and embeddings
from weight decay (found via named_modules/isinstance), warmup through LambdaLR then SequentialLR into cosine,
gradient clipping by clip_grad_norm_ (foreach, inf norm, error_if_nonfinite) with get_total_norm and
clip_grads_with_norm_, skipped steps on non-finite grads, and the optimizer's repr and state_dict."""


import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = True  # DiT's train.py: both TF32 switches on
torch.backends.cudnn.allow_tf32 = True
print("matmul precision:", torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32)
torch.set_float32_matmul_precision("highest")
print("after highest:", torch.backends.cuda.matmul.allow_tf32)


class Block(nn.Module):
    def __init__(self, ch, tdim):
        super().__init__()
        self.norm1 = nn.GroupNorm(2, ch)
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.temb = nn.Linear(tdim, ch)
        self.norm2 = nn.GroupNorm(2, ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, t):
        h = self.conv1(F.silu(self.norm1(x))) + self.temb(t)[:, :, None, None]
        return x + self.conv2(F.silu(self.norm2(h)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.t_embed = nn.Embedding(1000, 8)
        self.inp = nn.Conv2d(1, 4, 3, padding=1)
        self.block = Block(4, 8)
        self.out = nn.Conv2d(4, 1, 3, padding=1)

    def forward(self, x, t):
        return self.out(self.block(self.inp(x), self.t_embed(t)))


def param_groups(model, wd):
    decay, no_decay = set(), set()
    whitelist, blacklist = (nn.Linear, nn.Conv2d), (nn.GroupNorm, nn.LayerNorm, nn.Embedding)
    for mn, m in model.named_modules():
        for pn, _ in m.named_parameters(recurse=False):
            fpn = f"{mn}.{pn}" if mn else pn
            if pn.endswith("bias") or isinstance(m, blacklist):
                no_decay.add(fpn)
            elif pn.endswith("weight") and isinstance(m, whitelist):
                decay.add(fpn)
    pd = dict(model.named_parameters())
    assert not decay & no_decay and decay | no_decay == set(pd), "unsorted parameters"
    return [{"params": [pd[n] for n in sorted(decay)], "weight_decay": wd, "name": "decay"},
            {"params": [pd[n] for n in sorted(no_decay)], "weight_decay": 0.0, "name": "no_decay"}]


model = Net()
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(0.25 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.61 + k).view_as(p))
groups = param_groups(model, 0.05)
print("groups:", [(g["name"], len(g["params"]), sum(p.numel() for p in g["params"])) for g in groups])
opt = torch.optim.AdamW(groups, lr=2e-3, betas=(0.9, 0.99), eps=1e-8)
print(opt)
warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 3))
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=1e-5)
sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3])

x0 = torch.randn(8, 1, 6, 6)
lrs, norms, skipped = [], [], 0
for step in range(8):
    t = torch.randint(0, 1000, (8,))
    noise = torch.randn_like(x0)
    loss = F.mse_loss(model(x0 + 0.5 * noise, t), noise)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    if step == 4:
        model.out.bias.grad[0] = float("nan")
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5, foreach=True)
    norms.append(round(total.item(), 4) if torch.isfinite(total) else str(total.item()))
    if not torch.isfinite(total):
        skipped += 1
        opt.zero_grad()
    else:
        opt.step()
    lrs.append(round(sched.get_last_lr()[0], 6))
    sched.step()
print("lrs:", lrs)
print("norms:", norms, "skipped:", skipped, "loss", round(loss.item(), 4))
print("steps per param:", sorted({int(s["step"]) for s in opt.state.values()}))

loss = F.mse_loss(model(x0, torch.zeros(8, dtype=torch.long)), x0)
opt.zero_grad()
loss.backward()
grads = [p.grad for p in model.parameters() if p.grad is not None]
tn = nn.utils.get_total_norm(grads, norm_type=2.0)
inf_n = nn.utils.get_total_norm(grads, norm_type="inf")
print("total norms:", round(tn.item(), 4), round(inf_n.item(), 4))
nn.utils.clip_grads_with_norm_(model.parameters(), max_norm=0.1, total_norm=tn)
print("after clip:", round(nn.utils.get_total_norm([p.grad for p in model.parameters()]).item(), 4))
print("inf clip:", round(nn.utils.clip_grad_norm_(model.parameters(), 0.01, norm_type=float("inf")).item(), 4),
      round(max(p.grad.abs().max().item() for p in model.parameters()), 4))
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.001)
print("value clip max:", max(p.grad.abs().max().item() for p in model.parameters()) <= 0.001)

model.out.weight.grad.fill_(float("inf"))
try:
    nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
print("empty:", nn.utils.clip_grad_norm_([], 1.0))

sd = opt.state_dict()
print("state keys:", list(sd), [(g["name"], g["weight_decay"], len(g["params"]), g["lr"]) for g in sd["param_groups"]])
print("state entry:", sorted(sd["state"][0]), sd["state"][0]["exp_avg"].shape)
print("sched state:", sorted(sched.state_dict()), sched.state_dict()["_milestones"], sched.last_epoch)
try:
    torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(1.0, 0.999))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.AdamW([{"params": [model.out.bias]}, {"params": [model.out.bias]}])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3, 5])
except Exception as e:
    print(type(e).__name__, e)
