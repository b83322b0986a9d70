"""Wide & Deep and DCN-v2 on hashed categorical crosses: cross layers, hooks, mixed sparse/dense optimizers."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(141)
torch.set_printoptions(precision=4)

n, n_fields, vocab, d = 256, 4, [6, 5, 7, 4], 4
cats = torch.stack([torch.randint(0, v, (n,)) for v in vocab], 1)
dense = torch.randn(n, 2)
logit_true = (cats[:, 0] == cats[:, 2] % 6).float() * 2 - 1 + 0.8 * dense[:, 0] * (cats[:, 1] > 2).float()
y = torch.bernoulli(torch.sigmoid(2 * logit_true))
print("ctr", round(y.mean().item(), 4), "cats", cats[:3].tolist())

# wide part: hashed second-order crosses of every field pair
n_hash = 64
pairs = torch.combinations(torch.arange(n_fields), r=2)
print("pairs", pairs.tolist())
cross_ids = (cats[:, pairs[:, 0]] * 1000003 + cats[:, pairs[:, 1]] * 97 + torch.arange(len(pairs)) * 7919) % n_hash
print("cross ids", cross_ids.shape, cross_ids[0].tolist(), "distinct", cross_ids.unique().numel())


class CrossLayerV2(nn.Module):
    """x_{l+1} = x_0 * (W x_l + b) + x_l."""

    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x0, x):
        return x0 * self.lin(x) + x


class WideDeepDCN(nn.Module):
    def __init__(self, n_cross=2):
        super().__init__()
        self.wide = nn.EmbeddingBag(n_hash, 1, mode="sum", sparse=True)
        self.embs = nn.ModuleList(nn.Embedding(v, d, sparse=True) for v in vocab)
        dim = n_fields * d + 2
        self.cross = nn.ModuleList(CrossLayerV2(dim) for _ in range(n_cross))
        self.deep = nn.Sequential(nn.Linear(dim, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 8), nn.ReLU())
        self.head = nn.Linear(dim + 8, 1)

    def forward(self, cats, dense, cross_ids):
        x0 = torch.cat([e(cats[:, k]) for k, e in enumerate(self.embs)] + [dense], 1)
        x = x0
        for layer in self.cross:
            x = layer(x0, x)
        deep_out = self.deep(x0)
        return (self.head(torch.cat([x, deep_out], 1)) + self.wide(cross_ids)).squeeze(1)


model = WideDeepDCN()


def init(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_normal_(m.weight)
        nn.init.zeros_(m.bias)


model.apply(init)
nn.init.zeros_(model.wide.weight)
print("modules", [n for n, _ in model.named_modules() if n.count(".") <= 1][:8])
sparse_params = [p for n, p in model.named_parameters() if n.startswith(("wide", "embs"))]
dense_params = [p for n, p in model.named_parameters() if not n.startswith(("wide", "embs"))]
print("sparse tensors", len(sparse_params), "dense tensors", len(dense_params),
      "dense numel", sum(p.numel() for p in dense_params))

captured = {}


def hook(name):
    def fn(module, args, out):
        captured[name] = (args[1].norm().item(), out.norm().item())
    return fn


handles = [layer.register_forward_hook(hook(f"cross{i}")) for i, layer in enumerate(model.cross)]
out = model(cats[:8], dense[:8], cross_ids[:8])
print("logits", out)
print("cross norms", {k: (round(a, 4), round(b, 4)) for k, (a, b) in captured.items()})
for h in handles:
    h.remove()
print("hooks left", len(model.cross[0]._forward_hooks))

# a single cross layer is a bounded-degree polynomial: check it against the formula
layer = model.cross[0]
x0 = torch.randn(3, n_fields * d + 2)
manual = x0 * (x0 @ layer.lin.weight.T + layer.lin.bias) + x0
print("cross formula", torch.allclose(layer(x0, x0), manual, atol=1e-6))

opt_sparse = torch.optim.SparseAdam(sparse_params, lr=0.02)
opt_dense = torch.optim.Adam(dense_params, lr=0.01, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt_dense, max_lr=0.03, total_steps=60)
loader_gen = torch.Generator().manual_seed(4)
for step in range(60):
    idx = torch.randperm(n, generator=loader_gen)[:64]
    logit = model(cats[idx], dense[idx], cross_ids[idx])
    loss = F.binary_cross_entropy_with_logits(logit, y[idx])
    opt_sparse.zero_grad()
    opt_dense.zero_grad()
    loss.backward()
    nn.utils.clip_grad_value_(dense_params, 1.0)
    opt_sparse.step()
    opt_dense.step()
    sched.step()
    if step % 15 == 0 or step == 59:
        print(f"step {step:2d} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.5f}")

model.eval()
with torch.no_grad():
    p = torch.sigmoid(model(cats, dense, cross_ids))
acc = ((p > 0.5).float() == y).float().mean()
print("train acc", round(acc.item(), 4), "bn running var", model.deep[1].running_var[:4])
wide_w = model.wide.weight.detach().squeeze(1)
print("wide weights touched", int((wide_w != 0).sum()), "top buckets", wide_w.abs().topk(3).indices.tolist())
print("cross W norms", [round(c.lin.weight.norm().item(), 4) for c in model.cross])
print("sched state keys", sorted(sched.state_dict())[:5])
