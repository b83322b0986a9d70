"""Graph readouts with attention: Set2Set (Vinyals et al.) over an LSTM with a softmax per molecule computed
from scatter_reduce amax and index_add, global attention pooling with a gate network, sorting atoms by batch with
a stable argsort, unique_consecutive for segment boundaries, and a sort-pooling readout (DGCNN) with per-graph
top-k by a padded dense layout."""

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def segment_softmax(score, seg, num_seg):
    mx = torch.full((num_seg,), float("-inf")).scatter_reduce(0, seg, score, "amax", include_self=True)
    e = (score - mx[seg]).exp()
    den = torch.zeros(num_seg).index_add(0, seg, e)
    return e / den[seg]


class Set2Set(nn.Module):
    def __init__(self, dim, steps):
        super().__init__()
        self.dim, self.steps = dim, steps
        self.lstm = nn.LSTM(2 * dim, dim, num_layers=1)

    def forward(self, x, batch, b):
        hc = (x.new_zeros(1, b, self.dim), x.new_zeros(1, b, self.dim))
        q_star = x.new_zeros(b, 2 * self.dim)
        for _ in range(self.steps):
            q, hc = self.lstm(q_star.unsqueeze(0), hc)
            q = q.squeeze(0)
            e = (x * q[batch]).sum(dim=-1)
            a = segment_softmax(e, batch, b)
            r = torch.zeros(b, self.dim).index_add(0, batch, a.unsqueeze(-1) * x)
            q_star = torch.cat([q, r], dim=-1)
        return q_star, a


# atoms arrive interleaved from a sampler: sort by molecule first
batch_raw = torch.tensor([2, 0, 1, 0, 2, 2, 1, 0, 3, 2, 1, 3])
order = torch.argsort(batch_raw, stable=True)
batch = batch_raw[order]
print("order", order.tolist())
print("sorted", torch.sort(batch_raw, stable=True).values.tolist())
ids, counts = torch.unique_consecutive(batch, return_counts=True)
print("ids", ids.tolist(), "counts", counts.tolist())
bounds = torch.cat([counts.new_zeros(1), counts.cumsum(0)])
print("bounds", bounds.tolist(), torch.diff(bounds).tolist())

x = torch.randn(12, 6)[order]
B = int(ids.numel())
s2s = Set2Set(6, steps=3)
q, att = s2s(x, batch, B)
print("q_star", tuple(q.shape), q.sum(dim=1).round(decimals=4).tolist())
print("att sums", torch.zeros(B).index_add(0, batch, att).round(decimals=4).tolist())
print("att", att.round(decimals=4).tolist())

# check against a per-molecule loop with F.softmax
e = x.sum(-1)
ref = torch.cat([F.softmax(chunk, dim=0) for chunk in torch.split(e, counts.tolist())])
print("segment softmax ok", torch.allclose(segment_softmax(e, batch, B), ref, atol=1e-6))
print("split sizes", [c.numel() for c in torch.split(e, counts.tolist())], len(e.tensor_split(bounds[1:-1])))

# gradient through the readout
x_req = x.clone().requires_grad_(True)
out, _ = s2s(x_req, batch, B)
head = nn.Linear(12, 1)
loss = F.mse_loss(head(out).squeeze(-1), torch.tensor([0.5, -1.0, 2.0, 0.0]))
loss.backward()
print("loss", round(loss.item(), 4), "grad", x_req.grad.abs().sum().round(decimals=4).item())
print("lstm grad", s2s.lstm.weight_hh_l0.grad.norm().round(decimals=4).item())

# global attention pooling with a gate network (softmax per segment on a (N, 1) score)
gate = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
g = gate(x).squeeze(-1)
w = segment_softmax(g, batch, B)
pooled = torch.zeros(B, 6).index_add(0, batch, w[:, None] * x)
print("gated pool", pooled.round(decimals=4)[:, :3].tolist())

# sort pooling: keep the k atoms with the largest last channel per molecule, padded with zeros
k = 3
max_n = int(counts.max())
local = torch.arange(batch.numel()) - bounds[batch]
dense = torch.full((B, max_n, 6), float("-inf"))
dense[batch, local] = x
key = dense[..., -1]
_, idx = key.sort(dim=1, descending=True, stable=True)
topk = dense.gather(1, idx[..., None].expand(-1, -1, 6))[:, :k]
topk = torch.where(torch.isinf(topk), torch.zeros(()), topk)
print("sortpool", tuple(topk.shape), topk[..., -1].round(decimals=4).tolist())
print("topk per mol", key.topk(2, dim=1).indices.tolist())

# segment max with include_self=False leaves empty segments at the base value; amin as well
empty_base = torch.zeros(6)
print("amax empty", empty_base.scatter_reduce(0, batch, e, "amax", include_self=False).round(decimals=4).tolist())
print("amin", torch.full((B,), 99.0).scatter_reduce(0, batch, e, "amin").round(decimals=4).tolist())

try:
    torch.unique_consecutive(batch.float(), dim=1)
except Exception as ex:
    print(type(ex).__name__, str(ex).split("\n")[0])
try:
    s2s.lstm(torch.zeros(1, 4, 5))
except Exception as ex:
    print(type(ex).__name__, str(ex).split("\n")[0])
