"""Experience replay with a reservoir buffer as continual-learning libraries write it: torch.randint with a
seeded Generator, index_select/index_copy_ into preallocated storage, class-balanced sampling, cat of current and
replayed batches, and buffer bookkeeping printed after each task."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class ReservoirBuffer:
    def __init__(self, capacity, dim, seed=123):
        self.capacity = capacity
        self.x = torch.zeros(capacity, dim)
        self.y = torch.full((capacity,), -1, dtype=torch.long)
        self.t = torch.full((capacity,), -1, dtype=torch.int16)
        self.seen = 0
        self.gen = torch.Generator().manual_seed(seed)

    def add(self, xb, yb, task):
        for i in range(xb.shape[0]):
            if self.seen < self.capacity:
                slot = self.seen
            else:
                slot = int(torch.randint(0, self.seen + 1, (1,), generator=self.gen).item())
            if slot < self.capacity:
                idx = torch.tensor([slot])
                self.x.index_copy_(0, idx, xb[i : i + 1])
                self.y[slot] = yb[i]
                self.t[slot] = task
            self.seen += 1

    def __len__(self):
        return min(self.seen, self.capacity)

    def sample(self, n):
        idx = torch.randint(0, len(self), (n,), generator=self.gen)
        return self.x.index_select(0, idx), self.y.index_select(0, idx), idx

    def balanced(self, per_class):
        picked = []
        for c in torch.unique(self.y[: len(self)]).tolist():
            where = (self.y[: len(self)] == c).nonzero(as_tuple=True)[0]
            order = torch.randperm(where.numel(), generator=self.gen)[:per_class]
            picked.append(where[order])
        idx = torch.cat(picked)
        return self.x[idx], self.y[idx]


buf = ReservoirBuffer(capacity=20, dim=4)
print("empty:", len(buf), buf.y[:5].tolist(), buf.t.dtype)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
opt = torch.optim.Adam(model.parameters(), lr=0.01)

streams = []
for task in range(3):
    x = torch.randn(30, 4) + 2.0 * task
    y = (x.sum(1) > 8.0 * task).long() + 2 * task
    streams.append((x, y))

for task, (x, y) in enumerate(streams):
    for b in range(0, 30, 10):
        xb, yb = x[b : b + 10], y[b : b + 10]
        if len(buf) > 0:
            rx, ry, ridx = buf.sample(8)
            xb_all = torch.cat([xb, rx], dim=0)
            yb_all = torch.cat((yb, ry))
        else:
            xb_all, yb_all = xb, yb
        opt.zero_grad()
        loss = F.cross_entropy(model(xb_all), yb_all)
        loss.backward()
        opt.step()
        buf.add(xb, yb, task)
    counts = torch.bincount(buf.t[: len(buf)].long(), minlength=3)
    print(f"task {task}: seen={buf.seen} len={len(buf)} per-task={counts.tolist()} loss={loss.item():.4f}")
    print("  labels:", buf.y.tolist())
    print("  last sample idx:", ridx.tolist() if task > 0 else None)

bx, by = buf.balanced(2)
print("balanced:", by.tolist(), tuple(bx.shape))
hist = torch.histc(buf.y.float(), bins=6, min=0, max=5)
print("histc:", hist.tolist())
uniq, inv, cnt = torch.unique(buf.y, sorted=True, return_inverse=True, return_counts=True)
print("unique:", uniq.tolist(), cnt.tolist(), inv[:6].tolist())
with torch.no_grad():
    acc = [(model(x).argmax(1) == y).float().mean().item() for x, y in streams]
print("accs:", [round(a, 4) for a in acc])
state = {"x": buf.x.clone(), "y": buf.y.clone(), "gen": buf.gen.get_state()}
print("gen state:", state["gen"].dtype, tuple(state["gen"].shape))
g2 = torch.Generator().manual_seed(5)
print(
    "randint gen:", torch.randint(10, (6,), generator=g2).tolist(), torch.randint(3, 9, (2, 2), generator=g2).tolist()
)
print("randperm gen:", torch.randperm(7, generator=g2).tolist())

try:
    buf.x.index_select(0, torch.tensor([0.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    buf.x.index_select(0, torch.tensor([25]))
except Exception as e:
    print(type(e).__name__, e)
try:
    buf.x.index_copy_(0, torch.tensor([0]), torch.zeros(1, 5))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cat([buf.x, buf.y])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.randint(0, 0, (3,))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cat([torch.zeros(2, 3), torch.zeros(2, 4)], dim=0)
except Exception as e:
    print(type(e).__name__, e)
print("cat dtypes:", torch.cat([torch.zeros(1, dtype=torch.int16), torch.ones(1)]).dtype)
