"""The weighted kNN monitor of InstDisc/DINO/solo-learn: a memory bank of L2-normalized features filled by
index_copy_, similarity by chunks of torch.mm, topk neighbours, votes weighted by exp(sim/T) summed with
scatter_add_ over one-hot targets or with F.one_hot, top-1/top-5 accuracy, a cosine-vs-euclidean variant via
torch.cdist, majority votes by torch.mode, per-class accuracy with bincount, and the ops' corner cases."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
C, D = 4, 8
centers = F.normalize(torch.randn(C, D), dim=1) * 3
train_y = torch.arange(40) % C
train_x = centers[train_y] + torch.randn(40, D)
test_y = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3, 3, 2, 1, 0])
test_x = centers[test_y] + 1.5 * torch.randn(12, D)

encoder = nn.Sequential(nn.Linear(D, 16), nn.ReLU(), nn.Linear(16, 6)).eval()
bank = torch.zeros(40, 6)
with torch.no_grad():
    for start in range(0, 40, 16):
        idx = torch.arange(start, min(start + 16, 40))
        bank.index_copy_(0, idx, F.normalize(encoder(train_x[idx]), dim=1))
print("bank", bank.shape, round(bank.norm(dim=1).mean().item(), 4), bank.t().is_contiguous())


@torch.no_grad()
def knn_predict(feature, feature_bank, feature_labels, classes, knn_k, knn_t):
    sim_matrix = torch.mm(feature, feature_bank)
    sim_weight, sim_indices = sim_matrix.topk(k=knn_k, dim=-1)
    sim_labels = torch.gather(feature_labels.expand(feature.size(0), -1), dim=-1, index=sim_indices)
    sim_weight = (sim_weight / knn_t).exp()
    one_hot_label = torch.zeros(feature.size(0) * knn_k, classes, device=sim_labels.device)
    one_hot_label = one_hot_label.scatter(dim=-1, index=sim_labels.view(-1, 1), value=1.0)
    pred_scores = torch.sum(one_hot_label.view(feature.size(0), -1, classes) * sim_weight.unsqueeze(dim=-1), dim=1)
    return pred_scores.argsort(dim=-1, descending=True), pred_scores


with torch.no_grad():
    q = F.normalize(encoder(test_x), dim=1)
labels, scores = knn_predict(q, bank.t().contiguous(), train_y, C, knn_k=5, knn_t=0.1)
top1 = (labels[:, 0] == test_y).float().sum().item()
top2 = (labels[:, :2] == test_y.unsqueeze(-1)).any(dim=-1).float().sum().item()
print("knn", labels[:, 0].tolist(), top1, top2, scores.sum(1).log().round(decimals=4).tolist()[:4])

# chunked similarity with scatter_add_ voting, DINO style
votes = torch.zeros(12, C)
for chunk in torch.split(torch.arange(12), 5):
    sim = q[chunk] @ bank.T
    w, ind = sim.topk(3, dim=1, largest=True, sorted=True)
    cand = train_y[ind]
    votes[chunk] = votes[chunk].scatter_add_(1, cand, (w / 0.07).exp())
print("scatter votes", votes.argmax(1).tolist(), torch.equal(votes.argmax(1), votes.max(dim=1).indices))
oh = F.one_hot(train_y[ind], num_classes=C)
print("one_hot", oh.shape, oh.dtype, oh.sum().item())

# euclidean neighbours and a majority vote
dist = torch.cdist(q, bank, p=2.0)
d_k, i_k = dist.topk(5, largest=False)
maj = torch.mode(train_y[i_k], dim=1)
print("cdist", d_k[:2].round(decimals=4).tolist(), maj.values.tolist(), type(maj).__name__)
print("match", torch.equal(i_k, (2 - 2 * q @ bank.T).topk(5, largest=False).indices))

# per-class accuracy and confusion by bincount
pred = labels[:, 0]
conf = torch.bincount(test_y * C + pred, minlength=C * C).view(C, C)
per_class = conf.diag().float() / conf.sum(1).clamp(min=1)
print("confusion", conf.tolist(), per_class.round(decimals=4).tolist(), conf.dtype)

# ties and small k
t = torch.tensor([[0.5, 0.5, 0.2, 0.5]])
print(
    "ties",
    t.topk(2).indices.tolist(),
    torch.mode(torch.tensor([2, 1, 1, 2, 3])).values.item(),
    t.topk(0).values.shape,
    t.argsort(dim=-1, descending=True, stable=True).tolist(),
)
for fn in [
    lambda: q.topk(50, dim=1),
    lambda: torch.zeros(2, 3).scatter_add_(1, torch.tensor([[0, 1]], dtype=torch.int32), torch.ones(1, 2)),
    lambda: F.one_hot(torch.tensor([0, 4]), num_classes=3),
    lambda: F.one_hot(torch.tensor([0.0, 1.0])),
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: bank.index_copy_(0, torch.tensor([0, 1]), torch.zeros(2, 5)),
    lambda: torch.mm(q, bank),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)
