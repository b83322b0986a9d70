"""GNN message passing with scatter/index_add_, scatter_reduce, gather, bincount, unique."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:8].numpy(), 4).tolist()


N, E, F_ = 6, 10, 4
x = T(N, F_)
edge_index = torch.from_numpy(rng.integers(0, N, (2, E)))
src, dst = edge_index


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(F_, F_)

    def forward(self, x):
        deg = torch.zeros(N).index_add_(0, dst, torch.ones(E)).clamp(min=1)
        msg = self.lin(x)[src]
        agg = torch.zeros(N, F_).index_add(0, dst, msg)
        agg2 = torch.zeros(N, F_).scatter_add(0, dst.unsqueeze(-1).expand(-1, F_), msg)
        torch.testing.assert_close(agg, agg2)
        return torch.relu(agg / deg.unsqueeze(-1))


g = GCN()
with torch.no_grad():
    g.lin.weight.copy_(T(F_, F_) * 0.3)
    g.lin.bias.zero_()
out = g(x)
out.sum().backward()
print("gcn", r(out), r(g.lin.weight.grad))
msg = x[src]
idx = dst.unsqueeze(-1).expand_as(msg)
for red in ["sum", "prod", "mean", "amax", "amin"]:
    print("scatter_reduce", red, r(torch.zeros(N, F_).scatter_reduce(0, idx, msg, reduce=red, include_self=False)))
print("scatter", r(torch.zeros(3, 5).scatter_(1, torch.tensor([[0, 1], [2, 3], [4, 0]]), 1.0)))
print(
    "scatter_add_red",
    r(torch.zeros(3, 5).scatter_(1, torch.tensor([[0, 0], [2, 3], [4, 0]]), torch.ones(3, 2), reduce="add")),
)
print("gather", r(torch.gather(x, 1, torch.tensor([[0, 1]] * N))))
print("index_select", r(x.index_select(0, torch.tensor([5, 0]))))
print(
    "index_put",
    r(torch.zeros(4).index_put_((torch.tensor([0, 0, 2]),), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)),
)
print(
    "index_reduce",
    r(
        torch.ones(3, 2).index_reduce_(
            0, torch.tensor([0, 0, 2]), torch.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]), "prod"
        )
    ),
)
print("bincount", torch.bincount(dst, minlength=N).tolist(), torch.bincount(dst, weights=torch.ones(E) * 0.5).tolist())
print("unique", [t.tolist() for t in torch.unique(dst, return_inverse=True, return_counts=True)])
print(
    "unique_consec",
    [t.tolist() for t in torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1]), return_counts=True)],
)
print("OK")
