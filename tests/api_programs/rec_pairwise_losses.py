"""Pairwise ranking losses for implicit feedback: BPR three ways, hinge via margin_ranking_loss, WARP-style weights."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(41)
torch.set_printoptions(precision=4)

pos = torch.randn(8, requires_grad=True)
neg = torch.randn(8, requires_grad=True)
diff = pos - neg
print("diff", diff)

bpr_a = -F.logsigmoid(diff).mean()
bpr_b = F.softplus(-diff).mean()
bpr_c = -torch.log(torch.sigmoid(diff)).mean()
bpr_d = F.binary_cross_entropy_with_logits(diff, torch.ones_like(diff))
print("bpr logsigmoid", round(bpr_a.item(), 4), "softplus", round(bpr_b.item(), 4),
      "log(sigmoid)", round(bpr_c.item(), 4), "bce", round(bpr_d.item(), 4))
g1 = torch.autograd.grad(bpr_a, (pos, neg))
g2 = torch.autograd.grad(bpr_b, (pos, neg))
print("grads agree", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(g1, g2)))
print("d/dpos", g1[0])
print("analytic", -torch.sigmoid(-diff.detach()) / 8)

# numerically: log(sigmoid) underflows where logsigmoid does not
big = torch.tensor([-120.0, -30.0, 0.0, 30.0])
print("log(sigmoid(x))", torch.log(torch.sigmoid(big)))
print("logsigmoid(x)  ", F.logsigmoid(big))
print("softplus beta=2", F.softplus(big, beta=2.0), "threshold=5", F.softplus(torch.tensor([4.0, 6.0]), threshold=5))
print("softplus module", nn.Softplus(beta=0.5, threshold=10), nn.LogSigmoid())

# hinge / margin ranking
target = torch.ones(8)
hinge = F.margin_ranking_loss(pos, neg, target, margin=1.0)
manual = torch.clamp(1.0 - diff, min=0).mean()
print("margin ranking", round(hinge.item(), 4), "manual", round(manual.item(), 4))
for red in ["none", "sum", "mean"]:
    out = F.margin_ranking_loss(pos, neg, target, margin=0.5, reduction=red)
    print(red, out.shape, out.detach() if red == "none" else round(out.item(), 4))
flip = F.margin_ranking_loss(neg, pos, -target, margin=1.0)
print("flipped target same", torch.allclose(flip, hinge))
mrl = nn.MarginRankingLoss(margin=0.2)
print(mrl, mrl.margin, mrl.reduction)
try:
    F.margin_ranking_loss(pos, neg[:5], target)
except RuntimeError as e:
    print("RuntimeError:", e)
print("hinge_embedding", round(F.hinge_embedding_loss(diff, torch.tensor([1.0, -1] * 4), margin=0.5).item(), 4))
print("soft_margin", round(F.soft_margin_loss(diff, target).item(), 4), "== bpr", round(bpr_b.item(), 4))

# TOP1 and TOP1-max (session-based GRU4Rec) over a score matrix with in-batch negatives
scores = torch.randn(5, 5)
pos_s = scores.diag().unsqueeze(1)
top1 = (torch.sigmoid(scores - pos_s) + torch.sigmoid(scores ** 2)).mean()
w = torch.softmax(scores.masked_fill(torch.eye(5, dtype=torch.bool), float("-inf")), dim=1)
top1_max = (w * (torch.sigmoid(scores - pos_s) + torch.sigmoid(scores ** 2))).sum(1).mean()
bpr_max = -torch.log((w * torch.sigmoid(pos_s - scores)).sum(1) + 1e-24).mean()
print("top1", round(top1.item(), 4), "top1-max", round(top1_max.item(), 4), "bpr-max", round(bpr_max.item(), 4))
print("softmax rows", w.sum(1), "diag", w.diag())


# WARP: sample negatives until one violates the margin; weight by log(rank estimate)
def warp_loss(user_scores, pos_idx, n_items, gen, max_trials=10):
    losses = []
    for s, p in zip(user_scores, pos_idx):
        trials = 0
        for trials in range(1, max_trials + 1):
            n = int(torch.randint(0, n_items, (1,), generator=gen))
            if n != p and s[n] > s[p] - 1.0:
                rank_est = (n_items - 1) // trials
                weight = torch.log(torch.tensor(float(rank_est))) + 0.5772
                losses.append(weight * (1.0 - s[p] + s[n]))
                break
    return torch.stack(losses).mean() if losses else user_scores.sum() * 0, len(losses)


class MF(nn.Module):
    def __init__(self, nu, ni, d=5):
        super().__init__()
        self.U = nn.Parameter(torch.randn(nu, d) * 0.1)
        self.V = nn.Parameter(torch.randn(ni, d) * 0.1)

    def forward(self):
        return self.U @ self.V.T


torch.manual_seed(42)
nu, ni = 10, 25
pos_items = torch.randint(0, ni, (nu,))
for name in ["bpr", "hinge", "warp"]:
    torch.manual_seed(43)
    m = MF(nu, ni)
    opt = torch.optim.Adam(m.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(9)
    for step in range(40):
        s = m()
        negs = torch.randint(0, ni, (nu,), generator=gen)
        sp = s.gather(1, pos_items[:, None]).squeeze(1)
        sn = s.gather(1, negs[:, None]).squeeze(1)
        if name == "bpr":
            loss = -F.logsigmoid(sp - sn).mean()
        elif name == "hinge":
            loss = F.margin_ranking_loss(sp, sn, torch.ones(nu), margin=1.0)
        else:
            loss, n_viol = warp_loss(s, pos_items, ni, gen)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        s = m()
        rank = (s > s.gather(1, pos_items[:, None])).sum(1)
    extra = f" violations {n_viol}" if name == "warp" else ""
    print(f"{name:5s} final loss {loss.item():.4f} mean rank {rank.float().mean().item():.4f} "
          f"auc {1 - rank.float().mean().item() / (ni - 1):.4f}{extra}")
