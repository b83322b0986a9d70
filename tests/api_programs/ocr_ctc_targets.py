"""CTC loss in the target layouts OCR loaders produce: padded 2-D targets against the same labels concatenated
1-D, lengths as int64/int32 tensors, lists and tuples, float32 against float64 log-probs, every reduction with and
without zero_infinity on too-short inputs, a non-zero blank index, nn.CTCLoss's repr and attributes, gradients of
both layouts agreeing, and the errors for mismatched layouts."""

import torch
from torch import nn
F = torch.nn.functional

torch.manual_seed(0)
T, N, C = 10, 4, 6
logits = torch.randn(T, N, C, requires_grad=True)
lp = logits.log_softmax(2)
labels = [[1, 2, 2], [3], [4, 5, 1, 2], [2, 2, 2, 2, 2, 2]]  # the last needs 11 frames: impossible in 10
tl = torch.tensor([len(l) for l in labels])
il = torch.tensor([10, 8, 10, 10])
padded = torch.zeros(N, 6, dtype=torch.long)
for i, l in enumerate(labels):
    padded[i, : len(l)] = torch.tensor(l)
flat = torch.cat([torch.tensor(l) for l in labels])
print("flat", flat.tolist(), "padded", padded.tolist())

for red in ("none", "mean", "sum"):
    for zi in (False, True):
        a = F.ctc_loss(lp, padded, il, tl, reduction=red, zero_infinity=zi)
        b = F.ctc_loss(lp, flat, tuple(il.tolist()), tuple(tl.tolist()), reduction=red, zero_infinity=zi)
        v = a.tolist() if red == "none" else a.item()
        print(red, zi, [round(x, 4) for x in v] if isinstance(v, list) else round(v, 4), torch.equal(a, b))

ok = slice(0, 3)
l32 = F.ctc_loss(lp[:, ok], padded[ok].int(), il[ok].int(), tl[ok].int(), reduction="none")
l64 = F.ctc_loss(lp[:, ok].double(), padded[ok], il[ok], tl[ok], reduction="none")
print("int32", l32.round(decimals=4).tolist(), l32.dtype, "float64", l64.round(decimals=4).tolist(), l64.dtype)
print("lists", round(F.ctc_loss(lp[:, ok], flat[:8], [10, 8, 10], [3, 1, 4]).item(), 4))

crit = nn.CTCLoss(blank=C - 1, reduction="sum", zero_infinity=True)
print(crit, crit.blank, crit.reduction, crit.zero_infinity)
shifted = padded.clamp(max=C - 2)
print("blank last", round(crit(lp, shifted, il, tl).item(), 4))

ga, = torch.autograd.grad(F.ctc_loss(lp, padded, il, tl, zero_infinity=True), logits, retain_graph=True)
gb, = torch.autograd.grad(F.ctc_loss(lp, flat, il, tl, zero_infinity=True), logits, retain_graph=True)
print("grads agree", torch.allclose(ga, gb), round(ga.abs().sum().item(), 4), "impossible sample zero",
      ga[:, 3].abs().max().item())
print("grad beyond length", ga[8:, 1].abs().max().item())
raw = F.ctc_loss(lp, padded, il, tl, reduction="none")
print("inf", raw[3].item(), torch.isinf(raw).tolist())
g_inf, = torch.autograd.grad(raw[:3].sum(), logits)
print("finite part grad", round(g_inf.abs().sum().item(), 4))

for bad in (lambda: F.ctc_loss(lp, padded, il, tl[:3]),
            lambda: F.ctc_loss(lp, padded[:, :2], il, tl),
            lambda: F.ctc_loss(lp, flat[:5], il, tl),
            lambda: F.ctc_loss(lp, padded, torch.tensor([11, 8, 10, 10]), tl),
            lambda: F.ctc_loss(lp, padded, il, tl, blank=C),
            lambda: F.ctc_loss(lp, padded.float(), il, tl),
            lambda: F.ctc_loss(lp, padded, il, tl, reduction="avg")):
    try:
        r = bad()
        print("ok", r)
    except Exception as e:
        print(type(e).__name__, e)
