"""Dark Experience Replay (DER++) over a class-incremental stream built with torch.utils.data: tasks split with
torch.isin and Subset, the joint test set via ConcatDataset, a logits-storing reservoir buffer, seeded DataLoaders
with generators, MSE on stored logits plus CE on stored labels, and the datasets' errors."""

import torch
from torch.utils.data import ConcatDataset, DataLoader, Subset, TensorDataset, random_split

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

X = torch.randn(120, 6)
Y = torch.arange(120) % 6
X = X + F.one_hot(Y, 6).float() * 2.0
full = TensorDataset(X, Y)
splits = [torch.tensor([0, 1]), torch.tensor([2, 3]), torch.tensor([4, 5])]
task_sets = []
for classes in splits:
    idx = torch.isin(Y, classes).nonzero().squeeze(1)
    task_sets.append(Subset(full, idx.tolist()))
print("task sizes:", [len(s) for s in task_sets], type(task_sets[0]).__name__, task_sets[0][0][1].item())
trains, tests = [], []
for s in task_sets:
    tr, te = random_split(s, [0.75, 0.25], generator=torch.Generator().manual_seed(1))
    trains.append(tr)
    tests.append(te)
print("split sizes:", [(len(a), len(b)) for a, b in zip(trains, tests)], type(trains[0]).__name__)
joint = ConcatDataset(tests)
print("joint:", len(joint), joint.cumulative_sizes, joint[len(tests[0])][1].item())


class DERBuffer:
    def __init__(self, size, gen):
        self.size, self.gen, self.seen = size, gen, 0
        self.x = self.y = self.logits = None

    def add(self, x, y, logits):
        if self.x is None:
            self.x = torch.zeros(self.size, *x.shape[1:])
            self.y = torch.zeros(self.size, dtype=torch.long)
            self.logits = torch.zeros(self.size, logits.shape[1])
        for i in range(x.shape[0]):
            j = self.seen if self.seen < self.size else int(torch.randint(0, self.seen + 1, (1,), generator=self.gen))
            if j < self.size:
                self.x[j], self.y[j], self.logits[j] = x[i], y[i], logits[i].detach()
            self.seen += 1

    def sample(self, n):
        k = min(self.seen, self.size)
        idx = torch.randperm(k, generator=self.gen)[:n]
        return self.x[idx], self.y[idx], self.logits[idx]


model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
buf = DERBuffer(24, torch.Generator().manual_seed(7))
alpha, beta = 0.3, 0.5
acc_matrix = torch.zeros(3, 3)
for t, tr in enumerate(trains):
    loader = DataLoader(tr, batch_size=10, shuffle=True, generator=torch.Generator().manual_seed(t))
    for epoch in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            if buf.seen > 0:
                bx, _, bl = buf.sample(8)
                loss = loss + alpha * F.mse_loss(model(bx), bl)
                bx2, by2, _ = buf.sample(8)
                loss = loss + beta * F.cross_entropy(model(bx2), by2)
            loss.backward()
            opt.step()
            if epoch == 2:
                buf.add(xb, yb, out)
    print(
        f"task {t}: loss={loss.item():.4f} buffer labels={torch.bincount(buf.y[: min(buf.seen, 24)], minlength=6).tolist()}"  # noqa: E501
    )
    with torch.no_grad():
        for s in range(t + 1):
            xs, ys = next(iter(DataLoader(tests[s], batch_size=len(tests[s]))))
            acc_matrix[t, s] = (model(xs).argmax(1) == ys).float().mean()
print(acc_matrix.round(decimals=4))
with torch.no_grad():
    correct = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in DataLoader(joint, batch_size=7))
print("joint acc:", round(correct / len(joint), 4))
print(
    "first batch order:",
    next(iter(DataLoader(trains[0], batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(3))))[
        1
    ].tolist(),
)
print(
    "mse reductions:",
    [round(F.mse_loss(torch.ones(3), torch.zeros(3), reduction=r).sum().item(), 4) for r in ["mean", "sum", "none"]],
)

for bad in [
    lambda: random_split(full, [0.5, 0.4]),
    lambda: random_split(full, [100, 10]),
    lambda: Subset(full, [0, 1])[5],
    lambda: joint[len(joint)],
    lambda: ConcatDataset([]),
    lambda: TensorDataset(X, Y[:5]),
    lambda: F.mse_loss(torch.ones(3), torch.zeros(2, 3)).shape,
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
