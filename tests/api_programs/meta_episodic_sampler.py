"""Episodic data loading as few-shot libraries write it: a Sampler yielding N-way K-shot index batches drawn with
torch.randperm and a seeded Generator, a DataLoader over it with a collate that splits support from query and remaps
labels (torch.unique with return_inverse, searchsorted), task batching with stack/unbind, reproducibility through
Generator states, and the samplers' misuse."""

import torch
from torch.utils.data import DataLoader, Dataset, Sampler

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class ClassDataset(Dataset):
    def __init__(self, n_classes=10, per_class=6):
        self.labels = torch.arange(n_classes).repeat_interleave(per_class) * 3 + 100  # sparse label ids
        self.x = torch.randn(len(self.labels), 5) + self.labels.float().unsqueeze(1) / 100

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.x[i], self.labels[i]


class EpisodeSampler(Sampler):
    def __init__(self, labels, n_way, k_shot, n_query, episodes, generator=None):
        self.classes = torch.unique(labels)
        self.by_class = [torch.nonzero(labels == c).flatten() for c in self.classes]
        self.n_way, self.k_shot, self.n_query, self.episodes = n_way, k_shot, n_query, episodes
        self.generator = generator

    def __len__(self):
        return self.episodes

    def __iter__(self):
        for _ in range(self.episodes):
            chosen = torch.randperm(len(self.classes), generator=self.generator)[: self.n_way]
            batch = []
            for c in chosen.tolist():
                idx = self.by_class[c]
                batch.append(idx[torch.randperm(len(idx), generator=self.generator)[: self.k_shot + self.n_query]])
            yield torch.stack(batch).t().reshape(-1).tolist()  # shot-major: all classes' first shot first


def episode_collate(k_shot):
    def collate(items):
        x = torch.stack([it[0] for it in items])
        y = torch.stack([it[1] for it in items])
        classes, local = torch.unique(y, sorted=True, return_inverse=True)
        n_way = classes.numel()
        s = k_shot * n_way
        return x[:s], local[:s], x[s:], local[s:], classes
    return collate


ds = ClassDataset()
print("dataset", len(ds), "classes", torch.unique(ds.labels).tolist())
gen = torch.Generator().manual_seed(123)
state0 = gen.get_state()
sampler = EpisodeSampler(ds.labels, n_way=3, k_shot=2, n_query=2, episodes=3, generator=gen)
loader = DataLoader(ds, batch_sampler=sampler, collate_fn=episode_collate(k_shot=2))
print("loader len", len(loader))
first = []
for xs, ys, xq, yq, classes in loader:
    first.append(classes)
    print("support", tuple(xs.shape), ys.tolist(), "query", yq.tolist(), "classes", classes.tolist())

gen.set_state(state0)
replay = [b[4] for b in loader]
print("replayed from state", all(torch.equal(a, b) for a, b in zip(first, replay)))

# label remapping alternatives
y = torch.tensor([109, 100, 127, 109, 100])
classes, inv, counts = torch.unique(y, return_inverse=True, return_counts=True)
print("unique", classes.tolist(), inv.tolist(), counts.tolist())
print("searchsorted", torch.searchsorted(classes, y).tolist(), "bucketize", torch.bucketize(y, classes).tolist())
uc, inv_c = torch.unique_consecutive(torch.sort(y).values, return_inverse=True)
print("unique_consecutive", uc.tolist(), inv_c.tolist())

# a batch of tasks: stack episodes, run a prototype classifier per task, unbind the results
gen.manual_seed(5)
tasks = list(DataLoader(ds, batch_sampler=EpisodeSampler(ds.labels, 3, 2, 2, 4, gen), collate_fn=episode_collate(2)))
XS = torch.stack([t[0] for t in tasks])  # (T, 6, 5)
YS = torch.stack([t[1] for t in tasks])
XQ = torch.stack([t[2] for t in tasks])
YQ = torch.stack([t[3] for t in tasks])
onehot = F.one_hot(YS, 3).float()  # (T, 6, 3)
protos = onehot.transpose(1, 2) @ XS / onehot.sum(1).unsqueeze(-1)  # (T, 3, 5)
logits = -torch.cdist(XQ, protos).pow(2)
pred = logits.argmax(-1)
print("task batch", tuple(XS.shape), tuple(protos.shape), "per-task acc",
      [round(a.item(), 4) for a in (pred == YQ).float().mean(1).unbind()])
print("unbind lengths", [tuple(t.shape) for t in torch.unbind(logits, dim=1)])

# seeded randperm streams: same seed, same episode; different seed, other classes
g1, g2 = torch.Generator().manual_seed(9), torch.Generator().manual_seed(9)
print("randperm same seed", torch.equal(torch.randperm(10, generator=g1), torch.randperm(10, generator=g2)))
print("generator seed", g1.initial_seed(), "state", g1.get_state().dtype, tuple(g1.get_state().shape))

for bad in [lambda: DataLoader(ds, batch_sampler=sampler, batch_size=4),
            lambda: DataLoader(ds, batch_sampler=sampler, shuffle=True),
            lambda: torch.randperm(-1),
            lambda: torch.randperm(5, generator=torch.Generator().manual_seed(0), dtype=torch.float16).dtype,
            lambda: gen.set_state(torch.zeros(3)),
            lambda: torch.unbind(torch.ones(2, 3), dim=2)]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
