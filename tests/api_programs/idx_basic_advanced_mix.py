"""Basic and advanced indexing combined as array code writes it: int lists, LongTensors, bool masks, None,
Ellipsis, stepped and negative slices, advanced indices separated by a slice (their dims move to the front),
0-dim index tensors, and which results are views of the base (shapes, strides, offsets and values printed)."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)

x = torch.arange(120).reshape(2, 3, 4, 5)
f = torch.randn(4, 5, 6)


def info(name, t):
    view = t._base is not None
    print(f"{name}: shape={tuple(t.shape)} stride={t.stride()} off={t.storage_offset()} view={view}"
          f" sum={t.sum().item()}")


# --- basic indexing: views ---
info("x[1]", x[1])
info("x[-1, ::2]", x[-1, ::2])
info("x[..., 1:4:2]", x[..., 1:4:2])
info("x[:, None, 1, ..., -2]", x[:, None, 1, ..., -2])
info("x[None, ..., None]", x[None, ..., None])
info("x[1:, -2:, ::3]", x[1:, -2:, ::3])
info("x[:, :, 5:]", x[:, :, 5:])
info("x[0, 0, 0]", x[0, 0, 0])
print("x[..., -1][0]:", x[..., -1][0])
print("x[1, 2, 1::3]:", x[1, 2, 1::3])

# --- advanced indexing: copies ---
i = torch.tensor([1, 0, 1])
j = torch.tensor([[1], [0]])
info("x[[1, 0]]", x[[1, 0]])
info("x[:, [2, -1]]", x[:, [2, -1]])
info("x[:, i[:2], 1:3]", x[:, i[:2], 1:3])
info("x[i[:2], :, j]", x[i[:2], :, j])
info("x[0, :, [1, 3], [0, 4]]", x[0, :, [1, 3], [0, 4]])
info("x[:, 1, :, [0, 2]]", x[:, 1, :, [0, 2]])
info("x[..., i]", x[..., i])
info("x[None, :, i]", x[None, :, i])
info("x[j, i]", x[j, i])
info("x[i, None, i]", x[i, None, i])
print("x[[0, 1], [1, 2], [2, 3], [3, 4]]:", x[[0, 1], [1, 2], [2, 3], [3, 4]])
print("x[1, [0, 2], 3]:", x[1, [0, 2], 3])
print("x[1, :, 3][[0, 2]]:", x[1, :, 3][[0, 2]])

# 0-dim tensors as indices behave like ints (views), 1-element tensors like lists
k0 = torch.tensor(2)
k1 = torch.tensor([2])
info("x[:, k0]", x[:, k0])
info("x[:, k1]", x[:, k1])
print("int idx == tensor idx:", torch.equal(x[:, 2], x[:, k0]))

# --- bool masks ---
m = torch.tensor([True, False, True])
info("x[:, m]", x[:, m])
info("x[1, m, 0]", x[1, m, 0])
mm = x[0, :, :, 0] % 3 == 0
print("mm:", mm)
info("x[:, mm]", x[:, mm])
info("x[0][mm]", x[0][mm])
print("x[x > 110]:", x[x > 110])
print("x[0, 0][x[0, 0] % 2 == 1]:", x[0, 0][x[0, 0] % 2 == 1])
print("x[torch.tensor(True)].shape:", tuple(x[torch.tensor(True)].shape))
print("x[torch.tensor(False)].shape:", tuple(x[torch.tensor(False)].shape))
print("x[True, 1].shape:", tuple(x[True, 1].shape), "x[False].shape:", tuple(x[False].shape))
print("x[None, True, ..., None].shape:", tuple(x[None, True, ..., None].shape))

# --- float tensor, mixed ---
print("f[1, :, [0, 5]]:\n", f[1, :, [0, 5]])
print("f[[0, 3], 1:4:2, -1]:\n", f[[0, 3], 1:4:2, -1])
print("f[f[:, 0, 0] > 0, 0]:\n", f[f[:, 0, 0] > 0, 0])
print("f[..., torch.tensor([[0, 1], [4, 5]])].shape:", tuple(f[..., torch.tensor([[0, 1], [4, 5]])].shape))
rows = torch.tensor([0, 2, 3])
cols = torch.tensor([4, 0, 1])
print("diagonal pick f[rows, cols, 0]:", f[rows, cols, 0])
print("outer pick f[rows[:, None], cols, 0]:\n", f[rows[:, None], cols, 0])
print("ix_-style f[rows[:, None, None], cols[None, :, None], torch.arange(2)].shape:",
      tuple(f[rows[:, None, None], cols[None, :, None], torch.arange(2)].shape))

# indices of other integer dtypes
for dt in (torch.int32, torch.int64):
    print(dt, x[0, 0, torch.tensor([3, 1], dtype=dt), 0])
try:
    x[torch.tensor([0], dtype=torch.int8)]
except IndexError as e:
    print("int8 index:", e)
print("byte mask:", x[0, 0, 0][torch.tensor([1, 0, 1, 0, 1], dtype=torch.bool)])

# tuple vs list indexing
print("x[(1, 2)].shape:", tuple(x[(1, 2)].shape))
print("x[[1, 2]] on dim 1:", tuple(x[:, [1, 2]].shape))
print("x[[[1, 0]]].shape:", tuple(x[[[1, 0]]].shape))
print("x[(slice(None), 1)]:", tuple(x[(slice(None), 1)].shape))

# chained views keep one base
v = x[1][:, 1:][..., ::2]
print("chained base is x:", v._base is x, "off", v.storage_offset(), "stride", v.stride())
print("contiguous?", v.is_contiguous(), v.contiguous().is_contiguous())
print("v:\n", v)
