"""Recommenders: DLRM with EmbeddingBag tables fed (indices, offsets, per_sample_weights), a bottom MLP, pairwise
dot interaction through bmm + tril_indices, a top MLP with BCE; wide & deep with sparse=True embeddings trained by
SparseAdam beside Adam on the dense part; sparse gradients (coalesce, indices, to_dense), padding_idx, max_norm,
from_pretrained, include_last_offset, and the errors typical of offsets and modes."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(7)


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape, scale=scale))
    return m


class DLRM(nn.Module):
    def __init__(self, dense_in=4, dim=4, table_sizes=(10, 7, 5)):
        super().__init__()
        self.bot = nn.Sequential(nn.Linear(dense_in, 8), nn.ReLU(), nn.Linear(8, dim), nn.ReLU())
        self.emb = nn.ModuleList([nn.EmbeddingBag(n, dim, mode="sum") for n in table_sizes])
        n_f = len(table_sizes) + 1
        self.register_buffer("li", torch.tril_indices(n_f, n_f, offset=-1)[0], persistent=False)
        self.register_buffer("lj", torch.tril_indices(n_f, n_f, offset=-1)[1], persistent=False)
        self.top = nn.Sequential(nn.Linear(dim + n_f * (n_f - 1) // 2, 6), nn.ReLU(), nn.Linear(6, 1))

    def interact(self, x, ly):
        batch, d = x.shape
        Tm = torch.cat([x] + ly, dim=1).view((batch, -1, d))
        Z = torch.bmm(Tm, torch.transpose(Tm, 1, 2))
        Zflat = Z[:, self.li, self.lj]
        return torch.cat([x] + [Zflat], dim=1)

    def forward(self, dense, lS_i, lS_o, lS_w=None):
        x = self.bot(dense)
        ly = [e(i, o, per_sample_weights=None if lS_w is None else lS_w[k])
              for k, (e, i, o) in enumerate(zip(self.emb, lS_i, lS_o))]
        return self.top(self.interact(x, ly)).squeeze(-1)


model = init(DLRM())
print("tril", torch.tril_indices(4, 4, offset=-1).tolist(), torch.triu_indices(3, 4, 1).tolist())
B = 4
dense = torch.log1p(torch.from_numpy(rng.uniform(0, 50, (B, 4)).astype(np.float32)))
lS_i, lS_o, lS_w = [], [], []
for n in (10, 7, 5):
    lens = rng.integers(1, 4, B)
    lS_i.append(torch.from_numpy(rng.integers(0, n, lens.sum())))
    lS_o.append(torch.from_numpy(np.concatenate([[0], np.cumsum(lens)[:-1]])))
    lS_w.append(torch.from_numpy(rng.uniform(0.5, 1.5, lens.sum()).astype(np.float32)))
print("offsets", [o.tolist() for o in lS_o], [i.numel() for i in lS_i])
y = torch.tensor([1.0, 0.0, 1.0, 0.0])
out = model(dense, lS_i, lS_o)
outw = model(dense, lS_i, lS_o, lS_w)
print("dlrm", r(out), r(outw), model.li.tolist(), list(model.state_dict().keys())[-2:])
loss = F.binary_cross_entropy_with_logits(outw, y)
loss.backward()
print("bce", round(loss.item(), 4), [tuple(e.weight.grad.shape) for e in model.emb], r(model.emb[0].weight.grad, 8))
bag = model.emb[1]
manual = torch.stack([(bag.weight[lS_i[1][s:e]] * lS_w[1][s:e, None]).sum(0)
                      for s, e in zip(lS_o[1].tolist(), lS_o[1].tolist()[1:] + [lS_i[1].numel()])])
print("manual bag", torch.allclose(manual, bag(lS_i[1], lS_o[1], per_sample_weights=lS_w[1]), atol=1e-6))
for mode in ("sum", "mean", "max"):
    eb = nn.EmbeddingBag.from_pretrained(bag.weight.detach(), mode=mode)
    print(mode, r(eb(lS_i[1], lS_o[1]), 8), eb.weight.requires_grad)
inp2d = torch.tensor([[1, 2, 0], [4, 0, 0]])
eb = nn.EmbeddingBag(7, 3, mode="mean", padding_idx=0)
with torch.no_grad():
    eb.weight.copy_(torch.arange(21, dtype=torch.float32).view(7, 3))
print("2d pad", eb(inp2d).tolist(), eb.weight[0].tolist())
ebl = nn.EmbeddingBag.from_pretrained(eb.weight.detach(), mode="sum", include_last_offset=True)
print("last offset", ebl(torch.tensor([1, 2, 3, 4]), torch.tensor([0, 1, 1, 4])).tolist())
print("empty bag", F.embedding_bag(torch.tensor([1, 2]), eb.weight, torch.tensor([0, 0, 2]), mode="max").tolist())
mx = nn.Embedding(5, 3, max_norm=1.0)
with torch.no_grad():
    mx.weight.copy_(T(5, 3, scale=2.0))
_ = mx(torch.tensor([0, 2, 2]))
print("max_norm", r(mx.weight.norm(dim=1), 5))


class WideDeep(nn.Module):
    def __init__(self, n_cross=20, n_items=9, dim=4):
        super().__init__()
        self.wide = nn.EmbeddingBag(n_cross, 1, mode="sum", sparse=True)
        self.item = nn.Embedding(n_items, dim, sparse=True, padding_idx=0)
        self.deep = nn.Sequential(nn.Linear(dim + 2, 8), nn.ReLU(), nn.Linear(8, 1))
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, cross, items, cont):
        wide = self.wide(cross).squeeze(-1)
        deep = self.deep(torch.cat([self.item(items).mean(1), cont], dim=1)).squeeze(-1)
        return wide + deep + self.bias


wd = init(WideDeep())
sparse_params = [wd.wide.weight, wd.item.weight]
dense_params = [p for n, p in wd.named_parameters() if n not in ("wide.weight", "item.weight")]
opt_s = torch.optim.SparseAdam(sparse_params, lr=0.05)
opt_d = torch.optim.Adam(dense_params, lr=0.01)
print("groups", len(opt_s.param_groups[0]["params"]), len(opt_d.param_groups[0]["params"]))
for step in range(3):
    cross = torch.from_numpy(rng.integers(0, 20, (B, 3)))
    items = torch.from_numpy(rng.integers(0, 9, (B, 2)))
    cont = T(B, 2)
    target = torch.from_numpy(rng.integers(0, 2, B).astype(np.float32))
    logit = wd(cross, items, cont)
    loss = F.binary_cross_entropy_with_logits(logit, target)
    opt_s.zero_grad()
    opt_d.zero_grad()
    loss.backward()
    g = wd.item.weight.grad
    print("step", step, round(loss.item(), 4), g.is_sparse, g.layout, tuple(g.shape), g._nnz(),
          sorted(set(g.coalesce().indices()[0].tolist())), items.flatten().tolist())
    opt_s.step()
    opt_d.step()
gd = wd.wide.weight.grad.coalesce()
print("wide grad", gd.is_coalesced(), tuple(gd.indices().shape), r(gd.values(), 4), r(gd.to_dense().sum(0), 2))
print("state", sorted(opt_s.state[wd.item.weight].keys()), opt_s.state[wd.item.weight]["step"])
print("item rows", r(wd.item.weight[0]), r(wd.item.weight.norm(dim=1), 9))
try:
    torch.optim.SparseAdam([nn.Parameter(torch.zeros(2))], lr=0.1, betas=(1.0, 0.9))
except ValueError as e:
    print("sparse adam err", type(e).__name__, e)
try:
    opt = torch.optim.Adam([wd.item.weight], lr=0.1)
    opt.step()
except RuntimeError as e:
    print("adam sparse err", type(e).__name__, str(e)[:100])
try:
    F.embedding_bag(torch.tensor([1, 2]), eb.weight, torch.tensor([1, 2]), mode="sum")
except (RuntimeError, ValueError) as e:
    print("offset err", type(e).__name__, e)
try:
    bag(lS_i[1], lS_o[1], per_sample_weights=lS_w[1], )
    nn.EmbeddingBag(7, 3, mode="max")(lS_i[1], lS_o[1], per_sample_weights=lS_w[1])
except NotImplementedError as e:
    print("psw err", type(e).__name__, e)
try:
    bag(torch.tensor([[1, 2]]), torch.tensor([0]))
except ValueError as e:
    print("2d offsets err", type(e).__name__, e)
freq = nn.EmbeddingBag(6, 2, mode="mean", scale_grad_by_freq=True)
with torch.no_grad():
    freq.weight.copy_(torch.arange(12.0).view(6, 2))
(freq(torch.tensor([5, 0, 2, 2, 1, 5]), torch.tensor([0, 2, 5])) * torch.tensor([[1.0], [2.0], [3.0]])).sum().backward()
print("freq grad", freq.weight.grad.tolist())
for bad in (lambda: F.embedding_bag(torch.tensor([1]), eb.weight, torch.tensor([0.0])),
            lambda: F.embedding_bag(torch.tensor([1]), eb.weight.double(), torch.tensor([0]), mode="sum",
                                    per_sample_weights=torch.ones(1)),
            lambda: F.embedding_bag(torch.tensor([[1]]), torch.ones(3), mode="sum"),
            lambda: F.embedding(torch.tensor([1.0]), eb.weight),
            lambda: torch.tril_indices(-1, 3),
            lambda: torch.optim.SparseAdam([torch.ones(2).to_sparse().requires_grad_()])):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print("err", type(e).__name__, e)
