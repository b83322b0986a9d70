"""Learning without Forgetting as its reference code writes it: a frozen copy of the old model, old-task logits
distilled with temperature through F.kl_div (log_target both ways, every reduction, the 'mean' warning), the
T^2 scaling, KLDivLoss modules, and soft cross-entropy with label smoothing."""

import copy
import warnings

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.feat = nn.Sequential(nn.Linear(8, 12), nn.GELU(), nn.LayerNorm(12))
        self.old_head = nn.Linear(12, 3)
        self.new_head = nn.Linear(12, 4)

    def forward(self, x):
        h = self.feat(x)
        return self.old_head(h), self.new_head(h)


def distill(new_logits, old_logits, T):
    log_p = F.log_softmax(new_logits / T, dim=1)
    log_q = F.log_softmax(old_logits / T, dim=1)
    return F.kl_div(log_p, log_q, reduction="batchmean", log_target=True) * T * T


model = Backbone()
old = copy.deepcopy(model).eval()
for p in old.parameters():
    p.requires_grad_(False)
print("old requires_grad:", any(p.requires_grad for p in old.parameters()), "training:", old.training)

x = torch.randn(16, 8)
y = torch.randint(0, 4, (16,))
with torch.no_grad():
    old_logits, _ = old(x)
print("old logits:", old_logits[:2].round(decimals=4).tolist(), old_logits.requires_grad)

a, b = torch.randn(4, 5), torch.randn(4, 5)
lp, lq = F.log_softmax(a, 1), F.log_softmax(b, 1)
for red in ["none", "sum", "batchmean"]:
    v1 = F.kl_div(lp, lq, reduction=red, log_target=True)
    v2 = F.kl_div(lp, lq.exp(), reduction=red)
    print(
        red,
        v1.round(decimals=4).sum().item() if red == "none" else round(v1.item(), 4),
        torch.allclose(v1, v2, atol=1e-6),
    )
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    m = F.kl_div(lp, lq, reduction="mean", log_target=True)
    print("mean:", round(m.item(), 4), [str(x.message)[:60] for x in w])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    m2 = F.kl_div(lp, lq.exp(), size_average=False)
    print("legacy size_average:", round(m2.item(), 4), [x.category.__name__ for x in w])

crit = nn.KLDivLoss(reduction="batchmean", log_target=True)
print(crit, crit.log_target, crit.reduction)
print("module:", round(crit(lp, lq).item(), 4))
zero = torch.tensor([[0.0, 1.0, 0.0]])
print("zero target:", F.kl_div(torch.log(torch.tensor([[0.2, 0.5, 0.3]])), zero, reduction="sum").item())

opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.05)
for T in [1.0, 2.0, 4.0]:
    for step in range(10):
        opt.zero_grad()
        o, n = model(x)
        l_new = F.cross_entropy(n, y, label_smoothing=0.1)
        l_old = distill(o, old_logits, T)
        loss = l_new + 1.0 * l_old
        loss.backward()
        opt.step()
    print(f"T={T}: new={l_new.item():.4f} old={l_old.item():.4f} grad_fn={l_old.grad_fn.name()}")

o, n = model(x)
soft = F.softmax(old_logits / 2.0, dim=1)
soft_ce = -(soft * F.log_softmax(o / 2.0, 1)).sum(1).mean()
print("soft ce:", round(soft_ce.item(), 4), "ce with probs:", round(F.cross_entropy(o / 2.0, soft).item(), 4))
print("ce probs+smoothing:", round(F.cross_entropy(o, soft, label_smoothing=0.2).item(), 4))
print("agreement:", (o.argmax(1) == old_logits.argmax(1)).sum().item())
g = torch.autograd.grad(distill(o, old_logits, 3.0), o)[0]
print("grad rows sum:", g.sum(1).abs().max().item() < 1e-6, round(g.abs().sum().item(), 4))

try:
    F.kl_div(lp, lq, reduction="avg")
except Exception as e:
    print(type(e).__name__, e)
try:
    F.kl_div(lp, lq[:3], reduction="sum")
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(o, soft[:, :2])
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(o, y.float())
except Exception as e:
    print(type(e).__name__, e)
try:
    old(x)[0].sum().backward()
except Exception as e:
    print(type(e).__name__, e)
for bad in [
    lambda: F.kl_div(lp, lq, reduction="batchmean", log_target="True"),
    lambda: F.kl_div(lp, lq.tolist(), reduction="batchmean"),
    lambda: F.cross_entropy(o, y, label_smoothing=None),
    lambda: F.cross_entropy(o, y, ignore_index=-1.0),
    lambda: F.cosine_similarity(o, old_logits, dim=None),
    lambda: F.cosine_similarity(o, old_logits, 1, None),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
