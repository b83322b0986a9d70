"""Class-imbalance losses for a fraud-like tabular task: pos_weight, class weights, label smoothing, focal loss."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
logits = torch.randn(16, requires_grad=True)
y = torch.tensor([0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]).float()
n_pos = y.sum()
pos_weight = (len(y) - n_pos) / n_pos
print("pos_weight", pos_weight.item())
for red in ["mean", "sum", "none"]:
    l = nn.BCEWithLogitsLoss(pos_weight=pos_weight.reshape(1), reduction=red)(logits, y)
    print("bce", red, l.round(decimals=4).tolist() if red == "none" else round(l.item(), 4))
w = torch.where(y == 1, 2.0, 0.5)
l = F.binary_cross_entropy_with_logits(logits, y, weight=w, pos_weight=torch.tensor([3.0]))
l.backward()
print("bce weight+pos", round(l.item(), 4), l.grad_fn.name(), logits.grad[:4].round(decimals=4).tolist())
# multi-label with per-label pos_weight
ml = torch.randn(6, 3)
mt = (torch.rand(6, 3) > 0.7).float()
print("multilabel", round(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 5.0]))(ml, mt).item(), 4))
print("bce soft targets", round(F.binary_cross_entropy_with_logits(ml, mt * 0.9 + 0.05).item(), 4))
print("bce probs", round(F.binary_cross_entropy(torch.sigmoid(ml), mt, weight=torch.tensor([1.0, 0.5, 2.0])).item(), 4))

# multiclass: inverse-frequency weights, label smoothing, ignore_index
logits3 = torch.randn(10, 4, requires_grad=True)
t3 = torch.tensor([0, 0, 0, 0, 0, 1, 1, 2, 3, -100])
counts = torch.bincount(t3[t3 >= 0], minlength=4).float()
cw = counts.sum() / (4 * counts)
print("class weights", cw.round(decimals=4).tolist())
for ls in [0.0, 0.1]:
    for red in ["mean", "sum"]:
        crit = nn.CrossEntropyLoss(weight=cw, label_smoothing=ls, reduction=red)
        print("ce", ls, red, round(crit(logits3, t3).item(), 4))
crit = nn.CrossEntropyLoss(weight=cw, label_smoothing=0.2, reduction="none")
print("ce none", crit(logits3, t3).round(decimals=4).tolist())
print(crit, crit.ignore_index, crit.label_smoothing)
# probability targets with weights and smoothing
soft = F.one_hot(t3.clamp(min=0), 4).float() * 0.8 + 0.05
l = F.cross_entropy(logits3, soft, weight=cw, label_smoothing=0.1)
l.backward()
print("ce soft", round(l.item(), 4), logits3.grad.sum(1).abs().max().item() < 1e-6)
lw = cw.clone().requires_grad_()
F.cross_entropy(logits3.detach(), soft, weight=lw, label_smoothing=0.1, reduction="sum").backward()
print("learnable weights, soft targets", lw.grad.round(decimals=4).tolist())
print("nll weighted", round(F.nll_loss(F.log_softmax(logits3, 1), t3, weight=cw).item(), 4))


class FocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0, reduction="mean"):
        super().__init__()
        self.alpha, self.gamma, self.reduction = alpha, gamma, reduction

    def forward(self, logits, targets):
        p = torch.sigmoid(logits)
        ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce * (1 - p_t) ** self.gamma
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        loss = alpha_t * loss
        return loss.mean() if self.reduction == "mean" else loss.sum()


def multiclass_focal(logits, t, gamma=2.0, weight=None):
    logp = F.log_softmax(logits, dim=-1)
    logp_t = logp.gather(1, t.unsqueeze(1)).squeeze(1)
    ce = F.nll_loss(logp, t, weight=weight, reduction="none")
    return ((1 - logp_t.exp()) ** gamma * ce).mean()


fl = FocalLoss()
print(
    "focal",
    round(fl(logits.detach(), y).item(), 4),
    round(FocalLoss(gamma=0.0, alpha=0.5)(logits.detach(), y).item() * 2, 4),
)
print("focal gamma0 == bce", round(F.binary_cross_entropy_with_logits(logits.detach(), y).item(), 4))
print("mc focal", round(multiclass_focal(logits3.detach()[:9], t3[:9], weight=cw).item(), 4))
print(
    "poly1",
    round(
        (
            F.cross_entropy(logits3.detach()[:9], t3[:9], reduction="none")
            + (1 - F.softmax(logits3.detach()[:9], 1).gather(1, t3[:9, None]).squeeze(1))
        )
        .mean()
        .item(),
        4,
    ),
)

for name, fn in [
    ("ce bad weight", lambda: F.cross_entropy(logits3, t3, weight=torch.ones(3))),
    ("ce smoothing >1", lambda: F.cross_entropy(logits3, t3, label_smoothing=1.5)),
    ("bce shape", lambda: F.binary_cross_entropy_with_logits(logits, y[:8])),
    ("bce int target", lambda: F.binary_cross_entropy_with_logits(logits, y.long())),
    ("bce out of range", lambda: F.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([2.0]))),
    (
        "learnable pos_weight",
        lambda: F.binary_cross_entropy_with_logits(logits, y, pos_weight=torch.ones(1, requires_grad=True)),
    ),
    ("learnable class weights", lambda: nn.CrossEntropyLoss(weight=nn.Parameter(cw.clone()))(logits3, t3)),
    ("ce target range", lambda: F.cross_entropy(logits3, torch.full((10,), 4))),
    ("ce float target wrong shape", lambda: F.cross_entropy(logits3, torch.rand(10, 3))),
]:
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
