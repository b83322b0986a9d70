"""Two-tower retrieval: in-batch sampled softmax with a temperature, logQ correction, and recall@k evaluation."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(31)
torch.set_printoptions(precision=4)

n_users, n_items, d_feat = 30, 40, 6
user_feats = torch.randn(n_users, d_feat)
item_feats = torch.randn(n_items, d_feat)
affinity = user_feats @ item_feats.T
pos_item = affinity.argmax(1)
print("pos items", pos_item.tolist())
item_freq = torch.bincount(pos_item, minlength=n_items).float() + 1.0
item_prob = item_freq / item_freq.sum()
print("item prob head", item_prob[:6])


class Tower(nn.Module):
    def __init__(self, n, d_in, d_out):
        super().__init__()
        self.id_emb = nn.Embedding(n, 8)
        self.mlp = nn.Sequential(nn.Linear(d_in + 8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, d_out))

    def forward(self, ids, feats):
        h = self.mlp(torch.cat([self.id_emb(ids), feats], dim=-1))
        return F.normalize(h, p=2, dim=-1)


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = Tower(n_users, d_feat, 8)
        self.candidate = Tower(n_items, d_feat, 8)
        self.log_inv_temp = nn.Parameter(torch.tensor(math.log(1 / 0.1)))

    def temperature(self):
        return 1.0 / self.log_inv_temp.clamp(max=math.log(100.0)).exp()

    def forward(self, u, i):
        return self.query(u, user_feats[u]), self.candidate(i, item_feats[i])


model = TwoTower()
print("n params", sum(p.numel() for p in model.parameters()))
print("temperature", round(model.temperature().item(), 4))


def in_batch_loss(q, c, items, temp, logq=True, smoothing=0.0):
    logits = q @ c.T / temp
    if logq:
        logits = logits - torch.log(item_prob[items]).unsqueeze(0)
    # duplicate items in the batch are not negatives of each other
    dup = items.unsqueeze(0) == items.unsqueeze(1)
    eye = torch.eye(len(items), dtype=torch.bool)
    logits = logits.masked_fill(dup & ~eye, torch.finfo(logits.dtype).min)
    labels = torch.arange(len(items))
    return F.cross_entropy(logits, labels, label_smoothing=smoothing), logits


u = torch.tensor([0, 1, 2, 3, 4, 5])
i = pos_item[u]
q, c = model(u, i)
print("norms", q.norm(dim=1))
loss, logits = in_batch_loss(q, c, i, model.temperature())
print("batch items", i.tolist())
print("logits", logits.shape, logits[0])
print("loss", round(loss.item(), 4))
print("loss no logq", round(in_batch_loss(q, c, i, model.temperature(), logq=False)[0].item(), 4))
print("loss smoothing", round(in_batch_loss(q, c, i, model.temperature(), smoothing=0.1)[0].item(), 4))
sym = 0.5 * (F.cross_entropy(q @ c.T / 0.1, torch.arange(6)) + F.cross_entropy(c @ q.T / 0.1, torch.arange(6)))
print("symmetric infonce", round(sym.item(), 4))
print("cosine agrees", torch.allclose(F.cosine_similarity(q, c, dim=-1), (q * c).sum(-1), atol=1e-6))

opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
gen = torch.Generator().manual_seed(3)
for step in range(80):
    u = torch.randperm(n_users, generator=gen)[:10]
    i = pos_item[u]
    q, c = model(u, i)
    loss, _ = in_batch_loss(q, c, i, model.temperature())
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if step % 20 == 0 or step == 79:
        print(f"step {step:2d} loss {loss.item():.4f} grad norm {gn.item():.4f} temp {model.temperature().item():.4f}")

# offline evaluation: embed the whole corpus once, brute-force top-k
model.eval()
with torch.no_grad():
    all_q = model.query(torch.arange(n_users), user_feats)
    all_c = model.candidate(torch.arange(n_items), item_feats)
    scores = all_q @ all_c.T
print("index", all_c.shape, all_c.dtype)
for k in (1, 5, 10):
    topk = scores.topk(k, dim=1).indices
    hit = (topk == pos_item.unsqueeze(1)).any(1).float()
    print(f"recall@{k} {hit.mean().item():.4f}")
rank = (scores > scores.gather(1, pos_item.unsqueeze(1))).sum(1) + 1
print("ranks", rank.tolist())
print("mrr", round((1.0 / rank.float()).mean().item(), 4))

# approximate retrieval by clustering the index: assign to the nearest of 4 centroids
cent = all_c[torch.randperm(n_items, generator=torch.Generator().manual_seed(0))[:4]]
for _ in range(5):
    assign = torch.cdist(all_c, cent).argmin(1)
    cent = torch.stack([all_c[assign == k].mean(0) if (assign == k).any() else cent[k] for k in range(4)])
print("cluster sizes", torch.bincount(assign, minlength=4).tolist())
probe = (all_q @ cent.T).argmax(1)
cand_mask = assign.unsqueeze(0) == probe.unsqueeze(1)
approx = scores.masked_fill(~cand_mask, float("-inf")).argmax(1)
print("ann agrees with exact top1", round((approx == scores.argmax(1)).float().mean().item(), 4))
print("candidates scanned", cand_mask.sum(1)[:8].tolist())
