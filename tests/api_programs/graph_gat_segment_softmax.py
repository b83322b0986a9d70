"""GAT and GraphSAGE layers written with scatter ops, as reference implementations do without PyG."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(3)


def r(t, k=8):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def arr(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


N, E, FIN, H, C = 7, 16, 4, 2, 3
src = rng.integers(0, N, E)
dst = rng.integers(0, N, E)
edge_index = torch.from_numpy(np.stack([src, dst]))
x = arr(N, FIN)


def add_self_loops(ei, n):
    keep = ei[0] != ei[1]
    loops = torch.arange(n, device=ei.device).expand(2, n)
    return torch.cat([ei[:, keep], loops], dim=1)


def segment_softmax(scores, index, n):
    """softmax of scores over the edges that share a target node (numerically stable)."""
    size = (n,) + tuple(scores.shape[1:])
    idx = index.view(-1, *([1] * (scores.dim() - 1))).expand_as(scores)
    smax = torch.full(size, float("-inf")).scatter_reduce(0, idx, scores, reduce="amax", include_self=True)
    e = (scores - smax.index_select(0, index)).exp()
    denom = torch.zeros(size).index_add_(0, index, e)
    return e / (denom[index] + 1e-16)


ei = add_self_loops(edge_index, N)
print("edges with loops", tuple(ei.shape), "removed self loops", int((edge_index[0] == edge_index[1]).sum()))


class GATLayer(nn.Module):
    def __init__(self, fin, fout, heads, concat=True, negative_slope=0.2):
        super().__init__()
        self.heads, self.fout, self.concat = heads, fout, concat
        self.lin = nn.Linear(fin, heads * fout, bias=False)
        self.att_src = nn.Parameter(torch.empty(1, heads, fout))
        self.att_dst = nn.Parameter(torch.empty(1, heads, fout))
        self.bias = nn.Parameter(torch.zeros(heads * fout if concat else fout))
        self.negative_slope = negative_slope

    def forward(self, x, ei, return_attention=False):
        h = self.lin(x).view(-1, self.heads, self.fout)
        a_s = (h * self.att_src).sum(-1)
        a_d = (h * self.att_dst).sum(-1)
        s, d = ei
        alpha = F.leaky_relu(a_s[s] + a_d[d], self.negative_slope)
        alpha = segment_softmax(alpha, d, x.size(0))
        msg = h[s] * alpha.unsqueeze(-1)
        out = torch.zeros(x.size(0), self.heads, self.fout, dtype=x.dtype).index_add_(0, d, msg)
        out = out.reshape(x.size(0), -1) if self.concat else out.mean(dim=1)
        out = out + self.bias
        return (out, alpha) if return_attention else out

    def extra_repr(self):
        return f"heads={self.heads}, out={self.fout}, concat={self.concat}"


gat1 = GATLayer(FIN, 3, H)
gat2 = GATLayer(3 * H, C, 1, concat=False)
with torch.no_grad():
    for layer in (gat1, gat2):
        layer.lin.weight.copy_(arr(*layer.lin.weight.shape, scale=0.5))
        layer.att_src.copy_(arr(*layer.att_src.shape, scale=0.5))
        layer.att_dst.copy_(arr(*layer.att_dst.shape, scale=0.5))
print(gat1)
h1, att = gat1(x, ei, return_attention=True)
print("h1", tuple(h1.shape), r(h1))
print("att", tuple(att.shape), r(att))
sums = torch.zeros(N, H).index_add_(0, ei[1], att)
print("att sums per node", r(sums, 14))
logits = gat2(F.elu(h1), ei)
print("logits", tuple(logits.shape), r(logits))

# check the segment softmax against a dense masked softmax (multi-edges removed first)
eu, inv = torch.unique(ei, dim=1, return_inverse=True)
print("unique edges", tuple(eu.shape), "inverse", inv.tolist())
dense_scores = torch.full((N, N), float("-inf"))
sc = arr(eu.size(1))
dense_scores[eu[1], eu[0]] = sc
ref = torch.softmax(dense_scores, dim=1)[eu[1], eu[0]]
print("segment vs dense", torch.allclose(segment_softmax(sc, eu[1], N), ref, atol=1e-6))

y = torch.from_numpy(rng.integers(0, C, N))
loss = F.cross_entropy(logits, y)
loss.backward()
print("loss", round(loss.item(), 4))
print("grad att_src", r(gat1.att_src.grad))
print("grad lin", r(gat1.lin.weight.grad, 6))


class SAGE(nn.Module):
    def __init__(self, fin, fout, aggr):
        super().__init__()
        self.aggr = aggr
        self.lin_l = nn.Linear(fin, fout)
        self.lin_r = nn.Linear(fin, fout, bias=False)

    def forward(self, x, ei):
        s, d = ei
        idx = d.unsqueeze(-1).expand(-1, x.size(1))
        reduce = {"mean": "mean", "max": "amax", "sum": "sum", "min": "amin"}[self.aggr]
        agg = torch.zeros_like(x).scatter_reduce(0, idx, x[s], reduce=reduce, include_self=False)
        out = self.lin_l(agg) + self.lin_r(x)
        return F.normalize(out, p=2.0, dim=-1)


for aggr in ("mean", "max", "sum", "min"):
    sage = SAGE(FIN, 3, aggr)
    with torch.no_grad():
        sage.lin_l.weight.copy_(arr(3, FIN, scale=0.5))
        sage.lin_l.bias.fill_(0.1)
        sage.lin_r.weight.copy_(arr(3, FIN, scale=0.5))
    xs = x.clone().requires_grad_(True)
    out = sage(xs, edge_index)
    out[:, 0].sum().backward()
    print("sage", aggr, r(out, 6), "norms", r(out.norm(dim=1), 3), "xgrad", r(xs.grad, 4))

# isolated nodes keep zero with include_self=False; in-degree via bincount
deg = torch.bincount(edge_index[1], minlength=N)
print("in-degree", deg.tolist(), "isolated", (deg == 0).nonzero().flatten().tolist())
m = torch.zeros(N, FIN).scatter_reduce(0, edge_index[1].unsqueeze(-1).expand(-1, FIN), x[edge_index[0]],
                                       reduce="mean", include_self=False)
m2 = torch.zeros(N, FIN).index_add_(0, edge_index[1], x[edge_index[0]]) / deg.clamp(min=1).unsqueeze(-1)
print("mean agg matches", torch.allclose(m, m2, atol=1e-6))

# typical mistakes
try:
    torch.zeros(N, FIN).scatter_reduce(0, edge_index[1], x[edge_index[0]], reduce="mean")
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.zeros(N, FIN).scatter_reduce(0, edge_index[1].unsqueeze(-1).expand(-1, FIN), x[edge_index[0]], reduce="avg")
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.zeros(N, FIN).index_add_(0, edge_index[1].float(), x[edge_index[0]])
except (RuntimeError, IndexError) as e:
    print(type(e).__name__ + ":", e)
print("OK")
