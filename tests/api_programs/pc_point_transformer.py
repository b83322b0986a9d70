"""Point Transformer / PTv2-style code over a packed batch of clouds of different sizes: offsets from cumsum, batch
ids by repeat_interleave, per-cloud kNN with block-diagonal masking, vector self-attention with a position MLP and a
softmax over neighbours, grouped weights by einsum, segment_reduce pooling by lengths and offsets, pad_sequence
with padding_side for a padded view, tensor_split back into clouds, and the errors of those calls."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
sizes = [12, 7, 9]
clouds = [torch.randn(n, 3) for n in sizes]
xyz = torch.cat(clouds)
feat = torch.randn(xyz.shape[0], 8)
lengths = torch.tensor(sizes)
offset = torch.cumsum(lengths, 0)
batch = torch.repeat_interleave(torch.arange(len(sizes)), lengths, output_size=int(offset[-1]))
print("offset", offset.tolist(), "batch", batch.bincount().tolist(), batch.dtype)


def knn_packed(xyz, batch, k):
    d = torch.cdist(xyz, xyz)
    d = d.masked_fill(batch[:, None] != batch[None, :], float("inf"))
    return d.topk(k, dim=1, largest=False)


dist, idx = knn_packed(xyz, batch, 4)
print("knn same cloud", bool((batch[idx] == batch[:, None]).all()), idx[:2].tolist())
print("knn dist", dist[:, 1:].mean().round(decimals=4).item(), idx.shape)


class VectorAttention(nn.Module):
    def __init__(self, c, groups=2, k=4):
        super().__init__()
        self.k, self.groups = k, groups
        self.q, self.kk, self.v = nn.Linear(c, c), nn.Linear(c, c), nn.Linear(c, c)
        self.pos = nn.Sequential(nn.Linear(3, c), nn.LayerNorm(c), nn.ReLU(inplace=True), nn.Linear(c, c))
        self.weight = nn.Sequential(nn.Linear(c, groups), nn.LayerNorm(groups), nn.GELU(), nn.Linear(groups, groups))
        self.norm = nn.LayerNorm(c)

    def forward(self, x, xyz, idx):
        q, k, v = self.q(x), self.kk(x), self.v(x)
        rel = xyz[idx] - xyz.unsqueeze(1)
        pe = self.pos(rel)
        rel_qk = k[idx] - q.unsqueeze(1) + pe
        w = torch.softmax(self.weight(rel_qk), dim=1)
        vals = (v[idx] + pe).unflatten(-1, (self.groups, -1))
        out = torch.einsum("nkgc,nkg->ngc", vals, w).flatten(1)
        return self.norm(x + out), w


attn = VectorAttention(8)
out, w = attn(feat, xyz, idx)
print("attention", out.shape, w.shape, w.sum(1).round(decimals=4).unique().tolist(), out.grad_fn.name())
print("out stats", round(out.mean().item(), 4), round(out.std().item(), 4))

for red in ["max", "mean", "sum", "min"]:
    pooled = torch.segment_reduce(out, red, lengths=lengths, axis=0)
    print("segment", red, pooled.shape, pooled[:, 0].round(decimals=4).tolist())
starts = F.pad(offset, (1, 0))
via_off = torch.segment_reduce(out, "mean", offsets=starts)
print("offsets agree", torch.allclose(via_off, torch.segment_reduce(out, "mean", lengths=lengths)))
sr = torch.zeros(3, 8).scatter_reduce(0, batch[:, None].expand(-1, 8), out, "amax", include_self=False)
print("scatter agrees", torch.allclose(sr, torch.segment_reduce(out, "max", lengths=lengths)))
empty = torch.segment_reduce(out[:, 0], "max", lengths=torch.tensor([12, 0, 16]), unsafe=True, initial=-1.0)
print("empty segment", empty.round(decimals=4).tolist())

parts = torch.tensor_split(out, offset[:-1])
print("split", [tuple(p.shape) for p in parts], torch.equal(torch.cat(parts), out))
padded = nn.utils.rnn.pad_sequence(list(parts), batch_first=True, padding_value=0.0)
left = nn.utils.rnn.pad_sequence(list(parts), batch_first=True, padding_side="left")
mask = torch.arange(padded.shape[1])[None] < lengths[:, None]
print("padded", padded.shape, mask.sum(1).tolist(), torch.equal(left[1, -7:], parts[1]))
masked_mean = (padded * mask[..., None]).sum(1) / lengths[:, None]
print("masked mean agrees", torch.allclose(masked_mean, torch.segment_reduce(out, "mean", lengths=lengths), atol=1e-6))

head = nn.Linear(8, 3)
opt = torch.optim.AdamW(list(attn.parameters()) + list(head.parameters()), lr=3e-3, weight_decay=0.05)
labels = torch.tensor([0, 2, 1])
for step in range(4):
    o, _ = attn(feat, xyz, idx)
    logits = head(torch.segment_reduce(o, "max", lengths=lengths))
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), round(attn.q.weight.grad.norm().item(), 4))

for call in [lambda: torch.segment_reduce(out, "max", lengths=torch.tensor([12, 7, 8])),
             lambda: torch.segment_reduce(out, "amax", lengths=lengths),
             lambda: torch.repeat_interleave(torch.arange(3), torch.tensor([1, 2])),
             lambda: torch.repeat_interleave(torch.arange(3), torch.tensor([1, -2, 1])),
             lambda: nn.utils.rnn.pad_sequence(list(parts), batch_first=True, padding_side="middle"),
             lambda: torch.tensor_split(out, 2.5)]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
