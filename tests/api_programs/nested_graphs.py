"""Molecular graphs with ragged neighbour lists as jagged nested tensors: CSR offsets, attention over neighbours."""
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

# a batch of two small molecules: 4 + 3 atoms, edges stored by destination atom (CSR row pointer)
num_atoms = 7
src = torch.tensor([1, 2, 0, 3, 0, 1, 2, 5, 6, 4, 4])
dst = torch.tensor([0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6])
rowptr = torch.zeros(num_atoms + 1, dtype=torch.long)
rowptr[1:] = torch.bincount(dst, minlength=num_atoms).cumsum(0)
print(rowptr.tolist())
pos = torch.randn(num_atoms, 3)
h = torch.randn(num_atoms, 8)

# edge features grouped by destination atom: (atoms, j, features)
rel = pos[src] - pos[dst]
dist = rel.norm(dim=-1, keepdim=True)
edges = torch.nested.nested_tensor_from_jagged(torch.cat([h[src], dist], -1), offsets=rowptr)
print(edges.shape[0], edges.shape[2], edges.values().shape, [len(t) for t in edges.unbind()])

# messages, attention logits, and a softmax over each atom's neighbours (the ragged dim)
msg_fn = nn.Sequential(nn.Linear(9, 16), nn.SiLU(), nn.Linear(16, 16))
att_fn = nn.Linear(9, 1)
msg = msg_fn(edges)
logit = att_fn(edges)
alpha = torch.softmax(logit, dim=1)
print(type(alpha).__name__ == type(edges).__name__, alpha.values().shape)
print([round(a.sum().item(), 4) for a in alpha.unbind()])
weighted = alpha * msg
print(weighted.shape[-1], type(weighted.grad_fn).__name__)

# aggregate over neighbours (forward only: PyTorch has no backward for nested sums over the ragged dim)
with torch.no_grad():
    agg = weighted.sum(1)
    print(agg.shape, agg.sum(-1).round(decimals=4).tolist())
    agg_max = weighted.amax(1)
    print(agg_max.shape, round(agg_max.sum().item(), 4))

# the same aggregation by padding (differentiable), checked against a scatter-add over edges
pad = weighted.to_padded_tensor(0.0)
agg2 = pad.sum(1)
scatter = torch.zeros(num_atoms, 16).index_add(0, dst, weighted.values())
print(pad.shape, torch.allclose(agg2, scatter, atol=1e-6), torch.allclose(agg2, agg, atol=1e-6))

# an update step, a readout per molecule, and gradients to every parameter
update = nn.GRUCell(16, 8)
h_new = update(agg2, h)
mol_ptr = torch.tensor([0, 4, 7])
mols = torch.nested.nested_tensor_from_jagged(h_new, offsets=mol_ptr)
readout = torch.stack([m.sum(0) for m in mols.unbind()])
energy = nn.Linear(8, 1)(readout).squeeze(-1)
print(energy.round(decimals=4).tolist())
energy.sum().backward()
print(round(msg_fn[0].weight.grad.abs().sum().item(), 4))  # (PyTorch's ragged softmax backward is off: not printed)
print(msg_fn[0].weight.grad.shape, att_fn.bias.grad.shape)

# neighbour lists in another ragged dim: jagged_dim=2 views (features, j) per atom
by_feat = edges.transpose(1, 2)
print(by_feat.shape[1], by_feat._ragged_idx, by_feat.unbind()[0].shape, by_feat.transpose(1, 2)._ragged_idx)
print(torch.nested.nested_tensor_from_jagged(edges.values(), rowptr, max_seqlen=3).to_padded_tensor(0.0).shape)

# what PyTorch refuses
for bad in (lambda: torch.nested.nested_tensor_from_jagged(edges.values()),
            lambda: edges.chunk(2, 1), lambda: edges.softmax(0), lambda: edges + torch.ones(3, 9),
            lambda: edges.sum((1, 2)), lambda: edges.squeeze(1)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).replace(str(edges.size(1)), "j"))
