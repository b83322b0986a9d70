"""data2vec's teacher targets: an EMA teacher of a small Transformer encoder (norm_first layers), the outputs
of its top-K blocks captured by forward hooks, each normalized with F.instance_norm over time (transposes around
it) or F.layer_norm without affine parameters, averaged, regressed at masked positions with smooth_l1 (beta)
summed and scaled by 1/sqrt(D), an EMA decay annealed linearly, and the hook handles' bookkeeping."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
D, T, B, K = 8, 6, 3, 2


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(4, D)
        self.mask_emb = nn.Parameter(torch.zeros(D).uniform_())
        self.layers = nn.ModuleList(
            [
                nn.TransformerEncoderLayer(D, 2, 16, dropout=0.0, batch_first=True, norm_first=True, activation="gelu")
                for _ in range(3)
            ]
        )
        self.final_proj = nn.Linear(D, D)

    def forward(self, x, mask=None):
        h = self.embed(x)
        if mask is not None:
            h = h.clone()
            h[mask] = self.mask_emb.to(h.dtype)
        for layer in self.layers:
            h = layer(h)
        return h


student = Encoder()
teacher = Encoder()
teacher.load_state_dict(student.state_dict())
teacher.requires_grad_(False).eval()
captured = []
handles = [blk.register_forward_hook(lambda mod, inp, out: captured.append(out)) for blk in teacher.layers[-K:]]
print("hooks", len(handles), [len(b._forward_hooks) for b in teacher.layers], type(handles[0]).__name__)

x = torch.randn(B, T, 4)
mask = torch.zeros(B, T, dtype=torch.bool)
mask[:, 1::2] = True
mask[0, 0] = True
print("mask", mask.sum().item(), mask.float().mean(1).round(decimals=4).tolist())
opt = torch.optim.AdamW(student.parameters(), lr=1e-3)
ema_start, ema_end, anneal = 0.9, 0.99, 3
for step in range(4):
    captured.clear()
    with torch.no_grad():
        teacher(x)
        layer_results = [F.instance_norm(tl.transpose(1, 2).float()).transpose(1, 2) for tl in captured]
        y = sum(layer_results) / len(layer_results)
        y_ln = sum(F.layer_norm(tl.float(), tl.shape[-1:]) for tl in captured) / len(captured)
    out = student.final_proj(student(x, mask))
    pred, target = out[mask], y[mask]
    loss = F.smooth_l1_loss(pred.float(), target, reduction="none", beta=0.25).sum(dim=-1)
    scaled = loss.sum() / math.sqrt(pred.size(-1))
    opt.zero_grad()
    scaled.backward()
    opt.step()
    decay = ema_end if step >= anneal else ema_start + (ema_end - ema_start) * step / anneal
    with torch.no_grad():
        for pt, ps in zip(teacher.parameters(), student.parameters()):
            pt.mul_(decay).add_(ps, alpha=1 - decay)
    print(
        step,
        len(captured),
        pred.shape,
        round(scaled.item(), 4),
        round(decay, 4),
        round(y.std(dim=1).mean().item(), 4),
        round(y_ln.mean(-1).abs().max().item(), 4),
        y.requires_grad,
    )

inorm = F.instance_norm(captured[0].transpose(1, 2))
print(
    "instance_norm",
    inorm.shape,
    inorm.mean(-1).abs().max().item() < 1e-5,
    round(inorm.var(-1, correction=0).mean().item(), 4),
)
print(
    "smooth_l1",
    F.smooth_l1_loss(torch.tensor([0.1, 0.5, 2.0]), torch.zeros(3), beta=0.0, reduction="none").tolist(),
    round(F.smooth_l1_loss(torch.tensor([0.1, 0.5, 2.0]), torch.zeros(3), beta=1.0).item(), 4),
    F.huber_loss(torch.tensor([0.1, 0.5, 2.0]), torch.zeros(3), delta=0.5, reduction="none").tolist(),
)
for h in handles:
    h.remove()
print("removed", [len(b._forward_hooks) for b in teacher.layers])
captured.clear()
teacher(x)
print("no capture", len(captured), student.layers[0].norm_first, student.layers[0].activation_relu_or_gelu)
for fn in [
    lambda: F.instance_norm(torch.randn(2, 3)),
    lambda: F.instance_norm(torch.randn(2, 3, 1)),
    lambda: F.layer_norm(x, (5,)),
    lambda: F.smooth_l1_loss(x, x, beta=-1.0),
    lambda: nn.TransformerEncoderLayer(8, 3),
]:
    try:
        print(fn())
    except Exception as e:
        print(type(e).__name__, e)
