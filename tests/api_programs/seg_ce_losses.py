"""Per-pixel cross entropy as segmentation code writes it: ignore_index=255 with uint8-to-long labels, class
weights, label smoothing, reduction='none' maps, soft (probability) targets, OHEM on the unreduced loss and the
errors of mismatched targets."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
C = 4
logits = torch.randn(2, C, 5, 6, requires_grad=True)
target = torch.randint(0, C, (2, 5, 6))
target[0, :2, :3] = 255
target[1, 4] = 255
w = torch.tensor([0.5, 1.0, 2.0, 4.0])


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


print("mean", r(F.cross_entropy(logits, target, ignore_index=255)))
print("sum", r(F.cross_entropy(logits, target, ignore_index=255, reduction="sum")))
print("weighted", r(F.cross_entropy(logits, target, weight=w, ignore_index=255)))
print("smooth", r(F.cross_entropy(logits, target, ignore_index=255, label_smoothing=0.1)))
print("smooth+w", r(F.cross_entropy(logits, target, weight=w, ignore_index=255, label_smoothing=0.2)))
per_pix = F.cross_entropy(logits, target, weight=w, ignore_index=255, reduction="none")
print("none", tuple(per_pix.shape), per_pix[0, 0].round(decimals=4).tolist(), per_pix.grad_fn.name())
valid = target != 255
manual = per_pix.sum() / w[target[valid]].sum()
print("manual weighted mean", r(manual))
sm = F.cross_entropy(logits, target, ignore_index=255, label_smoothing=0.1, reduction="none")
print("smooth none", sm[1, 4].tolist(), r(sm.sum()))

loss = F.cross_entropy(logits, target, weight=w, ignore_index=255, label_smoothing=0.1)
loss.backward()
g = logits.grad
print("grad at ignored", g[0, :, 0, 0].tolist(), "grad sum", r(g.abs().sum()))
print("grad channel sums", g.sum(1).abs().max().item() < 1e-6)

crit = nn.CrossEntropyLoss(weight=w, ignore_index=255, label_smoothing=0.05, reduction="mean")
print(crit, crit.ignore_index, crit.label_smoothing)
labels_u8 = target.to(torch.uint8)
print("uint8 labels as long", r(crit(logits, labels_u8.long())))

allign = torch.full((2, 5, 6), 255)
print("all ignored mean", F.cross_entropy(logits, allign, ignore_index=255).item())
print("all ignored sum", F.cross_entropy(logits, allign, ignore_index=255, reduction="sum").item())

probs = torch.softmax(torch.randn(2, C, 5, 6) * 2, dim=1)
soft = F.cross_entropy(logits, probs)
print("soft target", r(soft))
print("soft smooth", r(F.cross_entropy(logits, probs, label_smoothing=0.1, weight=w)))
print("soft none", tuple(F.cross_entropy(logits, probs, reduction="none").shape))

k = 20
hard = per_pix.detach().flatten()
top, idx = hard.topk(k)
print("ohem", r(per_pix.flatten()[idx].mean()), idx[:5].tolist())
thresh = -torch.log(torch.tensor(0.7))
kept = per_pix[per_pix > thresh]
print("ohem thresh", kept.numel(), r(kept.mean()))

nll = F.nll_loss(F.log_softmax(logits, 1), target, ignore_index=255, weight=w)
print("nll", r(nll))
print("nll none", r(F.nll_loss(F.log_softmax(logits, 1), target, ignore_index=255, reduction="none").sum()))
one = F.cross_entropy(logits[:, :, 0, 0], target[:, 0, 0].clamp(max=C - 1))
print("2d case", r(one))
bce = F.binary_cross_entropy_with_logits(logits[:, 0], (target == 0).float(), pos_weight=torch.tensor(3.0))
print("bce pos_weight", r(bce))

for bad in [
    lambda: F.cross_entropy(logits, target[:, :4]),
    lambda: F.cross_entropy(logits, target.float()),
    lambda: F.cross_entropy(logits, target.clamp(max=C)),
    lambda: F.cross_entropy(logits, target, weight=torch.ones(3), ignore_index=255),
    lambda: F.cross_entropy(logits, target.unsqueeze(1), ignore_index=255),
    lambda: F.cross_entropy(logits, probs[:, :3]),
    lambda: F.cross_entropy(logits, target, label_smoothing=1.5),
    lambda: F.nll_loss(logits, target.to(torch.int32), ignore_index=255),
]:
    try:
        bad()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e)[:150])
