"""torch.Tensor method docstring examples: expand, repeat, unfold, view(dtype), tile, unflatten, squeeze dims..."""

import torch

x = torch.tensor([[1], [2], [3]])
print("expand", x.size(), x.expand(3, 4), x.expand(-1, 4), x.expand(2, 3, 2).shape, x.expand_as(torch.ones(3, 2)))
print("expand stride", x.expand(3, 4).stride(), x.expand(3, 4).is_contiguous(), x.expand(3, 4).contiguous().stride())
r = torch.tensor([1, 2, 3])
print(
    "repeat", r.repeat(4, 2), r.repeat(4, 2, 1).size(), torch.tensor(5).repeat(()), torch.ones(2, 2).repeat(1, 2).shape
)
print("repeat_interleave", r.repeat_interleave(2), torch.repeat_interleave(torch.tensor([[1, 2], [3, 4]]), 2))
y = torch.tensor([[1, 2], [3, 4]])
print(
    "repeat_interleave dim",
    torch.repeat_interleave(y, 3, dim=1),
    torch.repeat_interleave(y, torch.tensor([1, 2]), dim=0),
)
print("repeat_interleave counts", torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([2, 3]), output_size=5))
print("repeat_interleave idx", torch.repeat_interleave(torch.tensor([2, 0, 3])), y.repeat_interleave(torch.tensor(2)))
u = torch.arange(1.0, 8)
print("unfold", u.unfold(0, 2, 1), u.unfold(0, 2, 2), torch.arange(12).reshape(3, 4).unfold(1, 2, 2).shape)
t = torch.tensor([[1, 2], [3, 4]])
print("tile", torch.tile(r, (2,)), torch.tile(t, (2, 2)), t.tile((2,)).shape, t.tile((2, 1, 1)).shape)
f = torch.arange(4 * 6).reshape(4, 6)
print("unflatten", f.unflatten(1, (2, 3)).shape, f.unflatten(1, (-1, 2)).shape, torch.unflatten(f, -1, (3, 1, 2)).shape)
print(
    "flatten",
    torch.flatten(torch.arange(8).reshape(2, 2, 2)),
    torch.ones(2, 3, 4, 5).flatten(1, 2).shape,
    torch.tensor(3).flatten(),
)
s = torch.zeros(2, 1, 2, 1, 2)
print(
    "squeeze",
    s.squeeze().shape,
    s.squeeze(0).shape,
    s.squeeze(1).shape,
    s.squeeze((1, 2, 3)).shape,
    s.squeeze(-1).shape,
)
print("unsqueeze", r.unsqueeze(0), r.unsqueeze(1), r.unsqueeze(-1).shape, r[None, :, None].shape)
v = torch.arange(16.0).view(4, 4)
print("view", v.view(16).shape, v.view(-1, 8).size(), v.view(2, 2, 4).transpose(1, 2).shape)
a = torch.tensor([[1.5, -2.0], [0.0, 1.0]])
print(
    "view dtype", a.view(torch.int32), a.view(torch.int16).shape, a.view(torch.uint8).shape, a.view(torch.float64).shape
)
print(
    "view dtype back",
    a.view(torch.int32).view(torch.float32).equal(a),
    torch.tensor([1, 2], dtype=torch.int64).view(torch.int32),
)
print(
    "view_as reshape_as", v.view_as(torch.ones(2, 8)).shape, v.reshape_as(torch.ones(8, 2)).shape, v.T.reshape(16)[:5]
)
print(
    "T mT",
    torch.arange(6).reshape(2, 3).T,
    torch.arange(12).reshape(2, 2, 3).mT.shape,
    torch.tensor([1 + 2j]).reshape(1, 1).mH,
)
print("permute", torch.ones(2, 3, 5).permute(2, 0, 1).size(), torch.ones(2, 3, 5).permute((1, -1, 0)).stride())
print(
    "transpose", torch.ones(2, 3).transpose(0, 1).shape, torch.ones(2, 3).t().is_contiguous(), torch.tensor([1, 2]).t()
)
print("narrow", v.narrow(0, 1, 2), v.narrow(1, -2, 1).squeeze(), v.select(1, 0), v[:, 1].storage_offset())
print("stride", v.stride(), v.stride(0), v.t().stride(-1), v[::2, 1:].stride(), v[::2, 1:].storage_offset())
print(
    "element sizes",
    v.element_size(),
    v.nbytes,
    v.itemsize,
    torch.ones(3, dtype=torch.float16).element_size(),
    torch.ones(0).nbytes,
)
print("dim numel", v.dim(), v.ndimension(), v.numel(), v.nelement(), torch.tensor(1.0).dim(), len(v))
print(
    "item tolist", torch.tensor([[1]]).item(), torch.tensor(2.5).item(), v[:2, :2].tolist(), torch.tensor(True).tolist()
)
print(
    "type", v.type(), v.int().type(), v.type(torch.int8).dtype, v.type("torch.DoubleTensor").dtype, v.type_as(r).dtype
)
print(
    "to",
    v.to(torch.float64).dtype,
    v.to("cpu", torch.int16).dtype,
    v.to(r).dtype,
    v.to(torch.float32) is v,
    v.to(torch.float32, copy=True) is v,
)
print(
    "casts",
    a.long(),
    a.int(),
    a.bool(),
    a.half().dtype,
    a.bfloat16().dtype,
    a.double().dtype,
    a.char().dtype,
    a.byte().dtype,
    a.short().dtype,
)
print("new", a.new_tensor([[1, 2]]), a.new_zeros((2,), dtype=torch.int64), a.new_ones(2, 1).shape, a.new_empty(0).shape)
fd = torch.zeros(3, 3)
print(
    "fill_diagonal_",
    fd.fill_diagonal_(5),
    torch.zeros(7, 3).fill_diagonal_(5, wrap=True),
    torch.zeros(3, 4).fill_diagonal_(2),
)
print("fill zero", torch.ones(2).fill_(3), torch.ones(2).zero_(), torch.ones(2, dtype=torch.int64).fill_(2.7))
m = torch.zeros(2, 3)
m.masked_fill_(torch.tensor([True, False, True]), 7.5)
print("masked_fill_", m, m.index_fill(0, torch.tensor([1]), -1.0))
ap = torch.tensor([1.0, 2.0, 3.0])
ap.apply_(lambda z: z * 10 + 1)
print("apply_", ap)
mp = torch.tensor([1.0, 2.0, 3.0])
mp.map_(torch.tensor([10.0, 20.0, 30.0]), lambda p, q: p + q)
print("map_", mp)
print(
    "sum_to_size",
    torch.ones(2, 3).sum_to_size(1, 3),
    torch.ones(2, 3).sum_to_size(2, 1),
    torch.ones(2, 3).sum_to_size((3,)),
)
rs = torch.arange(6.0)
rs.resize_(2, 2)
print("resize_", rs, torch.arange(4).resize_as_(torch.ones(2, 2)))
print(
    "clone detach",
    a.clone().equal(a),
    a.detach().requires_grad,
    a.clone(memory_format=torch.contiguous_format).is_contiguous(),
)
print(
    "contiguous formats",
    torch.ones(2, 3, 4, 5).contiguous(memory_format=torch.channels_last).stride(),
    torch.ones(2, 3, 4, 5).is_contiguous(memory_format=torch.channels_last),
)
print(
    "broadcast_to",
    torch.broadcast_to(r, (3, 3)),
    torch.broadcast_shapes((2,), (3, 1)),
    torch.broadcast_shapes((1, 2), (2, 1), (2,)),
)
bt = torch.broadcast_tensors(torch.arange(3).view(1, 3), torch.arange(2).view(2, 1))
print("broadcast_tensors", bt[0], bt[1].shape)
print(
    "atleast",
    torch.atleast_1d(torch.tensor(1.0)),
    torch.atleast_2d(r).shape,
    torch.atleast_3d(r).shape,
    torch.atleast_3d(t).shape,
)
print("atleast tuple", [q.shape for q in torch.atleast_2d((torch.tensor(0.5), torch.tensor(1.0)))])
print(
    "ravel",
    torch.ravel(t),
    v.t().ravel()[:4],
    torch.reshape(torch.arange(4.0), (2, 2)),
    torch.reshape(torch.tensor([[0, 1], [2, 3]]), (-1,)),
)
print("chunk split", [c.shape for c in torch.ones(5, 2).chunk(2)], [c.shape for c in torch.ones(5, 2).split([1, 4])])
print(
    "real imag",
    torch.tensor([1 + 2j, 3 - 1j]).real,
    torch.tensor([1 + 2j]).imag,
    torch.tensor([1 + 2j]).conj().is_conj(),
    torch.tensor([1 + 2j]).conj().resolve_conj().is_conj(),
)
print(
    "is_*",
    v.is_floating_point(),
    r.is_floating_point(),
    torch.tensor([1j]).is_complex(),
    v.is_signed(),
    torch.tensor([1], dtype=torch.uint8).is_signed(),
)
print(
    "storage",
    v.untyped_storage().nbytes(),
    v[1:].untyped_storage().data_ptr() == v.untyped_storage().data_ptr(),
    v.is_set_to(v),
)
print(
    "data_ptr", v[1].data_ptr() - v.data_ptr(), v.t().data_ptr() == v.data_ptr(), v.clone().data_ptr() == v.data_ptr()
)
g = torch.tensor([1.0, 2.0], requires_grad=True)
h = g * 2
h.retain_grad()
h.register_hook(lambda grad: grad * 3)
(h**2).sum().backward()
print("hooks", g.grad, h.grad, h.is_leaf, h.grad_fn.name(), g.requires_grad_(False).requires_grad)
np_view = torch.arange(3.0).numpy()
print(
    "numpy",
    np_view,
    np_view.dtype,
    torch.tensor([1.0], requires_grad=True).detach().numpy(),
    torch.ones(2).numpy(force=True),
)
for bad in [
    lambda: x.expand(2, 4),
    lambda: x.expand(4),
    lambda: r.repeat(2),
    lambda: r.repeat_interleave(torch.tensor([1, 2])),
    lambda: u.unfold(0, 8, 1),
    lambda: u.unfold(0, 2, 0),
    lambda: f.unflatten(1, (4, 2)),
    lambda: v.t().view(16),
    lambda: a.view(torch.float64).view(3),
    lambda: torch.ones(3).view(torch.float64),
    lambda: v.view(5, -1),
    lambda: v.view(-1, -1),
    lambda: torch.ones(2, 3).sum_to_size(3, 2),
    lambda: torch.tensor([1, 2]).item(),
    lambda: torch.ones(2).fill_(torch.ones(2)),
    lambda: torch.ones(2).fill_diagonal_(1.0),
    lambda: torch.ones(2, 3).mT.view(6),
    lambda: torch.ones(2, 3).permute(0, 0),
    lambda: torch.ones(2, 3).permute(0),
    lambda: torch.ones(2, requires_grad=True).numpy(),
    lambda: torch.broadcast_to(r, (3, 2)),
    lambda: torch.broadcast_shapes((2, 3), (3, 2)),
    lambda: torch.ones(2, 2).squeeze(2),
    lambda: torch.tile(t, (-1,)),
    lambda: t.type("torch.NoSuchTensor"),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
