"""CTC's corners as ASR training code meets them: empty targets and their mean-reduction clamp, blank=C-1 with
labels 0..C-2, unnormalised inputs, float64 gradients against finite differences, the grad_fn name and repeated
backward, per-utterance weighting of reduction='none', zero_infinity inside 'mean', inputs shorter than
max(input_lengths) trimmed, and the length/shape errors of F.ctc_loss and nn.CTCLoss."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
T, N, C = 8, 4, 5
x = torch.randn(T, N, C, dtype=torch.float64, requires_grad=True)
lp = x.log_softmax(-1)
targets = torch.tensor([[1, 2, 0], [3, 3, 0], [0, 0, 0], [2, 4, 1]])
in_len = torch.tensor([8, 7, 6, 8])
tg_len = torch.tensor([2, 2, 0, 3])
none = F.ctc_loss(lp, targets, in_len, tg_len, blank=0, reduction="none")
print("none", none.round(decimals=4).tolist(), none.dtype, none.grad_fn.name())
mean = F.ctc_loss(lp, targets, in_len, tg_len, reduction="mean")
print("mean", round(mean.item(), 4), "by hand", round((none / tg_len.clamp(min=1)).mean().item(), 4))
print("empty target = -sum blank", round(none[2].item(), 4), round(-lp[:6, 2, 0].sum().item(), 4))

blank_last = F.ctc_loss(lp, targets.clamp(max=3), in_len, tg_len, blank=C - 1, reduction="none")
print("blank=C-1", blank_last.round(decimals=4).tolist())
raw = F.ctc_loss(x, targets, in_len, tg_len, reduction="none")
print("unnormalised logits", raw.round(decimals=4).tolist())

weights = torch.tensor([1.0, 0.5, 0.0, 2.0], dtype=torch.float64)
weighted = (none * weights).sum() / weights.sum()
(g,) = torch.autograd.grad(weighted, x, retain_graph=True)
print(
    "weighted",
    round(weighted.item(), 4),
    "grad utt2 zero",
    bool((g[:, 2] == 0).all()),
    "grad beyond length zero",
    bool((g[7:, 1] == 0).all()),
    "norm",
    round(g.norm().item(), 4),
)


def f(inp):
    return F.ctc_loss(inp.log_softmax(-1), targets, in_len, tg_len, reduction="sum")


print(
    "gradcheck",
    torch.autograd.gradcheck(
        lambda a: F.ctc_loss(a.log_softmax(-1), targets[:2], in_len[:2], tg_len[:2]),
        (x.detach()[:, :2].clone().requires_grad_(),),
    ),
)
loss = f(x)
loss.backward(retain_graph=True)
g1 = x.grad.clone()
loss.backward()
print("second backward doubles", torch.allclose(x.grad, 2 * g1))

tight = torch.tensor([[1, 1, 1], [2, 3, 2], [1, 0, 0], [4, 4, 4]])
tl = torch.tensor([3, 3, 1, 3])
inf = F.ctc_loss(lp.detach(), tight, torch.tensor([4, 3, 1, 5]), tl, reduction="none")
print("infeasible", inf.round(decimals=4).tolist())
z = F.ctc_loss(lp, tight, torch.tensor([4, 3, 1, 5]), tl, reduction="mean", zero_infinity=True)
print("zero_infinity mean", round(z.item(), 4))
print("trimmed T", round(F.ctc_loss(lp[:7, 1:3], targets[1:3], in_len[1:3], tg_len[1:3]).item(), 4))
crit = nn.CTCLoss(blank=0, reduction="sum", zero_infinity=True)
print(crit, crit.blank, crit.zero_infinity)
f32 = F.ctc_loss(lp.float(), targets, in_len, tg_len, reduction="none")
print("float32", f32.dtype, torch.allclose(f32.double(), none, atol=1e-4))
unb = F.ctc_loss(lp[:, 0], targets[0, :2], torch.tensor(8), torch.tensor(2), reduction="none")
print("unbatched", unb.shape, round(unb.item(), 4))

bad = [
    lambda: F.ctc_loss(lp, targets, torch.tensor([9, 7, 6, 8]), tg_len),
    lambda: F.ctc_loss(lp, targets, in_len, torch.tensor([2, 2, 0, 4])),
    lambda: F.ctc_loss(lp, targets, in_len[:3], tg_len),
    lambda: F.ctc_loss(lp, targets, in_len, tg_len, blank=C),
    lambda: F.ctc_loss(lp[0], targets, in_len, tg_len),
    lambda: F.ctc_loss(lp, targets.float(), in_len, tg_len),
    lambda: F.ctc_loss(lp, torch.tensor([1, 2, 3, 3]), in_len, tg_len),
    lambda: F.ctc_loss(lp, targets, [8, 7, 6.5, 8], [2, 2, 0, 3]),
    lambda: F.ctc_loss(lp, targets, [8, 7, 6, 8], (2, 2, None, 3)),
    lambda: F.ctc_loss(lp[:, :0], targets[:0], torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long)),
]
for b in bad:
    try:
        out = b()
        print("no error", out.shape)
    except Exception as e:
        print(type(e).__name__, e)
