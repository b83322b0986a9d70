"""Message aggregation on a molecular graph with every scatter_reduce mode: sum/mean/amax/amin/prod with
include_self both ways, on float, half-free integer and float64 features, their gradients (ties in amax/amin,
zeros in prod), index_reduce_ and index_add_ with alpha, and the errors PyTorch raises for misuse."""

import torch

torch.manual_seed(0)

# ethanol-like heavy-atom graph: 0-1, 1-2 plus hydrogens on 0 (3,4,5); atom 6 is isolated (receives nothing)
src = torch.tensor([1, 0, 2, 1, 3, 0, 4, 0, 5, 0])
dst = torch.tensor([0, 1, 1, 2, 0, 3, 0, 4, 0, 5])
num_nodes = 7
msg = torch.tensor([[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0], [2.0, 2.0], [0.5, -2.0],
                    [1.5, 1.0], [2.0, 0.0], [-3.0, 1.0], [1.0, 3.0], [0.25, -1.0]])
index = dst.unsqueeze(-1).expand_as(msg)
base = torch.full((num_nodes, 2), 10.0)

for reduce in ["sum", "mean", "amax", "amin", "prod"]:
    for include_self in (True, False):
        out = base.scatter_reduce(0, index, msg, reduce=reduce, include_self=include_self)
        print(reduce, include_self, out.round(decimals=4).tolist())

# integer counts of bond types per atom, and integer mean (floor division semantics)
bond_type = torch.tensor([1, 1, 2, 2, 1, 1, 1, 1, 1, 1])
ib = torch.zeros(num_nodes, dtype=torch.int64)
print("int sum", ib.scatter_reduce(0, dst, bond_type, "sum").tolist())
print("int mean", torch.ones(num_nodes, dtype=torch.int64).scatter_reduce(0, dst, bond_type * 3, "mean").tolist())
print("int mean excl", ib.scatter_reduce(0, dst, bond_type * 3, "mean", include_self=False).tolist())
print("int amax excl", ib.scatter_reduce(0, dst, -bond_type, "amax", include_self=False).tolist())
print("int prod", torch.ones(num_nodes, dtype=torch.int32).scatter_reduce(0, dst, bond_type.int() + 1, "prod").tolist())

# gradients: amax/amin with ties split the gradient evenly; prod with a zero
x = torch.tensor([[2.0], [2.0], [1.0], [0.0], [3.0], [3.0], [-1.0], [0.5], [4.0], [0.0]], requires_grad=True)
idx = dst.unsqueeze(-1)
for reduce in ["sum", "mean", "amax", "amin", "prod"]:
    for include_self in (True, False):
        b = torch.full((num_nodes, 1), 2.0, requires_grad=True)
        out = b.scatter_reduce(0, idx, x, reduce=reduce, include_self=include_self)
        w = torch.arange(1.0, num_nodes + 1).unsqueeze(-1)
        gx, gb = torch.autograd.grad((out * w).sum(), (x, b))
        print("grad", reduce, include_self, out.grad_fn.name(), gx.flatten().round(decimals=4).tolist(),
              gb.flatten().round(decimals=4).tolist())

# index_reduce_ (the dim-wise sibling) and index_add_ with alpha, float64
h = torch.randn(4, 3, dtype=torch.float64)
seg = torch.tensor([0, 2, 0, 1])
for reduce in ["prod", "mean", "amax", "amin"]:
    for include_self in (True, False):
        acc = torch.ones(3, 3, dtype=torch.float64).index_reduce_(0, seg, h, reduce, include_self=include_self)
        print("index_reduce", reduce, include_self, acc.round(decimals=4).tolist())
acc = torch.zeros(3, 3, dtype=torch.float64).index_add_(0, seg, h, alpha=-0.5)
print("index_add alpha", acc.round(decimals=4).tolist())
print("index_add fn",
      torch.index_add(torch.zeros(3, 3), 1, torch.tensor([2, 0, 2]), torch.ones(3, 3), alpha=2).tolist())

# scatter_add_ in place on a node buffer and scatter with reduce=
agg = torch.zeros(num_nodes, 2)
agg.scatter_add_(0, index, msg)
print("scatter_add_", agg.round(decimals=4).tolist())
print("scatter multiply", torch.ones(num_nodes, 2).scatter(0, index, msg, reduce="multiply").round(decimals=4).tolist())
print("scatter add value", torch.zeros(num_nodes).scatter(0, dst, 1.0, reduce="add").tolist())

# misuse
tries = {
    "bad reduce": lambda: base.scatter_reduce(0, index, msg, reduce="max"),
    "float index": lambda: base.scatter_reduce(0, index.float(), msg, reduce="sum"),
    "int32 index": lambda: base.scatter_reduce(0, index.int(), msg, reduce="sum"),
    "dtype mismatch": lambda: base.scatter_reduce(0, index, msg.double(), reduce="sum"),
    "index_reduce bad": lambda: torch.ones(3, 3).index_reduce_(0, seg, h.float(), "sum"),
    "index_add len": lambda: torch.zeros(3, 3).index_add_(0, torch.tensor([0, 1]), torch.ones(3, 3)),
    "scatter_add dims": lambda: torch.zeros(3).scatter_add_(0, torch.tensor([[0]]), torch.ones(1, 1)),
    "index oob": lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([5]), torch.ones(1), "amax"),
}
for name, fn in tries.items():
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
