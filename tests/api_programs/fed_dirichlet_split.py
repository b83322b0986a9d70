"""Non-IID client partitions: Dirichlet(alpha) label skew built from torch.distributions.Dirichlet with cumsum
cut points, shard partitions (sort by label, split into shards, assign by randperm), quantity skew, and the
per-client label histograms, entropies and earth mover's distances that papers report."""

import torch

torch.manual_seed(0)
n_classes, n_clients, N = 5, 4, 200
labels = torch.arange(N) % n_classes
labels = labels[torch.randperm(N)]


def dirichlet_split(labels, alpha, gen_seed):
    torch.manual_seed(gen_seed)
    parts = [[] for _ in range(n_clients)]
    dist = torch.distributions.Dirichlet(torch.full((n_clients,), alpha))
    for c in range(n_classes):
        idx = (labels == c).nonzero(as_tuple=True)[0]
        idx = idx[torch.randperm(len(idx))]
        p = dist.sample()
        cuts = (torch.cumsum(p, 0) * len(idx)).long()[:-1]
        for k, chunk in enumerate(torch.tensor_split(idx, cuts.tolist())):
            parts[k].append(chunk)
    return [torch.cat(p).sort().values for p in parts]


def histogram(parts):
    return torch.stack([torch.bincount(labels[p], minlength=n_classes) for p in parts])


for alpha in (100.0, 0.1):
    parts = dirichlet_split(labels, alpha, 1)
    h = histogram(parts)
    print("alpha", alpha, "sizes", [len(p) for p in parts], "total", int(h.sum()))
    probs = h.float() / h.sum(1, keepdim=True).clamp(min=1)
    ent = -(probs * probs.clamp(min=1e-12).log()).sum(1)
    print("  entropy", ent.round(decimals=4).tolist(), "max", round(torch.log(torch.tensor(5.0)).item(), 4))
    glob = torch.bincount(labels, minlength=n_classes).float() / N
    emd = (probs - glob).abs().sum(1)
    print("  l1 to global", emd.round(decimals=2).tolist())
    all_idx = torch.cat(parts)
    print("  disjoint", all_idx.unique().numel() == all_idx.numel() == N)

d = torch.distributions.Dirichlet(torch.tensor([0.5, 0.5, 0.5]))
print("dirichlet", d.batch_shape, d.event_shape, d.mean.tolist(), round(d.entropy().item(), 4))
s = d.sample((1000,))
print("sample sums", torch.allclose(s.sum(-1), torch.ones(1000)), s.shape, bool((s >= 0).all()))
print("log_prob", round(d.log_prob(torch.tensor([0.2, 0.3, 0.5])).item(), 4))

# shards: sort by label, 8 shards of 25, two per client
order = torch.argsort(labels, stable=True)
shards = order.view(8, 25)
g = torch.Generator().manual_seed(2)
assign = torch.randperm(8, generator=g).view(n_clients, 2)
shard_parts = [shards[a].flatten() for a in assign]
print("shard assign", assign.tolist())
print("shard hist", histogram(shard_parts).tolist())
print("sorted labels", labels[order][:8].tolist(), labels[order][-3:].tolist())

# quantity skew with lognormal sizes
sizes = torch.distributions.LogNormal(0.0, 1.0).sample((n_clients,))
counts = (sizes / sizes.sum() * N).floor().long()
counts[-1] += N - counts.sum()
print("quantity skew sum", int(counts.sum()), counts.dtype, bool((counts >= 0).all()))
split = torch.split(torch.randperm(N), counts.tolist())
print("split lens", [len(s) == int(c) for s, c in zip(split, counts)])
chunks = torch.chunk(torch.arange(10), 4)
print("chunk", [c.tolist() for c in chunks], [c.tolist() for c in torch.tensor_split(torch.arange(10), 4)])

try:
    torch.distributions.Dirichlet(torch.tensor([0.5, -1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.split(torch.arange(10), [3, 3])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.distributions.Dirichlet(torch.tensor([0.5, 0.5])).log_prob(torch.tensor([0.7, 0.7]))
except Exception as e:
    print(type(e).__name__, str(e)[:90])
