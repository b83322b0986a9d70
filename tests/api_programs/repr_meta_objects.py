"""The small objects around tensors as users print and compare them: every dtype's repr and flags, devices
(and the errors for malformed strings), layouts and memory formats, torch.Size arithmetic and its errors,
tensor metadata, finfo/iinfo reprs and fields (and their TypeErrors), storages, and meta tensors."""

import torch

dts = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex32, torch.complex64,
       torch.complex128, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool, torch.uint16,
       torch.uint32, torch.uint64, torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz,
       torch.float8_e5m2fnuz, torch.float8_e8m0fnu]
for d in dts:
    print(f"{d!s:<22}{d!r:<22}", d.is_floating_point, d.is_complex, d.is_signed, d.itemsize)
print(torch.float32 == torch.float, torch.float32 is torch.float, hash(torch.float32) == hash(torch.float))
print(sorted([str(torch.int64), str(torch.bool)]), {torch.float32: 1}[torch.float], torch.half in (torch.float16,))
print(torch.float, torch.double, torch.half, torch.long, torch.int, torch.short)
print(torch.cfloat, torch.cdouble, torch.chalf)
print(torch.complex64.to_real(), torch.float32.to_complex(), torch.float16.to_complex(), torch.int32.to_real())
print(torch.promote_types(torch.int32, torch.float16), torch.result_type(torch.tensor(1), 1.0))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float32), torch.get_default_dtype())

for dev in ["cpu", "cuda", "cuda:1", "meta", "mps", "xpu:0", torch.device("cpu")]:
    d = torch.device(dev)
    print(d, repr(d), d.type, d.index, str(d) == dev if isinstance(dev, str) else None)
for bad in ["gpu", "cuda:-1", "cpu:x", "cuda:0:1", ""]:
    try:
        torch.device(bad)
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
print(torch.device("cuda", 2), repr(torch.device("cpu", 0)), torch.device("cpu") == torch.device("cpu", 0))
print(torch.device(type="cpu"), f"{torch.device('cpu')}", torch.zeros(1).device, repr(torch.zeros(1).device))

print(torch.strided, torch.sparse_coo, torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc)
print(torch.contiguous_format, torch.channels_last, torch.channels_last_3d, torch.preserve_format)
print(repr(torch.contiguous_format), str(torch.channels_last), torch.channels_last == torch.channels_last)
print(type(torch.strided).__name__, type(torch.float32).__name__, type(torch.device("cpu")).__name__,
      type(torch.channels_last).__name__)
print(torch.eye(2).to_sparse().layout, torch.eye(2).layout == torch.strided, torch.eye(2).layout is torch.sparse_csc)

s = torch.Size([2, 3, 4])
print(s, repr(s), str(s), s[0], s[-1], s[1:], s[::-1], len(s), s.numel(), s.count(3), s.index(4))
print(torch.Size(), torch.Size([0]), torch.Size([1, 0, 3]).numel(), torch.Size([5]) == [5], torch.Size([5]) == (5,))
print(s + (5,), (1,) + s, s * 2, 2 * s)
print(type(s + (5,)).__name__, type((1,) + s).__name__, type(s * 2).__name__, type(s[1:]).__name__)
print(hash(torch.Size([2, 3])) == hash((2, 3)), tuple(torch.Size([1])), torch.Size([torch.tensor(3), 4]))
print(repr(torch.Size([2]) + torch.Size([3])), list(s), dict(zip("abc", s)), f"{s}", "%s" % (s,))  # noqa: UP031
try:
    torch.Size([2.5])
except TypeError as e:
    print("TypeError", e)

x = torch.zeros(2, 3, 4, 5)
cl = x.to(memory_format=torch.channels_last)
print(x.shape, x.size(), x.size(-1), torch.zeros(()).shape, torch.zeros(0, 4).shape, x.stride(), cl.stride())
print(x.is_contiguous(), cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last))
print(x.dtype, x.device, x.layout, x.requires_grad, x.is_leaf, x.ndim, x.dim(), x.nelement(), x.element_size())
print(x.storage_offset(), x[1:].storage_offset(), x.is_cuda, x.is_sparse, x.is_quantized, x.is_meta, x.is_complex())

for f in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2]:
    print(torch.finfo(f))
print(torch.finfo(torch.complex64), torch.finfo(torch.complex128).dtype)
print(torch.finfo(), torch.finfo(torch.float32) == torch.finfo(torch.float32))
for d in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64]:
    print(torch.iinfo(d), torch.iinfo(d).min, torch.iinfo(d).max, torch.iinfo(d).bits)
print(torch.iinfo(torch.int32).dtype, type(torch.iinfo(torch.int32).dtype).__name__)
f = torch.finfo(torch.bfloat16)
print(f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype, type(f.eps).__name__)
print(torch.finfo(torch.float16).eps, torch.finfo(torch.float32).eps, torch.finfo(torch.float64).eps)
for bad in [torch.int32, torch.bool]:
    try:
        torch.finfo(bad)
    except TypeError as e:
        print("TypeError", e)
for bad in [torch.float32, torch.bool]:
    try:
        torch.iinfo(bad)
    except TypeError as e:
        print("TypeError", e)

st = torch.tensor([1.0, 2.0]).untyped_storage()
print(st.nbytes(), type(st).__name__, st.device, len(st))
print(torch.empty(2, 3, device="meta"), torch.empty(2, dtype=torch.int32, device="meta"))
print(torch.empty(0, device="meta"), torch.empty(3, device="meta", requires_grad=True) * 2)
print(torch.empty(4, 4, device="meta").shape, torch.empty(4, 4, device="meta").t().stride())
