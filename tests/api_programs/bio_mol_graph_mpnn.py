"""Molecular graphs from SMILES as cheminformatics code builds them: a regex-free SMILES tokenizer with ring closures
and branches, atom features one-hot encoded, bond lists made undirected into edge_index and a dense adjacency,
degree via bincount, an MPNN whose messages aggregate with index_add_ and scatter_reduce (sum/mean/amax/amin, with
and without include_self), index_reduce, a set2set-free readout with segment softmax, and the errors of bad indices."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
ATOMS = ["C", "N", "O", "S", "Cl"]


def parse(smiles):
    atoms, bonds, stack, rings, prev, i = [], [], [], {}, None, 0
    order = 1
    while i < len(smiles):
        ch = smiles[i]
        if smiles.startswith("Cl", i):
            sym, i = "Cl", i + 2
        elif ch in "CNOS":
            sym, i = ch, i + 1
        elif ch == "(":
            stack.append(prev)
            i += 1
            continue
        elif ch == ")":
            prev = stack.pop()
            i += 1
            continue
        elif ch == "=":
            order = 2
            i += 1
            continue
        elif ch.isdigit():
            if ch in rings:
                bonds.append((rings.pop(ch), prev, 1))
            else:
                rings[ch] = prev
            i += 1
            continue
        else:
            raise ValueError(f"unsupported token {ch!r}")
        atoms.append(ATOMS.index(sym))
        if prev is not None:
            bonds.append((prev, len(atoms) - 1, order))
        prev, order = len(atoms) - 1, 1
    return atoms, bonds


mols = ["CCO", "C1CCCCC1", "CC(=O)NC", "ClCC(Cl)S"]
graphs = [parse(s) for s in mols]
print("parsed", [(len(a), len(b)) for a, b in graphs])
xs, eis, eas, batch = [], [], [], []
offset = 0
for g, (atoms, bonds) in enumerate(graphs):
    b = torch.tensor(bonds, dtype=torch.long).view(-1, 3)
    ei = torch.cat([b[:, :2].T, b[:, :2].flip(1).T], 1) + offset
    eis.append(ei)
    eas.append(b[:, 2].repeat(2))
    xs.append(torch.tensor(atoms))
    batch.append(torch.full((len(atoms),), g))
    offset += len(atoms)
atom_type = torch.cat(xs)
edge_index = torch.cat(eis, 1)
bond_order = torch.cat(eas)
batch = torch.cat(batch)
N = atom_type.numel()
print("edge_index", edge_index.shape, edge_index[:, :6].tolist(), "batch", batch.tolist())
deg = torch.bincount(edge_index[0], minlength=N)
print("degree", deg.tolist(), torch.bincount(batch).tolist())
A = torch.zeros(N, N, dtype=torch.long)
A.index_put_((edge_index[0], edge_index[1]), bond_order)
print(
    "adjacency sym", torch.equal(A, A.T), "ring cycle", torch.linalg.matrix_power(A[3:9, 3:9].float(), 6).trace().item()
)
A2 = torch.sparse_coo_tensor(edge_index, bond_order.float(), (N, N)).coalesce()
print("sparse", A2.indices().shape, torch.equal(A2.to_dense().long(), A))

x = torch.cat([F.one_hot(atom_type, len(ATOMS)).float(), deg[:, None].float() / 4], 1)
src, dst = edge_index
msg = x[src] * bond_order[:, None]
for reduce in ["sum", "mean", "amax", "amin", "prod"]:
    out = torch.zeros(N, x.shape[1]).scatter_reduce(
        0, dst[:, None].expand_as(msg), msg, reduce=reduce, include_self=False
    )
    print(reduce, out[:3, :2].tolist(), round(out.sum().item(), 4))
inc = torch.ones(N, 2).scatter_reduce(0, dst[:, None].expand(-1, 2), msg[:, :2], reduce="mean", include_self=True)
print("mean include_self", inc[:4].round(decimals=4).tolist())
ir = torch.full((N, 2), -1.0).index_reduce_(0, dst, msg[:, :2] + 1, "amax", include_self=True)
print("index_reduce amax", ir[:4].tolist())
ir2 = torch.zeros(N, 2).index_reduce(0, dst, msg[:, :2] + 1, "mean", include_self=False)
print("index_reduce mean", ir2[:4].round(decimals=4).tolist())


class MPNN(nn.Module):
    def __init__(self, d_in, d=16):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.edge = nn.Embedding(3, d * d)
        self.gru = nn.GRUCell(d, d)
        self.gate = nn.Linear(d, 1)
        self.out = nn.Linear(d, 1)

    def forward(self, x, edge_index, bond, batch, n_graphs):
        h = F.relu(self.inp(x))
        src, dst = edge_index
        for _ in range(3):
            W = self.edge(bond).view(-1, h.shape[1], h.shape[1])
            m = torch.bmm(W, h[src].unsqueeze(-1)).squeeze(-1)
            agg = torch.zeros_like(h).index_add_(0, dst, m)
            h = self.gru(agg, h)
        s = self.gate(h).squeeze(-1)
        smax = torch.full((n_graphs,), float("-inf")).scatter_reduce(0, batch, s, "amax")
        e = (s - smax[batch]).exp()
        att = e / torch.zeros(n_graphs).index_add(0, batch, e)[batch]
        g = torch.zeros(n_graphs, h.shape[1]).index_add_(0, batch, att[:, None] * h)
        return self.out(g).squeeze(-1), att


model = MPNN(x.shape[1])
y = torch.tensor([-0.2, 1.1, 0.4, -1.3])
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(4):
    pred, att = model(x, edge_index, bond_order, batch, len(mols))
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), pred.shape)
sizes = torch.bincount(batch)
xr = x.clone().requires_grad_(True)
for reduce in ["sum", "mean", "amax", "min"]:
    seg = torch.segment_reduce(xr, reduce, lengths=sizes, axis=0)
    print("segment", reduce, seg.shape, seg[:, :3].round(decimals=4).tolist(), seg.grad_fn.name())
print(
    "segment offsets",
    torch.segment_reduce(
        x[:, 5], "max", offsets=torch.cat([torch.zeros(1, dtype=torch.long), sizes.cumsum(0)])
    ).tolist(),
)
print(
    "segment == index_add",
    torch.allclose(torch.segment_reduce(x, "sum", lengths=sizes), torch.zeros(4, x.shape[1]).index_add(0, batch, x)),
)
print("att sums", torch.zeros(4).index_add(0, batch, att.detach()).round(decimals=4).tolist())
print("edge emb grad", model.edge.weight.grad.shape, model.edge.weight.grad[0].abs().sum().item() == 0)
print("grad_fn", pred.grad_fn.name(), att.grad_fn.name())
try:
    torch.zeros(3).index_add_(0, torch.tensor([0, 5]), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3).scatter_reduce(0, torch.tensor([0, 1]), torch.ones(2), reduce="max")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3).index_reduce_(0, torch.tensor([0, 1]), torch.ones(2), "sum")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3, dtype=torch.long).index_add_(0, torch.tensor([0]), torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.segment_reduce(atom_type, "sum", lengths=sizes)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.segment_reduce(x, "median", lengths=sizes)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3, dtype=torch.long).index_add(0, torch.tensor([0, 0]), torch.tensor([1, 2]), alpha=1.5)
    print(
        "int index_add alpha",
        torch.zeros(3, dtype=torch.long).index_add(0, torch.tensor([0, 0]), torch.tensor([1, 2]), alpha=1.5).tolist(),
    )
except Exception as e:
    print(type(e).__name__, e)
try:
    parse("c1ccccc1")
except Exception as e:
    print(type(e).__name__, e)
