"""A Gilmer-style MPNN for QM9-like targets: an edge network (NNConv) producing per-edge weight matrices applied
with torch.bmm, messages aggregated by scatter_reduce mean, GRUCell state updates shared across steps, a
Set2Set-free sum/max readout with per-target standardisation, an EMA of the weights through AveragedModel, and
ReduceLROnPlateau on a validation loss."""

import torch
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class NNConv(nn.Module):
    def __init__(self, d, e_dim):
        super().__init__()
        self.d = d
        self.edge_net = nn.Sequential(nn.Linear(e_dim, 32), nn.ReLU(), nn.Linear(32, d * d))
        self.root = nn.Linear(d, d, bias=True)

    def forward(self, h, edge_index, e):
        src, dst = edge_index
        W = self.edge_net(e).view(-1, self.d, self.d)
        msg = torch.bmm(h[src].unsqueeze(1), W).squeeze(1)
        agg = torch.zeros_like(h).scatter_reduce(0, dst[:, None].expand(-1, self.d), msg, "mean", include_self=False)
        return self.root(h) + agg


class MPNN(nn.Module):
    def __init__(self, d_in=5, d=16, e_dim=4, steps=3, n_targets=2):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.conv = NNConv(d, e_dim)
        self.gru = nn.GRUCell(d, d)
        self.steps = steps
        self.head = nn.Sequential(nn.Linear(2 * d, d), nn.SiLU(), nn.Linear(d, n_targets))

    def forward(self, x, edge_index, e, batch, B):
        h = F.relu(self.inp(x))
        hidden = h
        for _ in range(self.steps):
            m = F.relu(self.conv(h, edge_index, e))
            hidden = self.gru(m, hidden)
            h = hidden
        s = torch.zeros(B, h.shape[1]).index_add(0, batch, h)
        mx = torch.full((B, h.shape[1]), float("-inf")).scatter_reduce(0, batch[:, None].expand_as(h), h, "amax")
        return self.head(torch.cat([s, mx], dim=-1))


def random_batch(B, gen):
    sizes = torch.randint(3, 7, (B,), generator=gen)
    batch = torch.repeat_interleave(torch.arange(B), sizes)
    n = int(sizes.sum())
    offs = torch.cumsum(sizes, 0) - sizes
    edges = []
    for b in range(B):
        k = int(sizes[b])
        i = torch.arange(k - 1)
        chain = torch.stack([i, i + 1]) + offs[b]
        edges.append(torch.cat([chain, chain.flip(0)], dim=1))
    ei = torch.cat(edges, dim=1)
    x = F.one_hot(torch.randint(0, 5, (n,), generator=gen), 5).float()
    e = F.one_hot(torch.randint(0, 4, (ei.shape[1],), generator=gen), 4).float()
    y = torch.stack([sizes.float() * 0.5, torch.zeros(B).index_add(0, batch, x[:, 0])], dim=-1)
    return x, ei, e, batch, B, y


gen = torch.Generator().manual_seed(1)
train = [random_batch(4, gen) for _ in range(3)]
val = random_batch(6, gen)
ys = torch.cat([b[-1] for b in train])
mu, sd = ys.mean(0), ys.std(0, unbiased=True)
print("target stats", mu.round(decimals=4).tolist(), sd.round(decimals=4).tolist())

model = MPNN()
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=0)
for epoch in range(4):
    for x, ei, e, batch, B, y in train:
        pred = model(x, ei, e, batch, B)
        loss = F.l1_loss(pred, (y - mu) / sd)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(model)
    with torch.no_grad():
        x, ei, e, batch, B, y = val
        vl = F.l1_loss(model(x, ei, e, batch, B) * sd + mu, y).item()
        ve = F.l1_loss(ema.module(x, ei, e, batch, B) * sd + mu, y).item()
    sched.step(vl)
    print(epoch, round(loss.item(), 4), round(vl, 4), round(ve, 4), opt.param_groups[0]["lr"])
print("n_averaged", int(ema.n_averaged), sched.num_bad_epochs, round(sched.best, 4))
W = model.conv.edge_net(torch.eye(4)).view(4, 16, 16)
print("edge weights", tuple(W.shape), W.norm(dim=(1, 2)).round(decimals=4).tolist())
print("gru", model.gru, model.gru.weight_ih.shape)
try:
    torch.bmm(torch.ones(2, 1, 3), torch.ones(3, 3, 3))
except RuntimeError as ex:
    print("bmm", ex)
try:
    model.gru(torch.ones(3, 16), torch.ones(2, 16))
except RuntimeError as ex:
    print("gru", ex)
