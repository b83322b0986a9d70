"""Matching networks (Vinyals et al.) as few-shot code writes them: a shared embedding, full-context embeddings of the
support set (a bidirectional LSTM) and of the query (an attention LSTM over the support), cosine-similarity
attention through F.cosine_similarity broadcasting and normalized matrix products, predictions as attention-weighted
one-hot labels, and the similarity functions' edge cases and errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
D = 16


class FullContextEmbedding(nn.Module):
    def __init__(self, d, k_steps=3):
        super().__init__()
        self.bilstm = nn.LSTM(d, d, batch_first=True, bidirectional=True)
        self.att_cell = nn.LSTMCell(d, d)
        self.k_steps = k_steps

    def support(self, g):  # (S, D) -> (S, D): g + forward state + backward state
        out, _ = self.bilstm(g.unsqueeze(0))
        fw, bw = out.squeeze(0).chunk(2, dim=-1)
        return g + fw + bw

    def query(self, f, g):  # (Q, D), (S, D) -> (Q, D): attention LSTM read over the support
        h, c = torch.zeros_like(f), torch.zeros_like(f)
        for _ in range(self.k_steps):
            a = F.softmax(h @ g.T, dim=1)
            r = a @ g
            h, c = self.att_cell(f, (h + r, c))
            h = h + f
        return h


class MatchingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(10, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, D))
        self.fce = FullContextEmbedding(D)

    def forward(self, xs, ys_onehot, xq, fce=True):
        g, f = self.embed(xs), self.embed(xq)
        if fce:
            g = self.fce.support(g)
            f = self.fce.query(f, g)
        sims = F.cosine_similarity(f.unsqueeze(1), g.unsqueeze(0), dim=-1)  # (Q, S)
        attn = F.softmax(sims * 10.0, dim=1)
        return attn @ ys_onehot, sims


centers = torch.randn(8, 10) * 2


def episode(n_way=4, k_shot=2, n_query=3):
    cls = torch.randperm(8)[:n_way]
    xs = centers[cls].repeat_interleave(k_shot, 0) + 0.5 * torch.randn(n_way * k_shot, 10)
    xq = centers[cls].repeat_interleave(n_query, 0) + 0.5 * torch.randn(n_way * n_query, 10)
    ys = torch.arange(n_way).repeat_interleave(k_shot)
    yq = torch.arange(n_way).repeat_interleave(n_query)
    return xs, F.one_hot(ys, n_way).float(), xq, yq


net = MatchingNet()
opt = torch.optim.RMSprop(net.parameters(), lr=1e-3, alpha=0.9)
for it in range(6):
    xs, ys1, xq, yq = episode()
    probs, sims = net(xs, ys1, xq)
    loss = F.nll_loss(probs.clamp_min(1e-8).log(), yq)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (probs.argmax(1) == yq).float().mean().item()
    print(f"it {it} loss {loss.item():.4f} acc {acc:.4f} sims range [{sims.min().item():.4f}, {sims.max().item():.4f}]")

# without FCE, cosine attention equals normalized dot products
xs, ys1, xq, yq = episode(n_way=3, k_shot=1, n_query=2)
with torch.no_grad():
    probs, sims = net(xs, ys1, xq, fce=False)
    g, f = net.embed(xs), net.embed(xq)
    manual = F.normalize(f, dim=1) @ F.normalize(g, dim=1).T
    print("cosine == normalized mm", torch.allclose(sims, manual, atol=1e-6), "rows sum to 1",
          torch.allclose(probs.sum(1), torch.ones(6)))
    print("pairwise_distance", F.pairwise_distance(f[:2], g[:2], p=2.0, eps=1e-6, keepdim=True).round(decimals=4)
          .tolist())

# cosine_similarity edge cases: zero vectors, eps, broadcasting, dim choices, dtypes
z = torch.zeros(3)
print("zero vector", F.cosine_similarity(z, torch.ones(3), dim=0).item())
a = torch.tensor([[1e-5, 0.0], [3.0, 4.0]])
b = torch.tensor([[1e-5, 0.0], [4.0, 3.0]])
print("eps default", F.cosine_similarity(a, b).tolist(), "eps=1e-3", F.cosine_similarity(a, b, eps=1e-3).tolist())
print("broadcast", tuple(F.cosine_similarity(torch.randn(5, 1, 4), torch.randn(1, 3, 4), dim=2).shape))
print("dim 0", F.cosine_similarity(torch.eye(3), torch.ones(3, 3), dim=0).round(decimals=4).tolist())
print("float64", F.cosine_similarity(torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3)).dtype)
cs = nn.CosineSimilarity(dim=1, eps=1e-8)
print("module", cs, cs(torch.ones(2, 3), -torch.ones(2, 3)).tolist())

# gradient of cosine similarity is orthogonal to its input
u = torch.randn(5, requires_grad=True)
v = torch.randn(5)
F.cosine_similarity(u, v, dim=0).backward()
print("grad orthogonal to u", abs(torch.dot(u.grad, u.detach()).item()) < 1e-6)

for bad in [lambda: F.cosine_similarity(torch.ones(2, 3), torch.ones(2, 4)),
            lambda: F.cosine_similarity(torch.ones(2, 3), torch.ones(2, 3), dim=2),
            lambda: F.pairwise_distance(torch.ones(2, 3), torch.ones(3, 3)),
            lambda: F.one_hot(torch.tensor([0, 5]), 4),
            lambda: F.one_hot(torch.tensor([0.0, 1.0]), 2)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
