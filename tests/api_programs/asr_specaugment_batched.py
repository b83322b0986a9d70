"""Batched SpecAugment as NeMo/ESPnet write it: per-utterance masks drawn from a seeded Generator with widths scaled
by each utterance's length, masks built by comparing an arange with start/end columns, masked_fill_ with zero or
the utterance mean (masked means over valid frames), time warping by resizing two halves with bicubic interpolate,
random time reversal via flip on selected rows, and in-place augmentation through views under no_grad."""

import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(1234)
B, Fq, T = 3, 20, 30
lengths = torch.tensor([30, 22, 15])
spec = torch.randn(B, Fq, T, generator=g).abs().add(1e-3).log()
valid = torch.arange(T) < lengths[:, None]
spec = spec.masked_fill(~valid[:, None, :], 0.0)
print("spec", tuple(spec.shape), round(spec.sum().item(), 4))


def axis_masks(num, max_width, size, lens, gen):
    width = (torch.rand(B, num, generator=gen) * (max_width + 1)).floor().long()
    start = (torch.rand(B, num, generator=gen) * (lens[:, None] - width).clamp(min=1)).floor().long()
    ar = torch.arange(size).view(1, 1, -1)
    return ((ar >= start[..., None]) & (ar < (start + width)[..., None])).any(1), width, start


fmask, fw, fs = axis_masks(2, 5, Fq, torch.full((B,), Fq), g)
print("freq widths", fw.tolist(), "starts", fs.tolist(), "masked bins", fmask.sum(1).tolist())
t_max = (lengths.float() * 0.1).long()
print("adaptive time widths", t_max.tolist())
tmask = torch.zeros(B, T, dtype=torch.bool)
for b in range(B):
    m, w, s = axis_masks(2, int(t_max[b]), T, lengths, g)
    tmask[b] = m[b]
print("time masked frames", tmask.sum(1).tolist(), "inside lengths", bool((tmask & ~valid).sum() == 0))

zeroed = spec.clone()
zeroed.masked_fill_(fmask[:, :, None], 0.0)
zeroed.masked_fill_(tmask[:, None, :], 0.0)
print("zero-filled sum", round(zeroed.sum().item(), 4), "zeros", int((zeroed == 0).sum()))

mean = (spec * valid[:, None]).sum((1, 2), keepdim=True) / (lengths.view(B, 1, 1) * Fq)
mean_filled = torch.where(fmask[:, :, None] | tmask[:, None, :], mean, spec)
print(
    "utterance means", mean.flatten().round(decimals=4).tolist(), "mean-filled sum", round(mean_filled.sum().item(), 4)
)


def time_warp(x, length, W=4, gen=None):
    center = int(torch.randint(W, length - W, (1,), generator=gen))
    warped = int(torch.randint(center - W, center + W + 1, (1,), generator=gen))
    left = F.interpolate(x[None, None, :, :center], size=(x.size(0), warped), mode="bicubic", align_corners=False)
    right = F.interpolate(
        x[None, None, :, center:length], size=(x.size(0), length - warped), mode="bicubic", align_corners=False
    )
    out = x.clone()
    out[:, :length] = torch.cat([left, right], dim=-1)[0, 0]
    return out, center, warped


for b in range(B):
    w, c, wc = time_warp(spec[b], int(lengths[b]), gen=g)
    print(
        "warp",
        b,
        c,
        "->",
        wc,
        tuple(w.shape),
        round(w[:, : lengths[b]].sum().item(), 4),
        "tail untouched",
        torch.equal(w[:, lengths[b] :], spec[b, :, lengths[b] :]),
    )

flip = torch.rand(B, generator=g) < 0.5
rev = spec.clone()
with torch.no_grad():
    for b in flip.nonzero().flatten().tolist():
        view = rev[b, :, : lengths[b]]
        view.copy_(view.flip(-1))
print("flipped", flip.tolist(), "first frame now last", torch.equal(rev[0, :, 0], spec[0, :, 29]) if flip[0] else "n/a")

aug = spec.detach().clone().requires_grad_()
out = aug.masked_fill(tmask[:, None, :], 0.0) * 2
out.sum().backward()
print("grad through masks", aug.grad.sum().item(), out.grad_fn.name(), out.grad_fn.next_functions[0][0].name())
print(
    "bicubic overshoot",
    round(
        F.interpolate(torch.tensor([[[[0.0, 0.0, 1.0, 1.0]]]]), size=(1, 7), mode="bicubic", align_corners=True)
        .min()
        .item(),
        4,
    ),
)
try:
    spec.masked_fill_(fmask, 0.0)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.interpolate(spec, size=(4, 4), mode="bicubic")
except Exception as e:
    print(type(e).__name__, e)
