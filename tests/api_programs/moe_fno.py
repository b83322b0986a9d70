"""Mixture-of-experts routing (topk gating, index_add_/scatter_add_ dispatch, bincount, one_hot load-balancing loss)
and a Fourier neural operator layer (rfft2, cfloat weights, einsum "bixy,ioxy->boxy", irfft2(s=...))."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    x = x.detach()
    if x.is_complex():
        x = torch.view_as_real(x)
    return np.round(x.double().flatten()[:6].numpy(), 4).tolist()


class MoE(nn.Module):
    def __init__(self, dim=6, n_experts=4, k=2, hidden=8):
        super().__init__()
        self.k, self.n = k, n_experts
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList(
            [nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, dim)) for _ in range(n_experts)])

    def forward(self, x):
        B, S, D = x.shape
        x = x.view(-1, D)
        logits = self.gate(x)
        probs = F.softmax(logits, dim=-1, dtype=torch.float)
        weights, idx = torch.topk(probs, self.k, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(x)
        expert_mask = F.one_hot(idx, num_classes=self.n).permute(2, 1, 0)
        for e in range(self.n):
            slot, tok = torch.where(expert_mask[e])
            if tok.numel() == 0:
                continue
            y = self.experts[e](x[tok]) * weights[tok, slot, None]
            out.index_add_(0, tok, y.to(x.dtype))
        counts = torch.bincount(idx.flatten(), minlength=self.n)
        frac = F.one_hot(idx[:, 0], self.n).float().mean(0)
        aux = self.n * torch.sum(frac * probs.mean(0))
        z_loss = torch.logsumexp(logits, dim=-1).pow(2).mean()
        return out.view(B, S, D), aux, z_loss, counts


moe = MoE()
with torch.no_grad():
    for p in moe.parameters():
        p.copy_(T(*p.shape) * 0.4)
x = T(2, 5, 6)
out, aux, zl, counts = moe(x)
print("moe", tuple(out.shape), r(out), round(aux.item(), 4), round(zl.item(), 4), counts.tolist(), counts.dtype)
(out.pow(2).mean() + 0.01 * aux + 1e-3 * zl).backward()
print("moe_grads", r(moe.gate.weight.grad), r(moe.experts[1][0].bias.grad))

# capacity-limited dispatch with scatter_add_ and cumsum positions
tokens, n_exp, cap = 10, 4, 3
top1 = torch.from_numpy(rng.integers(0, n_exp, tokens))
onehot = F.one_hot(top1, n_exp)
pos = torch.cumsum(onehot, dim=0) * onehot - 1
keep = (pos < cap) & (onehot > 0)
pos_in_exp = pos.max(dim=1).values
kept_tok = keep.any(dim=1)
print("capacity", top1.tolist(), pos_in_exp.tolist(), kept_tok.sum().item())
load = torch.zeros(n_exp).scatter_add_(0, top1, torch.ones(tokens))
print("load", load.tolist(), torch.bincount(top1, weights=torch.linspace(0, 1, tokens), minlength=5).tolist())
buf = torch.zeros(n_exp, cap, 2)
feats = T(tokens, 2)
e_i, p_i = top1[kept_tok], pos_in_exp[kept_tok]
buf[e_i, p_i] = feats[kept_tok]
print("dispatch", r(buf[0]), r(buf.sum((1, 2))))
combined = torch.zeros(tokens, 2).index_put_((kept_tok.nonzero().squeeze(1),), buf[e_i, p_i], accumulate=True)
print("combine", torch.equal(combined[kept_tok], feats[kept_tok]), r(combined[~kept_tok]))
sc = torch.zeros(3, 4).scatter_reduce(1, torch.tensor([[0, 1, 0], [2, 2, 3], [1, 1, 1]]), T(3, 3), reduce="amax",
                                      include_self=False)
print("scatter_reduce", r(sc.flatten()[:6]))
gumbel = F.gumbel_softmax(T(3, 4), tau=0.5, hard=True)
print("gumbel_hard", tuple(gumbel.shape), gumbel.sum(-1).tolist())


class SpectralConv2d(nn.Module):
    def __init__(self, cin, cout, m1, m2):
        super().__init__()
        self.cout, self.m1, self.m2 = cout, m1, m2
        scale = 1 / (cin * cout)
        self.weights1 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, dtype=torch.cfloat))

    @staticmethod
    def compl_mul2d(a, w):
        return torch.einsum("bixy,ioxy->boxy", a, w)

    def forward(self, x):
        B = x.shape[0]
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(B, self.cout, x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat, device=x.device)
        out_ft[:, :, : self.m1, : self.m2] = self.compl_mul2d(x_ft[:, :, : self.m1, : self.m2], self.weights1)
        out_ft[:, :, -self.m1 :, : self.m2] = self.compl_mul2d(x_ft[:, :, -self.m1 :, : self.m2], self.weights2)
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


class FNO(nn.Module):
    def __init__(self, width=4, modes=3):
        super().__init__()
        self.fc0 = nn.Linear(3, width)
        self.conv = SpectralConv2d(width, width, modes, modes)
        self.w = nn.Conv2d(width, width, 1)
        self.fc1 = nn.Linear(width, 1)

    def get_grid(self, shape):
        b, sx, sy = shape[0], shape[1], shape[2]
        gx = torch.linspace(0, 1, sx).reshape(1, sx, 1, 1).repeat([b, 1, sy, 1])
        gy = torch.linspace(0, 1, sy).reshape(1, 1, sy, 1).repeat([b, sx, 1, 1])
        return torch.cat((gx, gy), dim=-1)

    def forward(self, a):
        x = torch.cat((a, self.get_grid(a.shape)), dim=-1)
        x = self.fc0(x).permute(0, 3, 1, 2)
        x = F.gelu(self.conv(x) + self.w(x))
        return self.fc1(x.permute(0, 2, 3, 1))


fno = FNO()
with torch.no_grad():
    fno.conv.weights1.copy_(torch.complex(T(4, 4, 3, 3), T(4, 4, 3, 3)) * 0.1)
    fno.conv.weights2.copy_(torch.complex(T(4, 4, 3, 3), T(4, 4, 3, 3)) * 0.1)
    for m in (fno.fc0, fno.w, fno.fc1):
        m.weight.copy_(T(*m.weight.shape) * 0.5)
        m.bias.copy_(T(*m.bias.shape) * 0.1)
print("cfloat", fno.conv.weights1.dtype, fno.conv.weights1.is_complex(), torch.cfloat == torch.complex64)
a = T(2, 8, 8, 1)
u = fno(a)
print("fno", tuple(u.shape), r(u))
fopt = torch.optim.Adam(fno.parameters(), lr=1e-2)
target = torch.sin(a)
for i in range(3):
    loss = F.mse_loss(fno(a), target)
    fopt.zero_grad()
    loss.backward()
    fopt.step()
    print("fno_step", i, round(loss.item(), 4))
print("cgrad", fno.conv.weights1.grad.dtype, r(fno.conv.weights1.grad[0, 0]))
print("state_dtype", fopt.state[fno.conv.weights1]["exp_avg_sq"].dtype,
      r(fopt.state[fno.conv.weights1]["exp_avg"][0, 0]))
rel = torch.norm(fno(a) - target, p=2, dim=(1, 2)) / torch.norm(target, p=2, dim=(1, 2))
print("rel_l2", r(rel))
sig = T(2, 16)
spec = torch.fft.rfft(sig, norm="ortho")
print("rfft", tuple(spec.shape), r(spec[0, :3]), round((torch.fft.irfft(spec, n=16,
                                                                        norm="ortho") - sig).abs().max().item(), 4))
print("fftfreq", torch.fft.rfftfreq(8, d=0.5).tolist(), torch.fft.fftshift(torch.fft.fftfreq(4)).tolist())
