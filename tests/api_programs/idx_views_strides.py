"""Views against copies as memory-layout code inspects them: view/reshape/flatten/transpose/permute/contiguous/
expand/unfold/as_strided/diagonal/narrow/unflatten/movedim/squeeze, each with its shape, stride, storage offset,
data_ptr distance from the base, is_contiguous (both memory formats), untyped_storage().size() and whether it
shares the base's storage; reshape's view-or-copy rule, contiguous() of size-1 and expanded dims, channels_last,
clone's preserve_format, and the view errors for incompatible strides."""

import torch

torch.set_printoptions(precision=4)

x = torch.arange(24.0).reshape(2, 3, 4)
esize = x.element_size()


def lay(name, t, base=x):
    shares = t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    dist = (t.data_ptr() - base.data_ptr()) // t.element_size() if shares else None
    print(f"{name}: shape={tuple(t.shape)} stride={t.stride()} off={t.storage_offset()} dist={dist} "
          f"contig={t.is_contiguous()} nbytes={t.untyped_storage().size()} shares={shares}")


lay("x", x)
lay("view(6, 4)", x.view(6, 4))
lay("view(-1)", x.view(-1))
lay("flatten(1)", x.flatten(1))
lay("transpose(0, 2)", x.transpose(0, 2))
lay("permute(1, 2, 0)", x.permute(1, 2, 0))
lay("mT", x.mT)
lay("x[:, 1:]", x[:, 1:])
lay("x[1, :, ::2]", x[1, :, ::2])
lay("narrow(2, 1, 2)", x.narrow(2, 1, 2))
lay("select(1, -1)", x.select(1, -1))
lay("diagonal(dim1=1, dim2=2)", x.diagonal(dim1=1, dim2=2))
lay("diagonal(offset=1)", x[0].diagonal(offset=1))
lay("unflatten(2, (2, 2))", x.unflatten(2, (2, 2)))
lay("movedim(0, -1)", x.movedim(0, -1))
lay("unsqueeze(1)", x.unsqueeze(1))
lay("x[:, :1].squeeze(1)", x[:, :1].squeeze(1))
lay("x[0, :1].expand(5, 4)", x[0, :1].expand(5, 4))
lay("expand new dims", x[0, 0, :1].expand(2, 3, 4))
lay("unfold(2, 2, 1)", x.unfold(2, 2, 1))
lay("unfold(1, 2, 2)", x.unfold(1, 2, 2))
lay("as_strided((3, 3), (1, 4), 2)", x.as_strided((3, 3), (1, 4), 2))
lay("as_strided overlapping", x.as_strided((4, 3), (2, 1)))
lay("real view of float", x.view(torch.int32))
lay("view as bytes", x[0, 0].view(torch.uint8))
lay("chunk[1]", x.chunk(2, dim=2)[1])
lay("split[2]", x.split([1, 1, 2], dim=2)[2])
lay("unbind(1)[2]", x.unbind(1)[2])
lay("T of 2-d", x[0].T)

# reshape: a view where strides allow, a copy otherwise
t = x.transpose(1, 2)
r1 = t.reshape(2, 12)
r2 = x.permute(0, 2, 1).reshape(2, 2, 2, 3)
r3 = x[:, :, 1:3].reshape(2, 6)
r4 = x[:, 1:].reshape(4, 4)
print("transposed reshape copies:", r1.data_ptr() != x.data_ptr(), r1.is_contiguous())
lay("split-dim reshape of permuted", r2)
lay("reshape of sliced last dim", r3)
lay("reshape of sliced middle dim", r4)
lay("contiguous of transposed", t.contiguous())
print("contiguous of contiguous is self:", x.contiguous() is x)
print("flatten of contiguous shares:", x.flatten().data_ptr() == x.data_ptr())

# is_contiguous ignores strides of size-1 dims; expanded dims have stride 0
o = torch.zeros(3, 1, 4)
odd = o.as_strided((3, 1, 4), (4, 99, 1))
print("size-1 dim odd stride contiguous:", odd.is_contiguous(), odd.stride())
e = torch.zeros(3, 1).expand(3, 4)
print("expanded:", e.stride(), e.is_contiguous(), e.contiguous().stride())
print("empty tensor contiguous:", torch.zeros(0, 3).t().is_contiguous(), torch.zeros(2, 0).stride())
print("0-dim:", torch.tensor(1.0).stride(), torch.tensor(1.0).is_contiguous())

# channels_last
img = torch.arange(2 * 3 * 2 * 2.0).reshape(2, 3, 2, 2)
cl = img.contiguous(memory_format=torch.channels_last)
print("channels_last strides:", cl.stride(), cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last))
print("same values:", torch.equal(cl, img))
print("clone preserves:", cl.clone().stride(), "contiguous_format clone:",
      cl.clone(memory_format=torch.contiguous_format).stride())
print("empty_like preserves:", torch.empty_like(cl).stride(), "zeros_like:", torch.zeros_like(cl).stride())
print("elementwise keeps layout:", (cl * 2).stride(), (cl + img).stride())
print("permute view of cl:", cl.permute(0, 2, 3, 1).is_contiguous())
print("(N,C,1,1) both:", torch.zeros(2, 3, 1, 1).is_contiguous(memory_format=torch.channels_last))

# storage sizes
y = torch.zeros(10, dtype=torch.float64)
print("storage nbytes:", y.untyped_storage().size(), y[2:5].untyped_storage().size(), y[2:5].nbytes)
print("int16 storage:", torch.zeros(3, 5, dtype=torch.int16).untyped_storage().size())
print("element sizes:", [torch.zeros(1, dtype=d).element_size() for d in (torch.bool, torch.float16, torch.int32,
                                                                           torch.complex64, torch.complex128)])
print("expanded storage stays small:", torch.zeros(1).expand(1000).untyped_storage().size())
print("clone of view owns exact size:", x[:, 1].clone().untyped_storage().size())

# view errors
attempt_shapes = [((4, 6), x.transpose(0, 1)), ((-1,), x[:, :, ::2]), ((2, -1, 5), x), ((3, -1, -1), x)]
for shape, src in attempt_shapes:
    try:
        src.view(*shape)
        print(f"view{shape}: ok")
    except RuntimeError as err:
        print(f"view{shape}: RuntimeError: {err}")
for bad in (lambda: x.view(torch.complex128), lambda: x[:, :, :3].view(torch.float64),
            lambda: x.expand(3, 3, 4), lambda: x.unfold(2, 5, 1), lambda: x.as_strided((10,), (1,), 20),
            lambda: x.t()):
    try:
        bad()
        print("ok")
    except RuntimeError as err:
        print(f"RuntimeError: {err}")
