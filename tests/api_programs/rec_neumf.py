"""Neural collaborative filtering: GMF and MLP branches fused into NeuMF, pretraining, BCE with pos_weight."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(71)
torch.set_printoptions(precision=4)

n_users, n_items, n_neg = 16, 24, 3
true_u = torch.randn(n_users, 2)
true_i = torch.randn(n_items, 2)
pos_mask = (true_u @ true_i.T) > 1.0
pos = pos_mask.nonzero()
print("positives", pos.shape[0], "density", round(pos_mask.float().mean().item(), 4))

# training instances: every positive with n_neg uniform negatives
g = torch.Generator().manual_seed(0)
neg_items = torch.randint(0, n_items, (pos.shape[0] * n_neg,), generator=g)
neg_users = pos[:, 0].repeat_interleave(n_neg)
collide = pos_mask[neg_users, neg_items]
print("sampled negatives that are positives", int(collide.sum()))
users = torch.cat([pos[:, 0], neg_users[~collide]])
items = torch.cat([pos[:, 1], neg_items[~collide]])
labels = torch.cat([torch.ones(pos.shape[0]), torch.zeros(int((~collide).sum()))])
print("instances", users.shape, "pos ratio", round(labels.mean().item(), 4))
pos_weight = (labels == 0).sum() / (labels == 1).sum()
print("pos_weight", round(pos_weight.item(), 4))


class GMF(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.eu = nn.Embedding(n_users, d)
        self.ei = nn.Embedding(n_items, d)
        self.out = nn.Linear(d, 1)

    def features(self, u, i):
        return self.eu(u) * self.ei(i)

    def forward(self, u, i):
        return self.out(self.features(u, i)).squeeze(-1)


class MLP(nn.Module):
    def __init__(self, d=8, layers=(16, 8, 4)):
        super().__init__()
        self.eu = nn.Embedding(n_users, d)
        self.ei = nn.Embedding(n_items, d)
        mods, prev = [], 2 * d
        for h in layers:
            mods += [nn.Linear(prev, h), nn.ReLU(), nn.Dropout(0.1)]
            prev = h
        self.tower = nn.Sequential(*mods)
        self.out = nn.Linear(prev, 1)

    def features(self, u, i):
        return self.tower(torch.cat([self.eu(u), self.ei(i)], dim=-1))

    def forward(self, u, i):
        return self.out(self.features(u, i)).squeeze(-1)


class NeuMF(nn.Module):
    def __init__(self, gmf, mlp, alpha=0.5):
        super().__init__()
        self.gmf, self.mlp = gmf, mlp
        self.predict = nn.Linear(8 + 4, 1)
        with torch.no_grad():
            self.predict.weight.copy_(torch.cat([alpha * gmf.out.weight, (1 - alpha) * mlp.out.weight], dim=1))
            self.predict.bias.copy_(alpha * gmf.out.bias + (1 - alpha) * mlp.out.bias)

    def forward(self, u, i):
        return self.predict(torch.cat([self.gmf.features(u, i), self.mlp.features(u, i)], -1)).squeeze(-1)


def train(model, epochs, lr, opt_cls=torch.optim.Adam, seed=1):
    ds = TensorDataset(users, items, labels)
    loader = DataLoader(ds, batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(seed))
    opt = opt_cls(model.parameters(), lr=lr)
    model.train()
    for _ in range(epochs):
        total = 0.0
        for u, i, y in loader:
            logit = model(u, i)
            loss = F.binary_cross_entropy_with_logits(logit, y, pos_weight=pos_weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(y)
    return total / len(ds)


@torch.no_grad()
def evaluate(model, k=5):
    model.eval()
    uu = torch.arange(n_users).repeat_interleave(n_items)
    ii = torch.arange(n_items).repeat(n_users)
    scores = torch.sigmoid(model(uu, ii)).view(n_users, n_items)
    top = scores.topk(k, dim=1).indices
    hits = pos_mask.gather(1, top).float()
    disc = 1 / torch.log2(torch.arange(k) + 2.0)
    dcg = (hits * disc).sum(1)
    ideal = (pos_mask.sum(1, keepdim=True) > torch.arange(k)).float()
    idcg = (ideal * disc).sum(1).clamp(min=1e-9)
    valid = pos_mask.any(1)
    return (hits.sum(1)[valid] > 0).float().mean().item(), (dcg / idcg)[valid].mean().item(), scores


torch.manual_seed(72)
gmf, mlp = GMF(), MLP()
print(mlp.tower)
print("gmf loss", round(train(gmf, 15, 0.02), 4), "mlp loss", round(train(mlp, 15, 0.01), 4))
hr, ndcg, _ = evaluate(gmf)
print(f"GMF HR@5 {hr:.4f} NDCG@5 {ndcg:.4f}")
hr, ndcg, _ = evaluate(mlp)
print(f"MLP HR@5 {hr:.4f} NDCG@5 {ndcg:.4f}")

neumf = NeuMF(gmf, mlp)
print("fused predict weight", neumf.predict.weight.shape, neumf.predict.bias.data)
print("shared params", neumf.gmf.eu.weight is gmf.eu.weight, "n params", sum(p.numel() for p in neumf.parameters()))
print("neumf loss", round(train(neumf, 8, 0.005, torch.optim.SGD), 4))
hr, ndcg, scores = evaluate(neumf)
print(f"NeuMF HR@5 {hr:.4f} NDCG@5 {ndcg:.4f}")
print("user 0 scores", scores[0, :8])

# the pos_weight identity: it scales the positive term only
logit = torch.tensor([0.3, -1.2, 2.0])
y = torch.tensor([1.0, 0.0, 1.0])
pw = torch.tensor(2.5)
a = F.binary_cross_entropy_with_logits(logit, y, pos_weight=pw, reduction="none")
b = -(pw * y * F.logsigmoid(logit) + (1 - y) * F.logsigmoid(-logit))
print("pos_weight terms", a, torch.allclose(a, b))
w = torch.tensor([1.0, 0.5, 2.0])
print("weight and pos_weight", F.binary_cross_entropy_with_logits(logit, y, weight=w, pos_weight=pw))
crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 3.0]))
print(crit, crit.pos_weight, round(crit(torch.zeros(4, 2), torch.ones(4, 2)).item(), 4))
try:
    F.binary_cross_entropy_with_logits(logit, y[:2])
except ValueError as e:
    print("ValueError:", e)
print("bce on probs", round(F.binary_cross_entropy(torch.sigmoid(logit), y).item(), 4),
      round(F.binary_cross_entropy_with_logits(logit, y).item(), 4))
