"""type promotion rules, accumulation with duplicate indices, and einsum forms as tutorials use them."""

import torch

i = torch.tensor([1, 2, 3])
f16 = torch.tensor([1.0], dtype=torch.float16)
u8 = torch.tensor([200], dtype=torch.uint8)
i8 = torch.tensor([-3], dtype=torch.int8)
b = torch.tensor([True, False, True])
print("result_type", torch.result_type(i, 1.5), torch.result_type(i, f16), torch.result_type(u8, i8))
print("result_type scalars", torch.result_type(2, 3.0), torch.result_type(f16, 2.0), torch.result_type(b, 2))
print(
    "result_type 0-dim",
    torch.result_type(u8, torch.tensor(5)),
    torch.result_type(f16, torch.tensor(1.0, dtype=torch.float64)),
)
print("promote_types", torch.promote_types(torch.uint8, torch.int8), torch.promote_types(torch.bfloat16, torch.float16))
print("promote more", torch.promote_types(torch.int32, torch.float16), torch.promote_types(torch.bool, torch.uint8))
print(
    "promote complex",
    torch.promote_types(torch.complex64, torch.float64),
    torch.promote_types(torch.int64, torch.complex64),
)
print("can_cast", torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float32))
print(
    "can_cast more",
    torch.can_cast(torch.int64, torch.uint8),
    torch.can_cast(torch.bool, torch.int8),
    torch.can_cast(torch.complex64, torch.float64),
)
print("int + float scalar", i + 1.5, (i * 2.0).dtype, (i / 2), (i // 2).dtype)
print("uint8 + int8", u8 + i8, (u8 + i8).dtype)
print("bool arithmetic", b + b, b.sum(), b * 3, (b * 1.5).dtype, b.float().mean())
print("bool sum dtype", b.sum().dtype, b.cumsum(0), b.prod())
try:
    print(b - b)
except RuntimeError as e:
    print("bool sub:", e)
try:
    print(-b)
except RuntimeError as e:
    print("bool neg:", e)
x = torch.tensor([-7, 7])
print("int division", x / 2, x // 2, torch.div(x, 2, rounding_mode="trunc"), x % 3)
print("true_divide int", torch.true_divide(x, 2).dtype, (x.float() // 2))
print("int pow", x**2, (x**2).dtype, (x**0.5), torch.tensor([2]) ** torch.tensor([3]))
try:
    torch.tensor([2]) ** -1
except RuntimeError as e:
    print("int neg pow:", e)
try:
    i.add_(1.5)
except RuntimeError as e:
    print("inplace cast:", e)
y = torch.zeros(3)
y += i
print("float += int", y, y.dtype)
torch.set_default_dtype(torch.float64)
print("default f64", torch.tensor(1.5).dtype, torch.zeros(2).dtype, torch.arange(3.0).dtype, torch.arange(3).dtype)
print("default f64 promo", (torch.tensor([1]) * 1.5).dtype, torch.tensor([1j]).dtype, torch.get_default_dtype())
print(
    "linspace",
    torch.linspace(0, 1, 3).dtype,
    torch.rand(2).dtype,
    torch.full((1,), 2.0).dtype,
    torch.full((1,), 2).dtype,
)
torch.set_default_dtype(torch.float32)
print("default back", torch.tensor(1.5).dtype, torch.tensor([1j]).dtype, torch.tensor(True).dtype)
cond = torch.tensor([True, False, True, False])
a = torch.arange(4.0)
print("where", torch.where(cond, a, -a), torch.where(cond, a, 0), torch.where(cond, 1, 0).dtype)
print("where int/float", torch.where(cond, torch.arange(4), 0.5).dtype, torch.where(a > 1))
print("masked_fill", a.masked_fill(cond, -1.0), a.masked_fill(torch.tensor(True), 9.0))
print("masked_select", a.masked_select(cond), a[cond], a[~cond].sum())
idx = torch.tensor([0, 1, 0, 0, 2])
src = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
t = torch.zeros(3)
t.index_put_((idx,), src, accumulate=True)
print("index_put accumulate", t)
t2 = torch.zeros(3)
t2.index_put_((torch.tensor([1, 1]),), torch.tensor([5.0, 5.0]), accumulate=False)
print("index_put same values", t2)
print("scatter_add", torch.zeros(3).scatter_add_(0, idx, src))
print("index_add", torch.zeros(3).index_add_(0, idx, src), torch.ones(3).index_add(0, idx, src, alpha=2))
print("scatter_reduce sum", torch.zeros(3).scatter_reduce(0, idx, src, reduce="sum"))
print("scatter_reduce amax", torch.zeros(3).scatter_reduce(0, idx, src, reduce="amax", include_self=False))
print("scatter_reduce mean", torch.zeros(3).scatter_reduce(0, idx, src, reduce="mean"))
print("bincount", torch.bincount(idx), torch.bincount(idx, weights=src), torch.bincount(idx, minlength=5))
m2 = torch.zeros(2, 3)
m2.scatter_add_(1, torch.tensor([[0, 0, 2], [1, 1, 1]]), torch.ones(2, 3))
print("scatter_add 2d", m2)
print("scatter value", torch.zeros(2, 4).scatter_(1, torch.tensor([[1], [3]]), 1.0))
A = torch.arange(6.0).view(2, 3)
B = torch.arange(12.0).view(3, 4)
print("einsum mm", torch.einsum("ij,jk->ik", A, B))
S = torch.arange(9.0).view(3, 3)
print("einsum trace", torch.einsum("ii", S), torch.einsum("ii->i", S), torch.einsum("ij->ji", A).shape)
bA = torch.arange(24.0).view(2, 3, 4)
bB = torch.arange(16.0).view(2, 4, 2)
print("einsum batch", torch.einsum("bij,bjk->bik", bA, bB))
print("einsum ellipsis", torch.einsum("...ij->...ji", bA).shape, torch.einsum("b...,b...->b", bA, bA))
u = torch.tensor([1.0, 2.0])
v = torch.tensor([3.0, 4.0, 5.0])
print("einsum outer", torch.einsum("i,j->ij", u, v), torch.einsum("i,i->", u, u))
print("einsum sum", torch.einsum("ijk->", bA), torch.einsum("ijk->j", bA))
print("einsum list form", torch.einsum("ij,jk", [A, B]).shape, torch.einsum(A, [0, 1], B, [1, 2], [0, 2]).sum())
print("einsum bilinear", torch.einsum("bn,anm,bm->ba", torch.ones(2, 3), torch.ones(4, 3, 5), torch.ones(2, 5)))
try:
    torch.einsum("ij,jk->ik", A, A)
except RuntimeError as e:
    print("einsum error:", e)
try:
    torch.einsum("ij->ik", A)
except RuntimeError as e:
    print("einsum out error:", e)
try:
    torch.zeros(3).index_add_(0, torch.tensor([5]), torch.ones(1))
except IndexError as e:
    print("index_add 1-d:", e)
try:
    torch.zeros(3, 2).index_add_(1, torch.tensor([5]), torch.ones(3, 1))
except RuntimeError as e:
    print("index_add 2-d:", e)
try:
    torch.zeros(3).index_select(0, torch.tensor([3]))
except IndexError as e:
    print("index_select:", e)
