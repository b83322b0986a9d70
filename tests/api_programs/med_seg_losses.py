"""Segmentation losses of medical imaging: soft Dice (squared and plain denominators, batch vs per-sample), generalized
Dice with inverse-volume weights, Tversky and focal Tversky via one_hot + permute, sigmoid and softmax focal loss,
ignore masks, and the gradients each sends to the logits."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
N, C, D, H, W = 2, 4, 4, 6, 5
logits = (torch.randn(N, C, D, H, W) * 2).requires_grad_()
target = torch.randint(0, C, (N, D, H, W))
target[0, 0] = 255  # an ignored slice
valid = target != 255
tgt = torch.where(valid, target, torch.zeros_like(target))


def to_onehot(t, c):
    return F.one_hot(t, num_classes=c).permute(0, 4, 1, 2, 3).contiguous().float()


oh = to_onehot(tgt, C) * valid.unsqueeze(1)
print("onehot", tuple(oh.shape), oh.dtype, oh.is_contiguous(), oh.sum().item(), valid.sum().item())
perm = F.one_hot(tgt, C).permute(0, 4, 1, 2, 3)
print("permuted strides", perm.stride(), perm.is_contiguous(), perm.dtype)


def soft_dice(probs, oh, mask, squared=False, batch_dice=True, smooth=1e-5, do_bg=False):
    probs = probs * mask.unsqueeze(1)
    axes = (0, 2, 3, 4) if batch_dice else (2, 3, 4)
    tp = (probs * oh).sum(axes)
    if squared:
        denom = (probs**2).sum(axes) + (oh**2).sum(axes)
    else:
        denom = probs.sum(axes) + oh.sum(axes)
    dc = (2 * tp + smooth) / torch.clip(denom + smooth, min=1e-8)
    if not do_bg:
        dc = dc[1:] if batch_dice else dc[:, 1:]
    return 1 - dc.mean(), dc


probs = logits.softmax(dim=1)
for sq in (False, True):
    for bd in (True, False):
        l, dc = soft_dice(probs, oh, valid, squared=sq, batch_dice=bd)
        print(f"dice sq={sq} batch={bd}", round(l.item(), 4), tuple(dc.shape), dc.round(decimals=4).tolist())


def generalized_dice(probs, oh, mask, eps=1e-6):
    probs = probs * mask.unsqueeze(1)
    vol = oh.sum((0, 2, 3, 4))
    w = 1.0 / (vol * vol).clamp_min(eps)
    w = torch.where(torch.isinf(w), torch.zeros_like(w), w)
    inter = (w * (probs * oh).sum((0, 2, 3, 4))).sum()
    union = (w * (probs + oh).sum((0, 2, 3, 4))).sum()
    return 1 - 2 * inter / union.clamp_min(eps)


gd = generalized_dice(probs, oh, valid)
print("generalized dice", round(gd.item(), 4), gd.grad_fn.name())


def tversky(probs, oh, alpha=0.3, beta=0.7, gamma=None, smooth=1.0):
    dims = (0, *range(2, probs.ndim))
    tp = torch.sum(probs * oh, dims)
    fp = torch.sum(probs * (1 - oh), dims)
    fn = torch.sum((1 - probs) * oh, dims)
    ti = (tp + smooth) / (tp + alpha * fp + beta * fn + smooth)
    if gamma is not None:
        return torch.pow(1 - ti, 1 / gamma).sum()
    return (1 - ti).mean()


print("tversky", round(tversky(probs, oh).item(), 4), "focal tversky", round(tversky(probs, oh, gamma=0.75).item(), 4))


def softmax_focal(logits, target, gamma=2.0, alpha=None, ignore_index=255):
    logp = F.log_softmax(logits, dim=1)
    ce = F.nll_loss(logp, target, weight=alpha, ignore_index=ignore_index, reduction="none")
    pt = torch.exp(-F.nll_loss(logp, target, ignore_index=ignore_index, reduction="none"))
    loss = (1 - pt) ** gamma * ce
    return loss.sum() / (target != ignore_index).sum().clamp_min(1)


alpha = torch.tensor([0.1, 0.3, 0.3, 0.3])
fl = softmax_focal(logits, target, alpha=alpha)
print("softmax focal", round(fl.item(), 4))
fl0 = softmax_focal(logits, target, gamma=0.0)
ce = F.cross_entropy(logits, target, ignore_index=255)
print("gamma=0 equals CE", torch.allclose(fl0, ce), round(ce.item(), 4))

bin_logits = logits[:, 1:2]
bin_t = (tgt == 1).float().unsqueeze(1)
p = torch.sigmoid(bin_logits)
ce_b = F.binary_cross_entropy_with_logits(bin_logits, bin_t, reduction="none")
p_t = p * bin_t + (1 - p) * (1 - bin_t)
sfl = (0.25 * bin_t + 0.75 * (1 - bin_t)) * ce_b * (1 - p_t) ** 2
print("sigmoid focal", round(sfl.mean().item(), 4), round(sfl.sum().item(), 4))
pw = F.binary_cross_entropy_with_logits(bin_logits, bin_t, pos_weight=torch.tensor([3.0]))
print("bce pos_weight", round(pw.item(), 4))

total = soft_dice(probs, oh, valid)[0] + fl + 0.5 * tversky(probs, oh)
total.backward()
gl = logits.grad
print("grad", tuple(gl.shape), round(gl.abs().sum().item(), 4), round(gl[1, :, 0, 0, 0].abs().sum().item(), 4))
print("ignored voxels grad from CE part only", round(gl[0, :, 0].abs().sum().item(), 4))

try:
    F.one_hot(target, C)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(tgt.float(), C)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(tgt - 1, C)
except Exception as e:
    print(type(e).__name__, e)
print("one_hot -1 classes", F.one_hot(torch.tensor([0, 2, 1])).shape)
