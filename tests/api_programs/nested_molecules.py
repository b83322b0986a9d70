"""Ragged molecules batched as nested tensors: per-atom MLPs, pooled energies, forces by autograd."""
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

# three molecules with 3, 5 and 2 atoms: atomic numbers and positions
numbers = [torch.tensor([8, 1, 1]), torch.tensor([6, 1, 1, 1, 8]), torch.tensor([1, 1])]
pos = [torch.randn(len(z), 3) for z in numbers]

# a PyG-style flat batch: one tensor of atoms and a pointer of where each molecule starts
flat_pos = torch.cat(pos).requires_grad_()
ptr = torch.tensor([0, 3, 8, 10])
mol = torch.nested.nested_tensor_from_jagged(flat_pos, offsets=ptr)
print(mol.is_nested, mol.layout, mol.dim(), mol.size(0), mol.size(-1), mol.dtype)
print(mol.offsets().tolist(), mol.lengths(), mol.values().shape)
print([tuple(t.shape) for t in mol.unbind()])

z = torch.nested.nested_tensor_from_jagged(torch.cat(numbers), offsets=ptr)
print(z.dtype, z.values().tolist())

# centre each molecule: subtract its centroid (a ragged mean, one row per molecule)
counts = (ptr[1:] - ptr[:-1]).float()
print(mol.detach().mean(1).round(decimals=4).tolist())  # PyTorch has no backward for ragged reductions
centroid = mol.to_padded_tensor(0.0).sum(1) / counts[:, None]
print(centroid.shape, centroid.round(decimals=4).tolist())
centred = mol - centroid.unsqueeze(1)
print(centred.shape[0], centred.values().sum(0).abs().max().item() < 1e-5)
print([c.mean(0).abs().max().item() < 1e-5 for c in centred.unbind()])

# per-atom features: embedding of the element plus distance to the centroid
emb = nn.Embedding(10, 6)
h_z = F.embedding(z, emb.weight)
r = ((centred * centred) @ torch.ones(3, 1)).sqrt()  # PyTorch: no backward for a nested sum
print(h_z.shape[-1], r.shape[-1], r.values().squeeze(-1).round(decimals=4).tolist())
h = torch.cat([h_z, r, centred], dim=-1)
print(h.size(-1), h.is_contiguous())

# a shared atom-wise MLP (nn.Linear / SiLU / LayerNorm on the last dim)
mlp = nn.Sequential(nn.Linear(10, 16), nn.SiLU(), nn.LayerNorm(16), nn.Linear(16, 1))
atom_e = mlp(h)
print(atom_e.shape[-1], type(atom_e.grad_fn).__name__)
energy = atom_e.to_padded_tensor(0.0).sum((1, 2))  # one energy per molecule
print(energy.shape, energy.round(decimals=4).tolist())

# forces: minus the gradient of the total energy with respect to every atom's position
(forces,) = torch.autograd.grad(-energy.sum(), flat_pos, retain_graph=True)
print(forces.shape, forces.round(decimals=4)[:4].tolist())
print([abs(f.sum().item()) < 1e-4 for f in forces.split([3, 5, 2])])  # translation invariance

# an energy-matching loss and one optimizer step (PyTorch's nested ops have no double backward for forces)
target = torch.tensor([-1.0, -2.0, -0.5])
loss = F.mse_loss(energy, target)
opt = torch.optim.Adam(mlp.parameters(), lr=1e-2)
opt.zero_grad()
loss.backward()
print(round(loss.item(), 4), round(mlp[0].weight.grad.norm().item(), 4))
opt.step()
print(round(mlp(h.detach()).sum(1).sum().item(), 4))

# padded view for a dense model, and back again with a mask
padded = mol.to_padded_tensor(0.0)
mask = torch.arange(padded.shape[1])[None, :] < (ptr[1:] - ptr[:-1])[:, None]
print(padded.shape, mask.int().tolist(), type(padded.grad_fn).__name__)
back = torch.nested.masked_select(padded, mask.unsqueeze(-1).expand_as(padded))
print(back.shape[0], back.values().shape, torch.equal(back.values(), flat_pos.detach().reshape(-1)))

# misuse PyTorch rejects
other = torch.nested.nested_tensor([p.detach() for p in pos], layout=torch.jagged)
for bad in (lambda: mol + other, lambda: mol.sum(0), lambda: mol.transpose(0, 1),
            lambda: mol.unbind(1)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).replace(str(mol.size(1)), "j").replace(str(other.size(1)), "j"))
