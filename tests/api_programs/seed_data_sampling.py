"""Seeded data pipelines as training scripts build them: random_split with fractions and a generator,
shuffled DataLoaders (global stream and explicit generators), RandomSampler with and without replacement,
SubsetRandomSampler, WeightedRandomSampler for class imbalance, BatchSampler, and the epoch-to-epoch order."""
import torch
from torch.utils.data import (BatchSampler, DataLoader, Dataset, RandomSampler, SequentialSampler,
                              SubsetRandomSampler, TensorDataset, WeightedRandomSampler, random_split)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)]), i % 3


torch.manual_seed(123)
ds = Squares(20)
a, b, c = random_split(ds, [10, 6, 4])
print("split", a.indices, b.indices, c.indices)
tr, va = random_split(ds, [0.75, 0.25], generator=torch.Generator().manual_seed(42))
print("fraction split", len(tr), len(va), sorted(va.indices))
tr2, va2 = random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(42))
print("range split", list(tr2), list(va2))

loader = DataLoader(ds, batch_size=6, shuffle=True)
for epoch in range(2):
    order = [batch[1].tolist() for batch in loader]
    print("epoch", epoch, [xb[0][:, 0].int().tolist() for xb in loader][:2], order[0])

g = torch.Generator()
g.manual_seed(0)
gl = DataLoader(ds, batch_size=5, shuffle=True, generator=g, drop_last=True)
print("gen loader", [b_[0][:, 0].int().tolist() for b_ in gl])
g.manual_seed(0)
print("gen loader again", [b_[0][:, 0].int().tolist() for b_ in gl][0])

print("random sampler", list(RandomSampler(range(8))))
print("with replacement", list(RandomSampler(range(8), replacement=True, num_samples=12)))
print("num_samples > n", list(RandomSampler(range(5), num_samples=12)))
print("seeded sampler", list(RandomSampler(range(6), generator=torch.Generator().manual_seed(7))))
print("subset", list(SubsetRandomSampler([10, 20, 30, 40, 50])))
print("sequential", list(SequentialSampler(range(4))))

labels = torch.tensor([0] * 16 + [1] * 4)
counts = torch.bincount(labels)
class_w = 1.0 / counts.float()
sample_w = class_w[labels]
print("class weights", class_w.tolist())
wrs = WeightedRandomSampler(sample_w, num_samples=40, replacement=True)
drawn = torch.tensor(list(wrs))
print("weighted draws", drawn[:12].tolist(), "class balance", torch.bincount(labels[drawn]).tolist())
wrs_nr = WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], num_samples=4, replacement=False)
print("weighted no repl", list(wrs_nr))
wg = WeightedRandomSampler([1.0, 2.0, 3.0], 6, generator=torch.Generator().manual_seed(3))
print("weighted gen", list(wg))

bs = BatchSampler(RandomSampler(range(10)), batch_size=4, drop_last=False)
print("batch sampler", list(bs))
feats = torch.randn(20, 3)
tds = TensorDataset(feats, labels)
bl = DataLoader(tds, batch_sampler=BatchSampler(SubsetRandomSampler(range(0, 20, 2)), 3, True))
for xb, yb in bl:
    print("bs batch", tuple(xb.shape), yb.tolist(), round(xb.sum().item(), 4))
wl = DataLoader(tds, batch_size=8, sampler=WeightedRandomSampler(sample_w, 16))
for xb, yb in wl:
    print("weighted batch", yb.tolist(), round(xb.mean().item(), 4))

torch.manual_seed(9)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = DataLoader(tds, batch_size=4, shuffle=True)
for epoch in range(3):
    tot = 0.0
    for xb, yb in train_loader:
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item()
    print(f"epoch {epoch} loss {tot / len(train_loader):.4f}")
print("final weight", model.weight.detach())
state = torch.get_rng_state()
it = iter(DataLoader(range(6), batch_size=3, shuffle=True))
first = next(it).tolist()
torch.set_rng_state(state)
print("replayed", first, next(iter(DataLoader(range(6), batch_size=3, shuffle=True))).tolist())
