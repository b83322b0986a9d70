"""Index assignment as data-munging code writes it: setitem through basic and advanced keys with broadcast values,
values of another dtype (cast, truncated, wrapped), Python scalars and 0-dim tensors, bool masks with a value
per selected element, duplicate indices (last write wins for unique positions only), writes into non-contiguous
views, and the shape/dtype errors PyTorch raises for values that do not fit."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def attempt(name, fn):
    try:
        fn()
        print(f"{name}: ok")
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


# basic keys: broadcast rows, columns and scalars
a = torch.zeros(3, 4)
a[0] = torch.tensor([1.0, 2.0, 3.0, 4.0])
a[:, 1] = 7
a[1:, 2:] = torch.tensor([[5.0], [6.0]])
a[..., -1] = torch.tensor(-1.5)
a[2, ::2] += 10
print("a:\n", a)

# another dtype on the right: cast to the destination's dtype
b = torch.zeros(2, 5, dtype=torch.int32)
b[0] = torch.tensor([1.9, -1.9, 2.5, 300.7, -0.2])
b[1, 1:4] = torch.tensor([True, False, True])
print("int32 from float/bool:\n", b)
u = torch.zeros(4, dtype=torch.uint8)
u[:2] = torch.tensor([257, -1])
u[2] = 200
u[3] = torch.tensor(3.99, dtype=torch.float64)
print("uint8 wrap:", u)
h = torch.zeros(3, dtype=torch.float16)
h[:] = torch.tensor([1 / 3, 65519.0, 1e-8], dtype=torch.float64)
print("float16 rounding:", h, h.tolist())
bb = torch.zeros(4, dtype=torch.bool)
bb[1:3] = torch.tensor([0.5, 0.0])
bb[3] = 2
print("bool from float:", bb)
c = torch.zeros(3, dtype=torch.complex64)
c[1] = 2.5
c[2] = torch.tensor(1 + 2j)
print("complex:", c)

# advanced keys: value broadcast to the index result's shape
g = torch.zeros(4, 5)
g[[0, 2]] = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
g[[1, 3], [0, 4]] = torch.tensor([9.0, 8.0])
g[torch.tensor([[3], [1]]), torch.tensor([1, 2])] = torch.tensor([[-1.0], [-2.0]])
g[:, [3]] = torch.arange(4.0).reshape(4, 1)
print("g:\n", g)

# separated advanced indices put their dims first: value shape must match that
t = torch.zeros(2, 3, 4)
idx = torch.tensor([0, 1])
print("t[idx, :, idx] shape:", tuple(t[idx, :, idx].shape))
t[idx, :, idx] = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print("t after separated write:\n", t)
attempt("separated write with dims in place", lambda: t.__setitem__((idx, slice(None), idx), torch.ones(3, 2)))

# bool masks: scalar, one value per True, broadcast along trailing dims
m = torch.randn(3, 4)
print("m:\n", m)
m2 = m.clone()
m2[m2 < 0] = 0.0
print("relu by mask:\n", m2)
m3 = m.clone()
m3[m3 > 0] = torch.arange(1.0, 1.0 + int((m > 0).sum()))
print("numbered positives:\n", m3)
m4 = m.clone()
rowmask = m4[:, 0] > 0
m4[rowmask] = torch.tensor([10.0, 20.0, 30.0, 40.0])
print("rows with positive first col:\n", m4)
m5 = m.clone()
m5[:, torch.tensor([True, False, False, True])] = torch.tensor([[0.5, -0.5]])
print("columns by mask:\n", m5)
attempt("mask with wrong count", lambda: m.clone().__setitem__(m > 0, torch.ones(2)))

# duplicates: deterministic when the written values agree
d = torch.zeros(5)
d[torch.tensor([1, 1, 3])] = torch.tensor([4.0, 4.0, 2.0])
print("dup same values:", d)
d2 = torch.zeros(5, dtype=torch.long)
d2[[0, 2, 4]] = 1
d2[[4, 4]] = 7
print("dup scalar:", d2)

# writes into non-contiguous views reach the base
base = torch.arange(12.0).reshape(3, 4)
tv = base.t()
tv[1] = -1.0
tv[[0, 3], 2] = torch.tensor([100.0, 200.0])
print("base after writes through .t():\n", base)
sv = base[:, ::2]
sv[sv > 5] = 0.0
print("base after masked write through a stepped view:\n", base)
ex = torch.zeros(3, 1).expand(3, 4)
attempt("write to expanded", lambda: ex.__setitem__(0, 1.0))

# in-place op on an indexed copy does not reach the base
q = torch.arange(6.0)
q[[1, 2]].mul_(100)
print("advanced copy is a copy:", q)
q[1:3].mul_(100)
print("slice is a view:", q)

# errors for values that do not fit
z = torch.zeros(2, 3)
attempt("shape mismatch", lambda: z.__setitem__(0, torch.ones(4)))
attempt("too many dims", lambda: z.__setitem__(0, torch.ones(2, 3)))
attempt("leading ones ok", lambda: z.__setitem__(0, torch.ones(1, 1, 3)))
attempt("index out of range", lambda: z.__setitem__((0, 3), 1.0))
attempt("adv out of range", lambda: z.__setitem__(torch.tensor([0, 2]), 1.0))
attempt("float index", lambda: z.__setitem__(torch.tensor([0.0]), 1.0))
attempt("complex into float", lambda: z.__setitem__(0, torch.tensor([1j, 2j, 3j])))
attempt("list value", lambda: z.__setitem__(0, [1, 2, 3]))
attempt("int overflow into int8", lambda: torch.zeros(2, dtype=torch.int8).__setitem__(0, 300))
attempt("bool into int tensor", lambda: torch.zeros(2, dtype=torch.int64).__setitem__(0, True))
print("z:\n", z)
