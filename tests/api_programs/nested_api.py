"""torch.nested's construction, reprs, metadata and view semantics, as PyTorch prints them."""
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

a, b = torch.arange(6.0).reshape(2, 3), torch.arange(9.0).reshape(3, 3) / 2

# strided: a copy, a new leaf when asked
s = torch.nested.nested_tensor([a, b], requires_grad=True)
print(s)
print(s.layout, s.is_leaf, s.requires_grad, s.dtype, s.device, s.is_nested, a.is_nested)
print(s[0], s.unbind()[1].shape, s.size(0), s.size(-1), s.numel(), s.is_contiguous())
print(torch.nested.nested_tensor([a.long(), b.long()]))
print(torch.nested.nested_tensor([[1.0, 2.0], [3.0]]).unbind()[1])

# jagged: sizes with a nested int, offsets, values
j = torch.nested.nested_tensor([a, b], layout=torch.jagged, requires_grad=True)
print(j)
ragged = j.size(1)
print(j.size(), j.shape[0], j.shape[2], j.dim(), len(j), j.offsets(), j.lengths(), j.values().shape)
print(str(ragged) == str(j.shape[1]), j.is_leaf, j.numel())
y = (j * 2 + 1).relu()
print(type(y.grad_fn).__name__, y.offsets() is j.offsets(), y.size(1) == ragged)
print(j.to(torch.float64).dtype, j.double().values().dtype, j.half().dtype, j.clone().offsets() is j.offsets())
print(j.detach().requires_grad, j.detach().is_leaf)

# from a padded batch: as_nested_tensor of a tensor, and narrow with per-row starts and lengths
dense = torch.arange(24.0).reshape(2, 3, 4)
n1 = torch.nested.as_nested_tensor(dense, layout=torch.jagged)
print(n1.offsets().tolist(), n1.values().shape, n1.to_padded_tensor(-1.0).shape)
n2 = torch.nested.narrow(dense, 1, torch.tensor([0, 1]), torch.tensor([2, 1]), layout=torch.jagged)
print(n2.offsets().tolist(), n2.lengths().tolist(), n2.is_contiguous(), [t.tolist() for t in n2.unbind()])
n3 = torch.nested.nested_tensor_from_jagged(torch.arange(10.0).reshape(5, 2), lengths=torch.tensor([2, 3]))
print(n3.offsets().tolist(), n3.lengths(), n3.to_padded_tensor(0.0).tolist())
n4 = torch.nested.nested_tensor_from_jagged(torch.arange(10.0).reshape(5, 2), torch.tensor([0, 1, 5]), max_seqlen=4)
print(n4.to_padded_tensor(0.0).shape, n4.unbind()[1].shape)
mask = torch.tensor([[True, False, True, True], [False, True, False, False]])
n5 = torch.nested.masked_select(torch.arange(8.0).reshape(2, 4), mask)
print(n5.offsets().tolist(), n5.values().tolist())

# views: transpose, unflatten, unsqueeze, chunk/split on regular dims
t = torch.nested.nested_tensor([torch.randn(2, 6), torch.randn(3, 6)], layout=torch.jagged)
u = t.unflatten(-1, (2, 3))
print(u.dim(), u.shape[2], u.values().shape, u.transpose(1, 2).shape[1], u.transpose(1, 2)._ragged_idx)
print(u.transpose(1, 2).values().shape, u.transpose(1, 2).is_contiguous())
print(t.unsqueeze(-1).values().shape, [c.shape for c in t.chunk(3, -1)], [c.shape[-1] for c in t.split(4, -1)])
print(torch.cat([t, t * 0], -1).values().shape, t.view(2, -1, 3, 2).values().shape)

# reductions and normalisations over the last dim and the ragged dim
print(t.sum(-1).values().shape, t.amax(-1, keepdim=True).values().shape, t.mean(1).shape, t.sum().shape)
print(torch.equal(F.softmax(t, -1).values(), F.softmax(t.values(), -1)))
print([round(v, 4) for v in torch.softmax(t, 1).to_padded_tensor(0.0).sum(1)[1].tolist()])
print(t.max(-1).values.values().shape, (t > 0).dtype, torch.where(t > 0, t, 0.0).values().min().item())

# a Linear layer and LayerNorm on the last dim; elementwise ops with scalars and broadcast dense tensors
lin, ln = nn.Linear(6, 2), nn.LayerNorm(6)
print(lin(t).values().shape, type(lin(t).grad_fn).__name__, ln(t).values().mean(-1).abs().max().item() < 1e-5)
print((t + torch.ones(6)).values().shape, (t * torch.tensor([1.0, 2.0]).view(2, 1, 1)).values().shape)
print((2 - t).values().shape, (t ** 2).values().min().item() >= 0, t.abs().sum().shape, F.gelu(t).dim())

# errors PyTorch raises
for bad in (lambda: s.size(), lambda: s.size(1), lambda: len(s), lambda: s.offsets(), lambda: j[:, 0],
            lambda: j + torch.ones(3, 3), lambda: j.sum(dim=(1, 2)), lambda: t.flatten(),
            lambda: t.squeeze(0), lambda: torch.nested.narrow(j, 1, 0, 1), lambda: n2.to_padded_tensor(0.0),
            lambda: torch.nested.nested_tensor([], layout=torch.jagged),
            lambda: torch.nested.masked_select(torch.ones(2, 4), torch.ones(2, 4)),
            lambda: j.backward()):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e)[:110])
