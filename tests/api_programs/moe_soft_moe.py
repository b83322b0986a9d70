"""Soft MoE (Puigcerver et al.): dispatch weights softmax over tokens, combine weights softmax over all slots, with
L2-normalised inputs and a learnable scale, padding tokens masked with -inf before the dispatch softmax, einsum in
the paper's index names, gradients into the slot parameters, and the masked-softmax corner cases."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SoftMoE(nn.Module):
    def __init__(self, d=6, n_experts=3, slots=2, hidden=8, normalize=True):
        super().__init__()
        self.n, self.p, self.normalize = n_experts, slots, normalize
        self.phi = nn.Parameter(torch.cos(torch.arange(d * n_experts * slots, dtype=torch.float32)
                                          .view(d, n_experts, slots) * 0.37) * 0.5)
        self.scale = nn.Parameter(torch.ones(()))
        self.w1 = nn.Parameter(torch.sin(torch.arange(n_experts * d * hidden, dtype=torch.float32)
                                         .view(n_experts, d, hidden) * 0.11))
        self.w2 = nn.Parameter(torch.cos(torch.arange(n_experts * hidden * d, dtype=torch.float32)
                                         .view(n_experts, hidden, d) * 0.13) * 0.3)

    def forward(self, x, mask=None):  # x: (b, m, d), mask: (b, m) True for real tokens
        phi = self.phi
        if self.normalize:
            x_n = F.normalize(x, dim=-1)
            phi = self.scale * F.normalize(phi, dim=0)
        else:
            x_n = x
        logits = torch.einsum("bmd,dnp->bmnp", x_n, phi)
        if mask is not None:
            logits = logits.masked_fill(~mask[:, :, None, None], float("-inf"))
        dispatch = logits.softmax(dim=1)
        combine = logits.flatten(2).softmax(dim=-1).view_as(logits)
        if mask is not None:
            combine = combine.nan_to_num(0.0)
        slots = torch.einsum("bmnp,bmd->bnpd", dispatch, x)
        h = torch.einsum("bnpd,ndh->bnph", slots, self.w1).relu()
        out_slots = torch.einsum("bnph,nhd->bnpd", h, self.w2)
        return torch.einsum("bmnp,bnpd->bmd", combine, out_slots), dispatch, combine


torch.manual_seed(0)
moe = SoftMoE()
x = torch.sin(torch.arange(2 * 5 * 6, dtype=torch.float32).view(2, 5, 6) * 0.29) * 2
y, dispatch, combine = moe(x)
print("y:", tuple(y.shape), y[0, :2].round(decimals=4).tolist())
print("dispatch sums over tokens:", dispatch.sum(1)[0].round(decimals=4).tolist())
print("combine sums over slots:", combine.flatten(2).sum(-1)[0].round(decimals=4).tolist())
print("x norms:", F.normalize(x, dim=-1).norm(dim=-1)[0].round(decimals=4).tolist())

mask = torch.tensor([[True, True, True, False, False], [True, True, True, True, True]])
ym, dm, cm = moe(x, mask)
print("masked dispatch on padding:", dm[0, 3:].abs().sum().item(),
      "real rows:", dm[0].sum(0).round(decimals=4).tolist())
print("combine on padding rows:", cm[0, 3].flatten().tolist()[:3])
print("second sample unchanged:", torch.allclose(ym[1], y[1], atol=1e-6))
print("first sample real tokens changed:", not torch.allclose(ym[0, :3], y[0, :3]))
y_trunc, _, _ = moe(x[:1, :3])
print("masking == truncation:", torch.allclose(ym[0, :3], y_trunc[0], atol=1e-5))

loss = ym.pow(2).sum()
loss.backward()
print("phi grad:", moe.phi.grad.abs().sum().round(decimals=4).item(), "scale grad:",
      round(moe.scale.grad.item(), 4), "w1 grad:", moe.w1.grad.abs().sum().round(decimals=4).item())
plain = SoftMoE(normalize=False)
y_plain, _, _ = plain(x)
print("unnormalised:", y_plain[0, 0].round(decimals=4).tolist())

# softmax over an all -inf row gives nan; log_softmax gives nan; masked rows then need nan_to_num
row = torch.full((3,), float("-inf"))
print("softmax all -inf:", row.softmax(0).tolist(), F.log_softmax(row, 0).tolist())
print("nan_to_num options:", torch.tensor([float("nan"), float("inf"), -float("inf")]).nan_to_num(
    nan=0.0, posinf=1.0, neginf=-1.0).tolist())
print("normalize eps:", F.normalize(torch.zeros(2, 3), dim=-1).tolist(),
      F.normalize(torch.ones(3), p=1, dim=0).tolist())
for bad in (lambda: torch.einsum("bmd,dnp->bmnp", x, moe.phi[:5]),
            lambda: torch.einsum("bmd,dnp->bmq", x, moe.phi),
            lambda: x.masked_fill(mask, 0.0),
            lambda: F.normalize(x, dim=3)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
