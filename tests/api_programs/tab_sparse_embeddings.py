"""High-cardinality ID columns with nn.Embedding(sparse=True), SparseAdam for them and Adam for the dense head."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class WideModel(nn.Module):
    def __init__(self, cards, dim=4):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(c, dim, sparse=True) for c in cards)
        self.head = nn.Sequential(nn.Linear(dim * len(cards) + 2, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, cat, num):
        e = [emb(cat[:, i]) for i, emb in enumerate(self.embs)]
        return self.head(torch.cat(e + [num], dim=1)).squeeze(-1)


cards = [50, 7, 13]
model = WideModel(cards)
cat = torch.stack([torch.randint(0, c, (32,)) for c in cards], dim=1)
num = torch.randn(32, 2)
y = (num[:, 0] + (cat[:, 1] % 2).float() > 0.5).float()

sparse_params = [p for n, p in model.named_parameters() if n.startswith("embs")]
dense_params = [p for n, p in model.named_parameters() if not n.startswith("embs")]
opt_s = torch.optim.SparseAdam(sparse_params, lr=0.05)
opt_d = torch.optim.Adam(dense_params, lr=0.01)
print(opt_s)

for step in range(6):
    opt_s.zero_grad()
    opt_d.zero_grad()
    loss = F.binary_cross_entropy_with_logits(model(cat, num), y)
    loss.backward()
    if step == 0:
        g = model.embs[1].weight.grad
        print("grad", g.is_sparse, g.layout, tuple(g.shape), g.dtype)
        gc = g.coalesce()
        print("coalesced", gc.is_coalesced(), gc.indices().shape[0], tuple(gc.values().shape))
        print("rows touched", sorted(gc.indices()[0].tolist()) == sorted(cat[:, 1].unique().tolist()))
        dense = g.to_dense()
        print(
            "dense grad",
            tuple(dense.shape),
            round(dense.abs().sum().item(), 4),
            round(gc.values().abs().sum().item(), 4),
        )
        print("head grad sparse", model.head[0].weight.grad.is_sparse)
    opt_s.step()
    opt_d.step()
    print(step, round(loss.item(), 4))

st = opt_s.state_dict()
print("state keys", sorted(st["state"][0].keys()), st["param_groups"][0]["betas"], st["param_groups"][0]["eps"])
print("exp_avg sparse?", st["state"][0]["exp_avg"].is_sparse, tuple(st["state"][0]["exp_avg"].shape))
untouched = torch.ones(50, dtype=torch.bool)
untouched[cat[:, 0]] = False
print("untouched rows unchanged", st["state"][0]["exp_avg"][untouched].abs().sum().item())

# max_norm renormalises looked-up rows in place
emb = nn.Embedding(5, 3, max_norm=1.0)
with torch.no_grad():
    emb.weight.copy_(torch.arange(15.0).reshape(5, 3))
out = emb(torch.tensor([1, 1, 3]))
print("max_norm", emb.weight.norm(dim=1).round(decimals=4).tolist())
print(emb)
sg = nn.Embedding(5, 2, scale_grad_by_freq=True, sparse=True)
try:
    sg(torch.tensor([0, 0, 0, 2])).sum().backward()
except RuntimeError as e:
    print("scale_grad_by_freq sparse", e)
dg = nn.Embedding(5, 2, scale_grad_by_freq=True)
dg(torch.tensor([[0, 0], [0, 2]])).sum().backward()
print("scale_grad_by_freq dense", dg.weight.grad.tolist())
print(sg, dg)

# sparse initialisation of a wide table: the generator feeds the values, the global stream the zero rows
torch.manual_seed(1)
sw = nn.init.sparse_(torch.empty(8, 3), sparsity=0.25, generator=torch.Generator().manual_seed(0))
print("sparse_ init", (sw == 0).sum(0).tolist(), (sw == 0).nonzero()[:, 0].tolist(), round(sw.abs().sum().item(), 4))

# nn.Embedding.from_pretrained with sparse and padding_idx
pre = nn.Embedding.from_pretrained(torch.randn(6, 2), freeze=False, sparse=True, padding_idx=0)
pre(torch.tensor([0, 1, 0, 5])).pow(2).sum().backward()
print("pretrained padding grad", pre.weight.grad.to_dense()[0].tolist(), pre.padding_idx, pre.sparse)

for name, fn in [
    ("sparseadam dense grads", lambda: torch.optim.SparseAdam(dense_params).step()),
    ("adam on sparse", lambda: torch.optim.Adam(sparse_params).step()),
    ("index out of range", lambda: model.embs[1](torch.tensor([7]))),
    ("float indices", lambda: model.embs[1](torch.tensor([1.0]))),
    ("sparse weight decay", lambda: torch.optim.SGD(sparse_params, lr=0.1, weight_decay=0.1).step()),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
