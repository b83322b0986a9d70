"""Hierarchical graph pooling (TopK, DiffPool) and a heterogeneous R-GCN, written with plain tensor ops."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(13)


def r(t, k=8):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def arr(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


# two graphs in one batch: 5 and 4 nodes
sizes = [5, 4]
batch = torch.repeat_interleave(torch.arange(2), torch.tensor(sizes))
e = torch.tensor([[0, 1, 2, 3, 1, 5, 6, 7, 5], [1, 2, 3, 4, 4, 6, 7, 8, 8]])
e_dup = torch.cat([e, e[:, :2]], dim=1)
und = torch.cat([e_dup, e_dup.flip(0)], dim=1)
ei = torch.unique(und, dim=1)
print("to_undirected", tuple(und.shape), "->", tuple(ei.shape), ei[:, :6].tolist())
N = batch.numel()
x = arr(N, 4)
deg = torch.zeros(N, dtype=torch.long).scatter_add_(0, ei[0], torch.ones_like(ei[0]))
print("degree", deg.tolist(), deg.dtype)


def topk_per_graph(score, ratio, batch):
    """the top ceil(ratio * n_i) nodes of each graph, graph by graph, best first."""
    counts = torch.bincount(batch)
    k = torch.ceil(ratio * counts.float()).long()
    order = torch.argsort(score, descending=True, stable=True)
    order = order[torch.argsort(batch[order], stable=True)]
    start = torch.cat([counts.new_zeros(1), counts.cumsum(0)[:-1]])
    rank = torch.arange(N) - start[batch[order]]
    return order[rank < k[batch[order]]], k


def filter_adj(ei, perm, n):
    mapping = torch.full((n,), -1, dtype=torch.long)
    mapping[perm] = torch.arange(perm.numel())
    row, col = mapping[ei[0]], mapping[ei[1]]
    keep = (row >= 0) & (col >= 0)
    return torch.stack([row[keep], col[keep]])


class TopKPool(nn.Module):
    def __init__(self, ch, ratio=0.5):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(1, ch))
        self.ratio = ratio

    def forward(self, x, ei, batch):
        score = (x * self.weight).sum(-1) / self.weight.norm(p=2, dim=-1)
        perm, k = topk_per_graph(score, self.ratio, batch)
        x = x[perm] * torch.tanh(score[perm]).unsqueeze(-1)
        return x, filter_adj(ei, perm, score.numel()), batch[perm], perm, k


pool = TopKPool(4)
with torch.no_grad():
    pool.weight.copy_(arr(1, 4))
xp, eip, bp, perm, k = pool(x.requires_grad_(True), ei, batch)
print("perm", perm.tolist(), "k", k.tolist(), "new batch", bp.tolist())
print("pooled", tuple(xp.shape), r(xp))
print("filtered edges", eip.tolist())
xp.sum().backward()
print("pool weight grad", r(pool.weight.grad), "x grad rows nonzero", (x.grad.abs().sum(1) > 0).tolist())


# DiffPool on the dense batch
def dense_adj(ei, batch, nmax):
    counts = torch.bincount(batch)
    start = torch.cat([counts.new_zeros(1), counts.cumsum(0)[:-1]])
    b = batch[ei[0]]
    A = torch.zeros(counts.numel(), nmax, nmax)
    A[b, ei[0] - start[b], ei[1] - start[b]] = 1.0
    return A


nmax = max(sizes)
A = dense_adj(ei, batch, nmax)
X = torch.zeros(2, nmax, 4)
mask = torch.arange(nmax).unsqueeze(0) < torch.tensor(sizes).unsqueeze(1)
X[mask] = x.detach()
bd = torch.block_diag(A[0], A[1][:4, :4])
print("dense A", tuple(A.shape), A.sum((1, 2)).tolist(), "block_diag", tuple(bd.shape))
gnn_pool = nn.Linear(4, 2)
gnn_embed = nn.Linear(4, 3)
with torch.no_grad():
    gnn_pool.weight.copy_(arr(2, 4, scale=0.5))
    gnn_pool.bias.zero_()
    gnn_embed.weight.copy_(arr(3, 4, scale=0.5))
    gnn_embed.bias.zero_()
s = gnn_pool(A @ X + X).masked_fill(~mask.unsqueeze(-1), float("-inf")).softmax(dim=-1)
s = torch.nan_to_num(s, nan=0.0) * mask.unsqueeze(-1)
z = gnn_embed(A @ X + X)
out = s.transpose(1, 2) @ z
out_adj = s.transpose(1, 2) @ A @ s
link_loss = torch.norm(A - s @ s.transpose(1, 2), p=2) / A.numel()
ent_loss = (-s * torch.log(s + 1e-15)).sum(dim=-1).mean()
print("diffpool out", tuple(out.shape), r(out), "adj", r(out_adj))
print("link loss", round(link_loss.item(), 4), "entropy", round(ent_loss.item(), 4))
(link_loss + ent_loss + out.sum()).backward()
print("pool grad", r(gnn_pool.weight.grad))

# heterogeneous graph: R-GCN with one weight per relation, basis decomposition
relations = [("user", "buys", "item"), ("item", "rev_buys", "user"), ("user", "follows", "user")]
n_nodes = {"user": 4, "item": 3}
feats = {t: arr(n, 3) for t, n in n_nodes.items()}
edges = {
    relations[0]: torch.tensor([[0, 1, 1, 3], [0, 0, 2, 1]]),
    relations[2]: torch.tensor([[0, 1, 2], [1, 2, 3]]),
}
edges[relations[1]] = edges[relations[0]].flip(0)


class RGCN(nn.Module):
    def __init__(self, rels, fin, fout, num_bases=2):
        super().__init__()
        self.keys = ["__".join(rel) for rel in rels]
        self.bases = nn.Parameter(torch.empty(num_bases, fin, fout))
        self.comp = nn.ParameterDict({k: nn.Parameter(torch.empty(num_bases)) for k in self.keys})
        self.root = nn.ModuleDict({t: nn.Linear(fin, fout) for t in n_nodes})

    def forward(self, feats, edges):
        out = {t: self.root[t](h) for t, h in feats.items()}
        for (src, rel, dst), ei in edges.items():
            W = torch.einsum("b,bio->io", self.comp["__".join((src, rel, dst))], self.bases)
            msg = feats[src][ei[0]] @ W
            cnt = torch.bincount(ei[1], minlength=n_nodes[dst]).clamp(min=1).unsqueeze(1)
            out[dst] = out[dst] + torch.zeros(n_nodes[dst], W.size(1)).index_add_(0, ei[1], msg) / cnt
        return {t: F.relu(h) for t, h in out.items()}


rgcn = RGCN(relations, 3, 2)
with torch.no_grad():
    rgcn.bases.copy_(arr(2, 3, 2, scale=0.5))
    for k_, p in rgcn.comp.items():
        p.copy_(arr(2))
    for lin in rgcn.root.values():
        lin.weight.copy_(arr(2, 3, scale=0.5))
        lin.bias.fill_(0.1)
print("comp keys", list(rgcn.comp.keys()))
print("rgcn params", [(n, tuple(p.shape)) for n, p in rgcn.named_parameters()])
h = rgcn(feats, edges)
print("rgcn", {t: r(v, 6) for t, v in h.items()})
sum(v.sum() for v in h.values()).backward()
print("bases grad", r(rgcn.bases.grad), "comp grad", {k_: r(p.grad) for k_, p in rgcn.comp.items()})
flat = nn.utils.parameters_to_vector(rgcn.parameters())
print("flat params", tuple(flat.shape), round(flat.abs().sum().item(), 4))
try:
    rgcn.comp["user.follows"] = nn.Parameter(torch.zeros(2))
except KeyError as err:
    print("KeyError:", err)
print("OK")
