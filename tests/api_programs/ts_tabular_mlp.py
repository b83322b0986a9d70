"""A tabular MLP with entity embeddings as Kaggle/fastai-style code trains it: a Dataset of (categorical codes,
continuous features, target) with a custom collate_fn, a ModuleDict of embeddings, BatchNorm1d on the continuous
block, AdamW with parameter groups that exempt biases, norms and embeddings from weight decay,
CosineAnnealingWarmRestarts stepped per batch with fractional epochs, clip_grad_value_, a y_range sigmoid head,
and permutation feature importance under torch.no_grad."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_printoptions(precision=4, sci_mode=False)

N = 48
idx = torch.arange(N)
cats = {"store": idx % 4, "dow": idx % 7, "promo": (idx % 3 == 0).long()}
conts = torch.stack([torch.sin(idx * 0.3), torch.cos(idx * 0.11) * 2, idx / N], 1)
target = 5 + cats["store"] * 0.5 + cats["promo"] * 1.5 + torch.sin(idx * 0.3) + 0.2 * (cats["dow"] >= 5)


class TabDataset(Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return {k: v[i] for k, v in cats.items()}, conts[i], target[i]


def collate(batch):
    cat_batch = {k: torch.stack([b[0][k] for b in batch]) for k in cats}
    return cat_batch, torch.stack([b[1] for b in batch]), torch.stack([b[2] for b in batch]).unsqueeze(1)


class TabularModel(nn.Module):
    def __init__(self, cardinalities, n_cont, hidden=(16, 8), y_range=(0.0, 12.0)):
        super().__init__()
        self.embeds = nn.ModuleDict({k: nn.Embedding(c, min(50, (c + 1) // 2)) for k, c in cardinalities.items()})
        n_emb = sum(e.embedding_dim for e in self.embeds.values())
        self.bn_cont = nn.BatchNorm1d(n_cont)
        layers, n_in = [], n_emb + n_cont
        for h in hidden:
            layers += [nn.Linear(n_in, h), nn.ReLU(inplace=True), nn.BatchNorm1d(h), nn.Dropout(0.1)]
            n_in = h
        self.layers = nn.Sequential(*layers)
        self.head = nn.Linear(n_in, 1)
        self.y_range = y_range

    def forward(self, x_cat, x_cont):
        e = torch.cat([self.embeds[k](x_cat[k]) for k in self.embeds], 1)
        x = torch.cat([F.dropout(e, 0.05, self.training), self.bn_cont(x_cont)], 1)
        y = self.head(self.layers(x))
        lo, hi = self.y_range
        return torch.sigmoid(y) * (hi - lo) + lo


model = TabularModel({k: int(v.max()) + 1 for k, v in cats.items()}, 3)
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        if p.dim() > 1:
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 0.77 + i).view_as(p) * 0.3)
print("embedding dims", {k: tuple(e.weight.shape) for k, e in model.embeds.items()})
decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if p.dim() == 1 or name.startswith("embeds") else decay).append(name)
print("decay", decay)
print("no_decay", len(no_decay), no_decay[:4])
params = dict(model.named_parameters())
opt = torch.optim.AdamW([{"params": [params[n] for n in decay], "weight_decay": 0.01},
                         {"params": [params[n] for n in no_decay], "weight_decay": 0.0}], lr=0.02)
sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=1e-4)
print("group wd", [g["weight_decay"] for g in opt.param_groups], "initial_lr", opt.param_groups[0]["initial_lr"])

loader = DataLoader(TabDataset(), batch_size=16, shuffle=False, collate_fn=collate)
xc, xn, yb = next(iter(loader))
print("batch", {k: tuple(v.shape) for k, v in xc.items()}, tuple(xn.shape), tuple(yb.shape), xc["dow"][:8])
lrs = []
iters = len(loader)
model.train()
torch.manual_seed(0)
for epoch in range(3):
    total = 0.0
    for i, (xc, xn, yb) in enumerate(loader):
        opt.zero_grad()
        loss = F.mse_loss(model(xc, xn), yb)
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 0.5)
        opt.step()
        sched.step(epoch + i / iters)
        lrs.append(round(opt.param_groups[0]["lr"], 5))
        total += loss.item() * yb.shape[0]
    print("epoch", epoch, "finite", total == total, "T_cur", round(sched.T_cur, 4), "T_i", sched.T_i)
print("lrs", lrs)
print("max |grad| after clip", max(p.grad.abs().max().item() for p in model.parameters() if p.grad is not None) <= 0.5)

model.eval()
xc_all = {k: v for k, v in cats.items()}
with torch.no_grad():
    base = F.mse_loss(model(xc_all, conts), target.unsqueeze(1)).item()
    imp = {}
    for k in cats:
        shuffled = dict(xc_all)
        shuffled[k] = xc_all[k].roll(7)
        imp[k] = F.mse_loss(model(shuffled, conts), target.unsqueeze(1)).item() - base
    for j in range(3):
        c2 = conts.clone()
        c2[:, j] = c2[:, j].roll(7)
        imp[f"cont{j}"] = F.mse_loss(model(xc_all, c2), target.unsqueeze(1)).item() - base
print("eval outputs in y_range", bool(((model(xc_all, conts) > 0) & (model(xc_all, conts) < 12)).all()))
print("importance keys", sorted(imp), "finite", all(v == v for v in imp.values()))
print("bn running stats", model.bn_cont.running_mean.shape, int(model.bn_cont.num_batches_tracked))
