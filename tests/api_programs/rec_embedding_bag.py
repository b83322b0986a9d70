"""Multi-hot categorical features through nn.EmbeddingBag: offsets, modes, per-sample weights, padding and errors."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(5)
torch.set_printoptions(precision=4)

# user histories of variable length, flattened with offsets (the DLRM/torchrec input format)
histories = [[3, 7, 7, 1], [2], [], [9, 0, 4]]
lengths = torch.tensor([len(h) for h in histories])
flat = torch.tensor([x for h in histories for x in h], dtype=torch.long)
offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(lengths, 0)[:-1]])
print("lengths", lengths.tolist(), "flat", flat.tolist(), "offsets", offsets.tolist())

bag = nn.EmbeddingBag(10, 3, mode="mean")
print(bag)
for mode in ["sum", "mean", "max"]:
    out = F.embedding_bag(flat, bag.weight, offsets, mode=mode)
    print(mode, out.shape)
    print(out)

# mean-mode equals a manual segment mean; empty bags give zeros
manual = []
for h in histories:
    manual.append(bag.weight[h].mean(0) if h else torch.zeros(3))
manual = torch.stack(manual)
print("manual matches", torch.allclose(bag(flat, offsets), manual, atol=1e-6))

# segment mean through index_add_ with repeat_interleave segment ids
seg = torch.repeat_interleave(torch.arange(len(histories)), lengths)
print("segment ids", seg.tolist())
sums = torch.zeros(len(histories), 3).index_add_(0, seg, bag.weight[flat])
means = sums / lengths.clamp(min=1).unsqueeze(1).float()
print("index_add mean", torch.allclose(means, manual, atol=1e-6))

# include_last_offset (CSR-style offsets)
csr = torch.cat([offsets, torch.tensor([flat.numel()])])
print("csr offsets", csr.tolist())
out_last = F.embedding_bag(flat, bag.weight, csr, mode="sum", include_last_offset=True)
ref = F.embedding_bag(flat, bag.weight, offsets, mode="sum")
print("include_last_offset", out_last.shape, torch.allclose(out_last, ref))

# per-sample weights (tf-idf style) only in sum mode
psw = torch.tensor([0.5, 1.0, 1.0, 2.0, 1.0, 0.1, 0.2, 0.3])
bag_sum = nn.EmbeddingBag.from_pretrained(bag.weight.detach().clone(), mode="sum", freeze=False)
print(bag_sum, "requires_grad", bag_sum.weight.requires_grad)
weighted = bag_sum(flat, offsets, per_sample_weights=psw)
print("weighted", weighted)
check = (bag_sum.weight[flat] * psw.unsqueeze(1))
print("row0 check", torch.allclose(weighted[0], check[:4].sum(0), atol=1e-6))
try:
    bag(flat, offsets, per_sample_weights=psw)
except (NotImplementedError, ValueError, RuntimeError) as e:
    print(type(e).__name__, e)

# 2-D input: fixed-length bags, no offsets
fixed = torch.tensor([[1, 2, 3], [4, 4, 0]])
print("2-D bags", bag(fixed))
try:
    bag(fixed, torch.tensor([0, 1]))
except ValueError as e:
    print("ValueError:", e)

# padding_idx is excluded from the bag (and from the mean's count)
bag_pad = nn.EmbeddingBag(6, 2, mode="mean", padding_idx=0)
print("pad row", bag_pad.weight[0])
padded = torch.tensor([[0, 1, 2], [3, 0, 0], [0, 0, 0]])
res = bag_pad(padded)
print("padded means", res)
print("row1 == emb[3]", torch.allclose(res[1], bag_pad.weight[3]))

# gradients: sum mode scatters grad to each index (duplicates accumulate), max to the argmax only
w = torch.randn(10, 3, requires_grad=True)
F.embedding_bag(flat, w, offsets, mode="sum").sum().backward()
print("sum grad counts", w.grad[:, 0].tolist())
w.grad = None
F.embedding_bag(flat, w, offsets, mode="max").sum().backward()
print("max grad", w.grad.sum(0).tolist(), "rows hit", (w.grad.abs().sum(1) > 0).nonzero().flatten().tolist())

# sparse EmbeddingBag gradient
sbag = nn.EmbeddingBag(10, 3, mode="sum", sparse=True)
sbag(flat, offsets).sum().backward()
sg = sbag.weight.grad
print("sparse bag grad", sg.layout, sorted(set(sg.coalesce().indices()[0].tolist())))

# a tiny multi-hot CTR model: genre bag + user id
torch.manual_seed(6)
n = 48
genre_len = torch.randint(1, 4, (n,))
genres = torch.randint(0, 8, (int(genre_len.sum()),))
g_off = torch.cat([torch.tensor([0]), genre_len.cumsum(0)[:-1]])
uid = torch.randint(0, 5, (n,))
y = ((uid % 2 == 0) & (genre_len > 1)).float()
print("multi-hot", genres.shape, g_off[:6].tolist(), "pos", int(y.sum()))


class CTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.genre = nn.EmbeddingBag(8, 4, mode="mean")
        self.user = nn.Embedding(5, 4)
        self.mlp = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, uid, genres, offs):
        return self.mlp(torch.cat([self.user(uid), self.genre(genres, offs)], 1)).squeeze(1)


m = CTR()
opt = torch.optim.Adam(m.parameters(), lr=0.02)
for step in range(50):
    loss = F.binary_cross_entropy_with_logits(m(uid, genres, g_off), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 16 == 0 or step == 49:
        print(f"step {step} loss {loss.item():.4f}")

# bad inputs
try:
    bag(flat.float(), offsets)
except (RuntimeError, TypeError) as e:
    print(type(e).__name__, str(e).split("\n")[0])
try:
    nn.EmbeddingBag(4, 2, mode="median")(torch.tensor([[1, 2]]))
except ValueError as e:
    print("ValueError:", e)
