"""DGCNN as its reference code writes it: pairwise distances by -2 x^T x with topk on the negated values, a flat
index with idx_base for gathering neighbourhoods out of a (B*N, C) view, edge features cat(x_j - x_i, x_i), Conv2d +
BatchNorm2d + LeakyReLU(0.2), max over k with keepdim, adaptive max/avg pooling of the global feature, a smoothed
cross-entropy written by hand, and a cosine-annealed SGD schedule."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def knn(x, k):
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x**2, dim=1, keepdim=True)
    pairwise = -xx - inner - xx.transpose(2, 1)
    return pairwise.topk(k=k, dim=-1)[1]


def get_graph_feature(x, k=4, idx=None):
    b, c, n = x.size()
    if idx is None:
        idx = knn(x, k=k)
    idx_base = torch.arange(0, b).view(-1, 1, 1) * n
    flat = (idx + idx_base).view(-1)
    x = x.transpose(2, 1).contiguous()
    feature = x.view(b * n, -1)[flat, :].view(b, n, k, c)
    x = x.view(b, n, 1, c).repeat(1, 1, k, 1)
    return torch.cat((feature - x, x), dim=3).permute(0, 3, 1, 2).contiguous(), idx


class DGCNN(nn.Module):
    def __init__(self, k=4, emb=32, n_cls=4):
        super().__init__()
        self.k = k
        self.conv1 = nn.Sequential(nn.Conv2d(6, 16, 1, bias=False), nn.BatchNorm2d(16),
            nn.LeakyReLU(negative_slope=0.2))
        self.conv2 = nn.Sequential(nn.Conv2d(32, 16, 1, bias=False), nn.BatchNorm2d(16),
            nn.LeakyReLU(negative_slope=0.2))
        self.conv3 = nn.Sequential(nn.Conv1d(32, emb, 1, bias=False), nn.BatchNorm1d(emb), nn.LeakyReLU(0.2))
        self.linear = nn.Sequential(nn.Linear(emb * 2, 16, bias=False), nn.BatchNorm1d(16), nn.LeakyReLU(0.2),
                                    nn.Dropout(p=0.0), nn.Linear(16, n_cls))

    def forward(self, x):
        b = x.size(0)
        e, idx = get_graph_feature(x, self.k)
        x1 = self.conv1(e).max(dim=-1, keepdim=False)[0]
        e, _ = get_graph_feature(x1, self.k)
        x2 = self.conv2(e).max(dim=-1, keepdim=True)[0].squeeze(-1)
        x = self.conv3(torch.cat((x1, x2), dim=1))
        g = torch.cat((F.adaptive_max_pool1d(x, 1).view(b, -1), F.adaptive_avg_pool1d(x, 1).view(b, -1)), 1)
        return self.linear(g), idx


def cal_loss(pred, gold, smoothing=True, eps=0.2):
    gold = gold.contiguous().view(-1)
    if smoothing:
        n_class = pred.size(1)
        one_hot = torch.zeros_like(pred).scatter(1, gold.view(-1, 1), 1)
        one_hot = one_hot * (1 - eps) + (1 - one_hot) * eps / (n_class - 1)
        log_prb = F.log_softmax(pred, dim=1)
        return -(one_hot * log_prb).sum(dim=1).mean()
    return F.cross_entropy(pred, gold, reduction="mean")


pts = torch.randn(4, 3, 32)
idx = knn(pts, 5)
print("knn", idx.shape, idx.dtype, idx[0, :3].tolist())
print("self first", bool((idx[..., 0] == torch.arange(32)).all()))
feat, _ = get_graph_feature(pts, k=5)
print("edge feature", feat.shape, feat.is_contiguous(), round(feat[:, :3].abs().sum().item(), 3))
print("center half equal", torch.equal(feat[:, 3:, :, 0], pts))

model = DGCNN()
labels = torch.tensor([0, 1, 2, 3])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=1e-3)
for epoch in range(5):
    model.train()
    logits, _ = model(pts)
    loss = cal_loss(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print("epoch", epoch, round(loss.item(), 4), round(sched.get_last_lr()[0], 5), loss.grad_fn.name())
print("hand vs builtin", round(cal_loss(logits, labels).item(), 4),
      round(F.cross_entropy(logits, labels, label_smoothing=0.2 * 4 / 3).item(), 4))
print("plain", round(cal_loss(logits, labels, smoothing=False).item(), 4))
model.eval()
with torch.no_grad():
    out, _ = model(pts)
print("eval", out.round(decimals=4).tolist()[0], out.argmax(-1).tolist())
print("running var", model.conv1[1].running_var[:4].round(decimals=4).tolist())
print("n params", sum(p.numel() for p in model.parameters()), len(model.state_dict()))
try:
    get_graph_feature(pts, k=40)
except Exception as e:
    print(type(e).__name__, e)
try:
    model.conv1(pts)
except Exception as e:
    print(type(e).__name__, e)
