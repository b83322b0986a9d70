"""Distillation losses at their corners: zero and negative targets, gradients to the target, smoothing with weights."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
inp = torch.randn(3, 4).log_softmax(-1).requires_grad_()
tgt = torch.tensor([[0.5, 0.5, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 0.0, 0.0]], requires_grad=True)
loss = F.kl_div(inp, tgt, reduction="sum")
loss.backward()
print("kl", round(loss.item(), 4))
print("d input", inp.grad.round(decimals=4).tolist())
print("d target", tgt.grad.round(decimals=4).tolist())
log_t = tgt.detach().log().requires_grad_()
loss_lt = F.kl_div(inp, log_t, reduction="sum", log_target=True)
loss_lt.backward()
print("log_target with -inf", loss_lt.item(), log_t.grad.round(decimals=4).tolist())
print(
    "negative target",
    F.kl_div(inp[:1].detach(), torch.tensor([[-0.5, 1.5, 0.0, 0.0]]), reduction="none").round(decimals=4).tolist(),
)
print("broadcast target", tuple(F.kl_div(inp.detach(), tgt.detach()[:1], reduction="none").shape))
print("mean", round(F.kl_div(inp.detach(), tgt.detach(), reduction="mean").item(), 4))
print("dtypes", F.kl_div(inp.detach().double(), tgt.detach().float(), reduction="sum").dtype)

# deep mutual learning: both sides receive gradients through a symmetric KL
a = torch.randn(4, 5, requires_grad=True)
b = torch.randn(4, 5, requires_grad=True)
js = 0.5 * (
    F.kl_div(F.log_softmax(a, 1), F.softmax(b, 1), reduction="batchmean")
    + F.kl_div(F.log_softmax(b, 1), F.softmax(a, 1), reduction="batchmean")
)
js.backward()
print("dml", round(js.item(), 4), round(a.grad.abs().sum().item(), 4), round(b.grad.abs().sum().item(), 4))

logits = torch.randn(2, 4, 3, requires_grad=True)
soft = torch.softmax(torch.randn(2, 4, 3), 1)
w = torch.tensor([1.0, 2.0, 3.0, 4.0])
print("soft 3d", round(F.cross_entropy(logits, soft, label_smoothing=0.2, weight=w).item(), 4))
hard = torch.tensor([[0, 1, -100], [3, -100, 2]])
ce = F.cross_entropy(logits, hard, label_smoothing=0.2, weight=w)
ce.backward()
print("hard 3d", round(ce.item(), 4), round(logits.grad.abs().sum().item(), 4))
print("none", F.cross_entropy(logits, hard, label_smoothing=0.3, reduction="none").round(decimals=4).tolist())
print("sum", round(F.cross_entropy(logits, hard, label_smoothing=0.3, reduction="sum", weight=w).item(), 4))
print("double soft", F.cross_entropy(logits, soft.double()).dtype)
for bad in [
    lambda: F.cross_entropy(logits, soft.long()),
    lambda: F.cross_entropy(logits, soft, ignore_index=1),
    lambda: F.cross_entropy(logits, hard.float()),
    lambda: F.cross_entropy(logits, soft, label_smoothing=1.5),
    lambda: F.kl_div(inp, tgt[:, :3]),
    lambda: F.kl_div(inp, tgt, reduction="avg"),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

# multi-label and regression-style distillation
ml = torch.randn(3, 4, requires_grad=True)
st = torch.sigmoid(torch.randn(3, 4))
print("bce logits", round(F.binary_cross_entropy_with_logits(ml, st, pos_weight=w).item(), 4))
print("bce", round(F.binary_cross_entropy(torch.sigmoid(ml), st, weight=w).item(), 4))
print("cosine emb", round(F.cosine_embedding_loss(a, b, torch.tensor([1, -1, 1, -1]), margin=0.2).item(), 4))
print("huber", round(F.huber_loss(a, b, delta=0.5).item(), 4), "l1", round(F.l1_loss(a, b, reduction="sum").item(), 4))
print("softmax dtype", F.softmax(a, 1, dtype=torch.float64).dtype, F.log_softmax(a.half(), 1).dtype)
print("poisson", round(F.poisson_nll_loss(a.exp(), b.abs(), log_input=False).item(), 4))
print("ranking", round(F.margin_ranking_loss(a[:, 0], b[:, 0], torch.ones(4)).item(), 4))
print("triplet", round(F.triplet_margin_loss(a, b, a.flip(0), swap=True).item(), 4))
for dt in (torch.float16, torch.bfloat16):
    l = F.kl_div(F.log_softmax(a.detach().to(dt), -1), F.softmax(b.detach().to(dt), -1), reduction="batchmean")
    print(dt, l.dtype, round(l.float().item(), 2))
print(nn.KLDivLoss(), nn.KLDivLoss(log_target=True, reduction="sum"), nn.CrossEntropyLoss(label_smoothing=0.1))
print(nn.CrossEntropyLoss(weight=w).weight.tolist(), nn.BCEWithLogitsLoss(pos_weight=w).pos_weight.shape)
