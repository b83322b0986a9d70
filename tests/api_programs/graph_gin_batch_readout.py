"""GIN on a mini-batch of small graphs: batch vectors, segment pooling, to_dense_batch, graph classification."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

rng = np.random.default_rng(11)


def r(t, k=8):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


FIN, HID, C = 3, 6, 2


def random_graph(n):
    m = int(rng.integers(n, 2 * n))
    e = rng.integers(0, n, (2, m))
    e = e[:, e[0] != e[1]]
    return torch.from_numpy(rng.standard_normal((n, FIN)).astype(np.float32)), torch.from_numpy(e)


graphs = [random_graph(n) for n in (4, 6, 3, 5)]
labels = torch.tensor([0, 1, 0, 1])


def collate(graphs):
    xs, eis, batch = [], [], []
    offset = 0
    for i, (x, ei) in enumerate(graphs):
        xs.append(x)
        eis.append(ei + offset)
        batch.append(torch.full((x.size(0),), i, dtype=torch.long))
        offset += x.size(0)
    return torch.cat(xs), torch.cat(eis, dim=1), torch.cat(batch)


x, edge_index, batch = collate(graphs)
print("x", tuple(x.shape), "edge_index", tuple(edge_index.shape), "batch", batch.tolist())
counts = torch.bincount(batch)
ptr = torch.cat([counts.new_zeros(1), counts.cumsum(0)])
print("counts", counts.tolist(), "ptr", ptr.tolist(), ptr.dtype)
batch2 = torch.repeat_interleave(torch.arange(len(graphs)), counts)
print("repeat_interleave batch equal", torch.equal(batch, batch2))
print("searchsorted batch", (torch.searchsorted(ptr, torch.arange(x.size(0)), right=True) - 1).tolist())
print("graph of each edge", batch[edge_index[0]].tolist())


def global_add_pool(h, batch, size):
    return h.new_zeros(size, h.size(1)).index_add_(0, batch, h)


def global_mean_pool(h, batch, size):
    cnt = torch.bincount(batch, minlength=size).clamp(min=1).to(h.dtype)
    return global_add_pool(h, batch, size) / cnt.unsqueeze(1)


def global_max_pool(h, batch, size):
    idx = batch.unsqueeze(1).expand_as(h)
    return h.new_full((size, h.size(1)), float("-inf")).scatter_reduce(0, idx, h, "amax", include_self=True)


def to_dense_batch(h, batch, fill_value=0.0):
    counts = torch.bincount(batch)
    B, Nmax = counts.numel(), int(counts.max())
    cum = torch.cat([counts.new_zeros(1), counts.cumsum(0)[:-1]])
    pos = torch.arange(batch.numel()) - cum[batch]
    out = h.new_full((B, Nmax) + tuple(h.shape[1:]), fill_value)
    out[batch, pos] = h
    mask = torch.zeros(B, Nmax, dtype=torch.bool)
    mask[batch, pos] = True
    return out, mask


dense, mask = to_dense_batch(x, batch)
print("dense", tuple(dense.shape), "mask", mask.int().tolist())
padded = pad_sequence(list(torch.split(x, counts.tolist())), batch_first=True)
print("pad_sequence agrees", torch.equal(padded, dense))
print("mask sum", mask.sum(1).tolist(), "dense[mask] == x", torch.equal(dense[mask], x))


class GINConv(nn.Module):
    def __init__(self, fin, fout, train_eps=True):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(fin, fout), nn.BatchNorm1d(fout), nn.ReLU(), nn.Linear(fout, fout))
        self.eps = nn.Parameter(torch.zeros(1)) if train_eps else 0.0

    def forward(self, h, ei):
        agg = torch.zeros_like(h).index_add_(0, ei[1], h[ei[0]])
        return self.mlp((1 + self.eps) * h + agg)


class GIN(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([GINConv(FIN, HID), GINConv(HID, HID)])
        self.head = nn.Linear(FIN + 2 * HID, C)

    def forward(self, h, ei, batch, size):
        reps = [global_add_pool(h, batch, size)]
        for conv in self.convs:
            h = F.relu(conv(h, ei))
            reps.append(global_add_pool(h, batch, size))
        return self.head(torch.cat(reps, dim=1))


model = GIN()
with torch.no_grad():
    for name, p in model.named_parameters():
        if name.endswith("weight") and p.dim() == 2:
            p.copy_(torch.from_numpy(rng.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
        elif name.endswith("bias"):
            p.fill_(0.01)
print("eps params", [n for n, _ in model.named_parameters() if n.endswith("eps")])
print("num params", sum(p.numel() for p in model.parameters()))

opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
B = len(graphs)
for step in range(8):
    model.train()
    opt.zero_grad()
    out = model(x, edge_index, batch, B)
    loss = F.cross_entropy(out, labels)
    loss.backward()
    if step == 0:
        print("eps grads", [round(c.eps.grad.item(), 4) for c in model.convs])
        print("head grad", r(model.head.weight.grad))
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

bn = model.convs[0].mlp[1]
print("bn running", r(bn.running_mean, 6), r(bn.running_var, 6), bn.num_batches_tracked.item())
model.eval()
with torch.no_grad():
    out = model(x, edge_index, batch, B)
print("eval logits", r(out), "pred", out.argmax(1).tolist())

h = torch.from_numpy(rng.standard_normal((x.size(0), 2)).astype(np.float32)).requires_grad_(True)
mean_p, max_p = global_mean_pool(h, batch, B), global_max_pool(h, batch, B)
print("mean pool", r(mean_p), "max pool", r(max_p))
seg = torch.stack([s.mean(0) for s in torch.split(h, counts.tolist())])
print("split mean agrees", torch.allclose(seg, mean_p))
(mean_p.sum() + max_p.sum()).backward()
print("pool grad", r(h.grad, 12))
print("segment_reduce", r(torch.segment_reduce(h.detach(), "max", lengths=counts), 8))
print("segment_reduce mean", r(torch.segment_reduce(h.detach(), "mean", lengths=counts, axis=0), 8))
oh = F.one_hot(batch, num_classes=B).float()
print("one-hot pooling agrees", torch.allclose(oh.t() @ h, global_add_pool(h, batch, B)))

print("int32 batch works", torch.equal(global_add_pool(h, batch.int(), B), global_add_pool(h, batch, B)))
try:
    global_add_pool(h.double(), batch, B).index_add_(0, batch[:B], h)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    global_add_pool(h, batch + 1, B)
except (RuntimeError, IndexError) as e:
    print(type(e).__name__ + ":", e)
try:
    torch.segment_reduce(h.detach(), "max", lengths=counts[:-1])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    to_dense_batch(x, batch[:-1])
except RuntimeError as e:
    print("RuntimeError:", e)
print("OK")
