"""A tabular training script's data side end to end, seeded the way reproducibility guides say: a Dataset with
per-feature standardisation from training-split statistics, random_split by fractions with a generator, a
class-balanced WeightedRandomSampler for the train loader, a shuffled loader with drop_last, an eval loader,
a small MLP trained for three epochs with printed losses and accuracies, k-fold indices from randperm with
SubsetRandomSampler, and the per-epoch sample counts the samplers produce."""

from collections import Counter

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, SubsetRandomSampler, WeightedRandomSampler, random_split

torch.set_printoptions(precision=4)
torch.manual_seed(0)


class Tabular(Dataset):
    def __init__(self, x, y, mean=None, std=None):
        self.x, self.y = x, y
        self.mean = x.mean(0) if mean is None else mean
        self.std = x.std(0) if std is None else std

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return (self.x[i] - self.mean) / self.std, self.y[i]


n = 120
x = torch.randn(n, 5) * torch.tensor([1.0, 2.0, 0.5, 3.0, 1.0]) + torch.tensor([0.0, 1.0, -1.0, 2.0, 0.5])
logits = x @ torch.tensor([1.0, -0.5, 2.0, 0.3, 0.0]) - 0.5
y = (logits > 0).long()
print("class_counts", Counter(y.tolist()))

train_idx, val_idx = random_split(range(n), [0.8, 0.2], generator=torch.Generator().manual_seed(42))
print("split", len(train_idx), len(val_idx), list(val_idx)[:8])
tr = torch.tensor(list(train_idx))
va = torch.tensor(list(val_idx))
train_ds = Tabular(x[tr], y[tr])
val_ds = Tabular(x[va], y[va], train_ds.mean, train_ds.std)
print("stats", train_ds.mean, train_ds.std)

counts = torch.bincount(train_ds.y)
sample_w = (1.0 / counts.double())[train_ds.y]
sampler = WeightedRandomSampler(sample_w, num_samples=len(train_ds), replacement=True,
                                generator=torch.Generator().manual_seed(1))
drawn = torch.tensor(list(sampler))
print("balanced_draw", torch.bincount(train_ds.y[drawn]).tolist(), drawn[:10].tolist())

model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
train_loader = DataLoader(train_ds, batch_size=16, sampler=sampler, drop_last=True)
val_loader = DataLoader(val_ds, batch_size=32)
print("loader_lens", len(train_loader), len(val_loader))

for epoch in range(3):
    model.train()
    total, seen = 0.0, 0
    for xb, yb in train_loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(yb)
        seen += len(yb)
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"epoch {epoch} seen {seen} train_loss {total / seen:.4f} val_acc {correct / len(val_ds):.4f}")

with torch.no_grad():
    xb, yb = next(iter(val_loader))
    print("val_probs", model(xb[:4]).softmax(1))

folds = torch.randperm(n, generator=torch.Generator().manual_seed(7)).chunk(4)
print("fold_sizes", [len(f) for f in folds])
ds_all = Tabular(x, y)
for k, fold in enumerate(folds):
    rest = torch.cat([f for j, f in enumerate(folds) if j != k]).tolist()
    fold_sampler = SubsetRandomSampler(rest, generator=torch.Generator().manual_seed(k))
    tl = DataLoader(ds_all, batch_size=30, sampler=fold_sampler)
    vl = DataLoader(ds_all, batch_size=30, sampler=fold.tolist())
    first = next(iter(tl))[1]
    print("fold", k, len(tl), len(vl), first[:10].tolist(), sum(len(b[1]) for b in vl))

torch.manual_seed(3)
shuffled = DataLoader(train_ds, batch_size=24, shuffle=True, drop_last=True)
print("shuffled_first_labels", [b[1][:6].tolist() for b in shuffled][:2])
print("final_weight_norm", round(model[0].weight.norm().item(), 4), round(model[2].bias.sum().item(), 4))
