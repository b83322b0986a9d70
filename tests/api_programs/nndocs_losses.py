"""Every torch.nn loss as its docstring shows it: each reduction, class weights, ignore_index, label_smoothing,
probability targets, pos_weight, margins, beta/delta, log_input/full, log_target, CTC's blank and zero_infinity;
the gradient of each mean with respect to the input, and the errors of shape and target mistakes."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(21)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:160])


def run(loss, *args):
    """Every reduction of one loss module (recreated with each), then d(mean)/d(input)."""
    x = args[0].clone().requires_grad_(True)
    outs = []
    for red in ("none", "sum", "mean"):
        kw = dict(loss.__dict__.get("_kw", {}))
        m = type(loss)(**kw, reduction=red)
        out = m(x, *args[1:])
        outs.append(r(out, 4) if red == "none" else round(out.item(), 4))
    out.backward()
    print(loss, outs[0], outs[1], outs[2], r(x.grad, 4))


def make(cls, **kw):
    m = cls(**kw)
    m._kw = kw
    return m


logits, tgt = T(4, 5), torch.tensor([1, 0, 4, 2])
probs = F.softmax(T(4, 5), dim=1)
cw = torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0])
run(make(nn.CrossEntropyLoss), logits, tgt)
run(make(nn.CrossEntropyLoss, weight=cw, ignore_index=4), logits, tgt)
run(make(nn.CrossEntropyLoss, label_smoothing=0.1, weight=cw), logits, tgt)
run(make(nn.CrossEntropyLoss), logits, probs)
run(make(nn.CrossEntropyLoss, label_smoothing=0.2), logits, probs)
img, imgt = T(2, 3, 2, 2), torch.tensor([[[0, 2], [1, 1]], [[2, 0], [0, -100]]])
run(make(nn.CrossEntropyLoss), img, imgt)
run(make(nn.NLLLoss, weight=cw[:3]), F.log_softmax(img, 1), imgt)
run(make(nn.NLLLoss, ignore_index=1), F.log_softmax(logits, 1), tgt)
tb = (T(3, 4) > 0).float()
run(make(nn.BCELoss), torch.sigmoid(T(3, 4)), tb)
run(make(nn.BCELoss, weight=torch.tensor([1.0, 2.0, 1.0, 0.5])), torch.sigmoid(T(3, 4)), tb)
run(make(nn.BCEWithLogitsLoss, pos_weight=torch.tensor([3.0, 1.0, 1.0, 0.5])), T(3, 4) * 3, tb)
run(make(nn.BCEWithLogitsLoss, weight=torch.tensor([2.0])), T(3, 4) * 30, tb)
a, b = T(3, 4), T(3, 4)
run(make(nn.MSELoss), a, b)
run(make(nn.L1Loss), a, b)
run(make(nn.SmoothL1Loss, beta=0.5), a * 2, b)
run(make(nn.SmoothL1Loss, beta=0.0), a * 2, b)
run(make(nn.HuberLoss, delta=0.7), a * 2, b)
run(make(nn.SoftMarginLoss), a, torch.sign(b))
run(make(nn.KLDivLoss), F.log_softmax(a, 1), F.softmax(b, 1))
run(make(nn.KLDivLoss, log_target=True), F.log_softmax(a, 1), F.log_softmax(b, 1))
kl = nn.KLDivLoss(reduction="batchmean")
print(kl, round(kl(F.log_softmax(a, 1), F.softmax(b, 1)).item(), 4))
rate = torch.exp(T(3, 4) * 0.3) * 2
counts = torch.from_numpy(rng.poisson(2.0, (3, 4)).astype(np.float32))
run(make(nn.PoissonNLLLoss), torch.log(rate), counts)
run(make(nn.PoissonNLLLoss, log_input=False, full=True), rate, counts)
var = torch.exp(T(3, 4) * 0.2)
run(make(nn.GaussianNLLLoss), a, b, var)
run(make(nn.GaussianNLLLoss, full=True, eps=1e-3), a, b, var[:, :1])
run(make(nn.GaussianNLLLoss), a, b, var[:, 0])
run(make(nn.HingeEmbeddingLoss, margin=0.5), a.abs(), torch.sign(b))
run(make(nn.MultiLabelSoftMarginLoss, weight=torch.tensor([1.0, 2.0, 1.0, 1.0])), a, tb)
run(make(nn.MultiLabelMarginLoss), a, torch.tensor([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 0, 0]]))
run(make(nn.MultiMarginLoss), logits, tgt)
run(make(nn.MultiMarginLoss, p=2, margin=0.5, weight=cw), logits, tgt)
y = torch.tensor([1.0, -1.0, 1.0])
run(make(nn.MarginRankingLoss, margin=0.2), a[:, 0], b[:, 0], y)
run(make(nn.CosineEmbeddingLoss, margin=0.1), a, b, y)
anc, pos, neg = T(3, 4), T(3, 4), T(3, 4)
run(make(nn.TripletMarginLoss, margin=1.0, p=1.0, swap=True), anc, pos, neg)
run(make(nn.TripletMarginWithDistanceLoss, distance_function=nn.PairwiseDistance(), margin=1.5), anc, pos, neg)
cos = make(nn.TripletMarginWithDistanceLoss, distance_function=lambda u, v: 1.0 - F.cosine_similarity(u, v))
run(cos, anc, pos, neg)

# CTC: the docstring's padded-target example with fixed sizes
Tn, C, N, S = 12, 5, 3, 4
lp = F.log_softmax(T(Tn, N, C), 2).detach().requires_grad_()
targets = torch.tensor([[1, 2, 2, 3], [4, 1, 0, 0], [3, 3, 3, 1]])
in_len, tg_len = torch.tensor([12, 10, 7]), torch.tensor([4, 2, 4])
for red in ("none", "sum", "mean"):
    print("ctc", red, r(nn.CTCLoss(reduction=red)(lp, targets, in_len, tg_len), 3))
nn.CTCLoss()(lp, targets, in_len, tg_len).backward()
print("ctc grad", r(lp.grad[0, 0]), r(lp.grad[8, 2]))
flat = torch.cat([targets[0, :4], targets[1, :2], targets[2, :4]])
print("ctc concat", round(F.ctc_loss(lp, flat, in_len, tg_len).item(), 4))
short = torch.tensor([12, 10, 3])
print("ctc inf", r(F.ctc_loss(lp, targets, short, tg_len, reduction="none")),
      r(F.ctc_loss(lp, targets, short, tg_len, reduction="none", zero_infinity=True)))
blank4 = nn.CTCLoss(blank=4)
print(blank4, round(blank4(lp, targets.clamp(max=3), in_len, tg_len).item(), 4))
print("unbatched", round(F.ctc_loss(lp[:, 0], targets[0], torch.tensor(12), torch.tensor(4)).item(), 4))

# errors
err(lambda: F.cross_entropy(logits, torch.tensor([1, 0, 5, 2])))
err(lambda: F.cross_entropy(logits, torch.tensor([1, 0, 4])))
err(lambda: F.cross_entropy(logits, tgt.float()))
err(lambda: F.nll_loss(logits, tgt, weight=torch.ones(4)))
err(lambda: F.cross_entropy(logits, probs[:, :4]))
err(lambda: F.binary_cross_entropy(torch.sigmoid(a), tb[:2]))
err(lambda: F.binary_cross_entropy(a, tb))
err(lambda: F.mse_loss(a, b[:, :3]))
err(lambda: F.gaussian_nll_loss(a, b, -var))
err(lambda: F.gaussian_nll_loss(a, b, var[:2]))
err(lambda: F.multi_margin_loss(logits, tgt, p=3))
err(lambda: F.kl_div(a, b, reduction="avg"))
err(lambda: F.ctc_loss(lp, targets, in_len, torch.tensor([4, 2, 5])))
err(lambda: F.margin_ranking_loss(a[:, 0], b[:, 0], y[:2]))
err(lambda: F.cosine_embedding_loss(a, b[:2], y))
err(lambda: nn.CrossEntropyLoss(label_smoothing=1.5)(logits, tgt))
print("negative smoothing", round(F.cross_entropy(logits, tgt, label_smoothing=-0.1).item(), 4),
      round(F.cross_entropy(logits, probs, label_smoothing=-0.1).item(), 4))
err(lambda: F.cross_entropy(logits, probs, ignore_index=1))
err(lambda: F.cosine_embedding_loss(a, b, y[:, None]))
err(lambda: F.cosine_embedding_loss(a, b, torch.tensor(1.0)))
err(lambda: F.soft_margin_loss(a, b[:, :2]))
