"""Region and ranking losses for segmentation: soft Dice over one_hot(...).permute with ignore masks, log-cosh and
generalized Dice, focal loss through gather with per-class alpha, Tversky, and the Lovasz hinge and Lovasz-softmax
extensions built from sort, cumsum and gather, each with its gradients."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
C, IGN = 3, 255


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


def soft_dice(logits, target, eps=1.0, ignore=IGN):
    valid = (target != ignore).unsqueeze(1)
    t = torch.where(target == ignore, torch.zeros_like(target), target)
    oh = F.one_hot(t, C).permute(0, 3, 1, 2).to(logits.dtype)
    p = logits.softmax(1) * valid
    oh = oh * valid
    dims = (0, 2, 3)
    inter = (p * oh).sum(dims)
    card = p.sum(dims) + oh.sum(dims)
    dice = (2 * inter + eps) / (card + eps)
    return 1 - dice.mean(), dice


def generalized_dice(logits, target):
    oh = F.one_hot(target, C).permute(0, 3, 1, 2).float()
    p = logits.softmax(1)
    wts = 1.0 / oh.sum((0, 2, 3)).clamp_min(1.0).pow(2)
    num = (wts * (p * oh).sum((0, 2, 3))).sum()
    den = (wts * (p + oh).sum((0, 2, 3))).sum()
    return 1 - 2 * num / den


def focal(logits, target, gamma=2.0, alpha=None, ignore=IGN):
    logp = F.log_softmax(logits, 1)
    valid = target != ignore
    t = target.masked_fill(~valid, 0)
    logpt = logp.gather(1, t.unsqueeze(1)).squeeze(1)
    pt = logpt.exp()
    loss = -((1 - pt) ** gamma) * logpt
    if alpha is not None:
        loss = loss * alpha[t]
    return loss[valid].mean()


def tversky(logits, target, a=0.3, b=0.7):
    p = logits.softmax(1)
    oh = F.one_hot(target, C).movedim(-1, 1).float()
    tp = (p * oh).sum((2, 3))
    fp = (p * (1 - oh)).sum((2, 3))
    fn = ((1 - p) * oh).sum((2, 3))
    return (1 - tp / (tp + a * fp + b * fn)).mean()


def lovasz_grad(gt_sorted):
    gts = gt_sorted.sum()
    inter = gts - gt_sorted.cumsum(0)
    union = gts + (1 - gt_sorted).cumsum(0)
    jac = 1.0 - inter / union
    if gt_sorted.numel() > 1:
        jac[1:] = jac[1:] - jac[:-1]
    return jac


def lovasz_hinge_flat(logits, labels):
    signs = 2.0 * labels - 1.0
    errors = 1.0 - logits * signs
    errors_sorted, perm = torch.sort(errors, dim=0, descending=True)
    grad = lovasz_grad(labels[perm])
    return torch.dot(F.relu(errors_sorted), grad)


def lovasz_softmax_flat(probs, labels):
    losses = []
    for c in labels.unique():
        fg = (labels == c).float()
        errors = (fg - probs[:, c]).abs()
        errors_sorted, perm = torch.sort(errors, 0, descending=True)
        losses.append(torch.dot(errors_sorted, lovasz_grad(fg[perm])))
    return torch.stack(losses).mean()


logits = torch.randn(2, C, 6, 6, requires_grad=True)
target = torch.randint(0, C, (2, 6, 6))
tgt_ign = target.clone()
tgt_ign[:, 0, :] = IGN

loss, per_class = soft_dice(logits, tgt_ign)
loss.backward()
print("soft dice", r(loss), per_class.round(decimals=4).tolist(), r(logits.grad.abs().sum()))
print("one_hot", F.one_hot(target, C).shape, F.one_hot(target, C).dtype, F.one_hot(torch.tensor([0, 2])).tolist())
logits.grad = None
gd = generalized_dice(logits, target)
gd.backward()
print("generalized dice", r(gd), r(logits.grad.abs().sum()))
print("log-cosh dice", r(torch.log(torch.cosh(soft_dice(logits, target)[0]))))
alpha = torch.tensor([0.25, 0.5, 0.25])
for g in (0.0, 2.0):
    print("focal", g, r(focal(logits, tgt_ign, gamma=g)), r(focal(logits, tgt_ign, gamma=g, alpha=alpha)))
print(
    "focal gamma0 == ce",
    abs(r(focal(logits, tgt_ign, 0.0)) - r(F.cross_entropy(logits, tgt_ign, ignore_index=IGN))) < 1e-4,
)
print("tversky", r(tversky(logits, target)), r(tversky(logits, target, 0.5, 0.5)))

bin_logits = torch.randn(2, 5, 5, requires_grad=True)
bin_labels = (torch.rand(2, 5, 5) > 0.5).float()
per_image = torch.stack([lovasz_hinge_flat(l.flatten(), t.flatten()) for l, t in zip(bin_logits, bin_labels)])
per_image.mean().backward()
print("lovasz hinge", per_image.round(decimals=4).tolist(), r(bin_logits.grad.abs().sum()))
print("lovasz grad sum", lovasz_grad(torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0])).round(decimals=4).tolist())

probs = logits.softmax(1).permute(0, 2, 3, 1).reshape(-1, C)
ls = lovasz_softmax_flat(probs, target.flatten())
logits.grad = None
ls.backward()
print("lovasz softmax", r(ls), r(logits.grad.abs().sum()), logits.grad.shape)

e, perm = torch.sort(torch.tensor([0.5, 2.0, 0.5, -1.0, 2.0]), descending=True, stable=True)
print("stable sort", e.tolist(), perm.tolist())
print(
    "cumsum dtype",
    torch.tensor([True, False, True]).cumsum(0).dtype,
    torch.tensor([1, 0], dtype=torch.uint8).cumsum(0).dtype,
)
try:
    F.one_hot(torch.tensor([0, 3]), 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([0.0, 1.0]), 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([-1, 1]), 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.dot(torch.ones(3), torch.ones(4))
except Exception as e:
    print(type(e).__name__, e)
try:
    logits.gather(1, target)
except Exception as e:
    print(type(e).__name__, e)
