"""Storage sharing as library authors check it: untyped_storage() nbytes, data_ptr equality between a tensor and
its views (view, reshape, transpose, narrow, expand, slicing, select, diagonal, unflatten, real/imag), which of
them copy (reshape of a transposed tensor, contiguous, clone, flatten of a non-contiguous tensor), element_size,
itemsize and nbytes across dtypes, storage_offset of each view, and detach() sharing memory."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

base = torch.arange(24, dtype=torch.float32)
st = base.untyped_storage()
print("storage nbytes:", st.nbytes(), "size:", st.size(), "type:", type(st).__name__)
print("element_size:", base.element_size(), "itemsize:", base.itemsize, "nbytes:", base.nbytes)


def share(name, t):
    same = t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    print(f"{name:26s} shape={tuple(t.shape)} stride={t.stride()} off={t.storage_offset()} "
          f"shares={same} contig={t.is_contiguous()} view={t._is_view()}")


m = base.view(4, 6)
share("view(4, 6)", m)
share("reshape(2, 3, 4)", base.reshape(2, 3, 4))
share("m.t()", m.t())
share("m.T", m.T)
share("m.mT", m.mT)
share("m.transpose(0, 1)", m.transpose(0, 1))
share("m.narrow(1, 2, 3)", m.narrow(1, 2, 3))
share("m[1:3, ::2]", m[1:3, ::2])
share("m[2]", m[2])
share("m[:, 4]", m[:, 4])
share("m.select(1, 5)", m.select(1, 5))
share("m.diagonal()", m.diagonal())
share("m.diagonal(offset=2)", m.diagonal(offset=2))
share("base.unflatten(0, (2, 12))", base.unflatten(0, (2, 12)))
share("m[None].expand(3, 4, 6)", m[None].expand(3, 4, 6))
share("m[:, :1].expand(4, 5)", m[:, :1].expand(4, 5))
share("m.t().reshape(24)", m.t().reshape(24))
share("m.t().contiguous()", m.t().contiguous())
share("m.contiguous()", m.contiguous())
share("m.clone()", m.clone())
share("m[:, 1:].flatten()", m[:, 1:].flatten())
share("m[1:].flatten()", m[1:].flatten())
share("m.unsqueeze(1)", m.unsqueeze(1))
share("m.view(-1, 2, 3)", m.view(-1, 2, 3))
share("m.movedim(0, 1)", m.movedim(0, 1))
share("m.detach()", m.detach())
share("m.view(torch.int32)", m.view(torch.int32))
share("m.as_strided((2, 2), (6, 1), 7)", m.as_strided((2, 2), (6, 1), 7))

print("reshape returns view when it can:", m.reshape(6, 4)._base is base)
print("m._base is base:", m._base is base, "base._base:", base._base)
print("t of view base:", m.t()._base is base)
print("detach base:", m.detach()._base)

# writing through views
m.t()[0, 1] = -1.0
m.narrow(0, 3, 1).fill_(100.0)
m.diagonal().mul_(10)
print("after writes:\n", m)
print("base[6], base[18:]:", base[6].item(), base[18:].tolist())

# detach shares memory; changes are visible both ways
w = torch.randn(3, requires_grad=True)
d = w.detach()
print("detach same ptr:", d.data_ptr() == w.data_ptr(), "requires_grad:", d.requires_grad)
with torch.no_grad():
    d.add_(1.0)
print("w after detach add:", w)
print("w._version:", w._version, "d._version:", d._version)

# dtypes: sizes
for dt in [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
           torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]:
    t = torch.zeros(3, 5, dtype=dt)
    print(f"{str(dt):16s} element_size={t.element_size()} itemsize={t.itemsize} nbytes={t.nbytes} "
          f"storage={t.untyped_storage().nbytes()}")

# views do not change storage nbytes; nbytes is numel * itemsize
print("slice nbytes:", m[1:3].nbytes, "storage nbytes:", m[1:3].untyped_storage().nbytes())
print("expand nbytes:", m[:1].expand(100, 6).nbytes, "storage:", m[:1].expand(100, 6).untyped_storage().nbytes())

# complex views
z = torch.randn(3, dtype=torch.complex64)
r = torch.view_as_real(z)
print("view_as_real:", tuple(r.shape), r.stride(), "shares:", r.data_ptr() == z.data_ptr())
print("z.real stride:", z.real.stride(), "z.imag offset:", z.imag.storage_offset())
print("imag ptr - real ptr:", z.imag.data_ptr() - z.real.data_ptr())
z.imag.zero_()
print("z after imag.zero_():", z)
back = torch.view_as_complex(r)
print("view_as_complex shares:", back.data_ptr() == z.data_ptr())

# untyped storage access
s = torch.tensor([1, 2, 3], dtype=torch.int16).untyped_storage()
print("int16 storage bytes:", list(s), "nbytes:", s.nbytes())
print("element_size of storage:", s.element_size())
u8 = torch.tensor([1.0], dtype=torch.float32).view(torch.uint8)
print("float 1.0 as bytes:", u8.tolist())
print("int32 view of float:", torch.tensor([1.0, -2.0]).view(torch.int32).tolist())
