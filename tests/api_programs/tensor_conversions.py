"""numpy interop, copies vs shared memory, conversions and the errors tutorials and StackOverflow answers cover."""

import numpy as np
import torch

arr = np.arange(6, dtype=np.float32).reshape(2, 3)
t = torch.from_numpy(arr)
arr[0, 0] = 42.0
print("from_numpy shares", t[0, 0].item(), t.dtype, t.is_contiguous())
t2 = torch.tensor(arr)
arr[0, 1] = -1.0
print("tensor copies", t2[0, 1].item(), torch.as_tensor(arr)[0, 1].item())
n = t.numpy()
n[1, 2] = 99.0
print("numpy shares", t[1, 2].item(), type(n).__name__, n.dtype)
print(
    "from_numpy int", torch.from_numpy(np.array([1, 2], dtype=np.int32)).dtype, torch.from_numpy(np.array([True])).dtype
)
print(
    "from numpy f64",
    torch.from_numpy(np.zeros(2)).dtype,
    torch.tensor(np.zeros(2)).dtype,
    torch.tensor([np.float32(1.5)]).dtype,
)
print(
    "transposed numpy",
    torch.from_numpy(np.arange(6).reshape(2, 3).T.copy()).stride(),
    torch.from_numpy(np.arange(6).reshape(2, 3).T).stride(),
)
w = torch.ones(2, requires_grad=True)
try:
    w.numpy()
except RuntimeError as e:
    print("numpy grad:", e)
print("detach numpy", w.detach().numpy(), w.numpy(force=True))
try:
    torch.tensor([1.0, 2.0]).item()
except RuntimeError as e:
    print("item:", e)
print(
    "item types",
    type(torch.tensor(3).item()).__name__,
    type(torch.tensor(3.5).item()).__name__,
    type(torch.tensor(True).item()).__name__,
)
print(
    "tolist",
    torch.arange(4).view(2, 2).tolist(),
    torch.tensor(2.5).tolist(),
    torch.tensor([1.5], dtype=torch.float16).tolist(),
)
print("int()/float()", int(torch.tensor([7.9])), float(torch.tensor(2)), bool(torch.tensor([0])))
try:
    bool(torch.tensor([1, 0]))
except RuntimeError as e:
    print("bool ambiguous:", e)
try:
    int(torch.tensor([1, 2]))
except (RuntimeError, TypeError, ValueError) as e:
    print("int multi:", type(e).__name__, e)
x = torch.tensor([1.7, -2.3, 3.5])
print("casts", x.int(), x.long(), x.to(torch.uint8), x.bool(), x.half(), x.double().dtype)
print("type strings", x.type(), x.int().type(), x.type(torch.int16).dtype, x.type("torch.DoubleTensor").dtype)
print("to variants", x.to(torch.float64).dtype, x.to("cpu").device, x.to(torch.zeros(1, dtype=torch.int8)).dtype)
print("to same returns self", x.to(torch.float32) is x, x.to(torch.float32, copy=True) is x, x.float() is x)
c = torch.zeros(2, 3)
c.copy_(torch.tensor([1, 2, 3]))
print("copy_ broadcast", c, c.dtype)
try:
    c.copy_(torch.ones(4))
except RuntimeError as e:
    print("copy_ error:", e)
print("clone detach", w.clone().requires_grad, w.detach().requires_grad, w.clone().grad_fn is not None)
try:
    w.add_(1)
except RuntimeError as e:
    print("leaf inplace:", e)
with torch.no_grad():
    w.add_(1)
print("no_grad inplace", w, w.is_leaf)
try:
    torch.cat([torch.ones(2, 3), torch.ones(3, 2)])
except RuntimeError as e:
    print("cat error:", e)
print(
    "cat promote",
    torch.cat([torch.ones(2, dtype=torch.int32), torch.ones(1)]).dtype,
    torch.cat([torch.zeros(0), torch.ones(2)]),
)
try:
    torch.stack([torch.ones(2), torch.ones(3)])
except RuntimeError as e:
    print("stack error:", e)
print("stack dims", torch.stack([torch.ones(2), torch.zeros(2)], dim=1), torch.hstack([torch.ones(1), torch.zeros(2)]))
print(
    "vstack", torch.vstack([torch.arange(2), torch.arange(2)]).shape, torch.dstack([torch.ones(2), torch.ones(2)]).shape
)
try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print("matmul error:", e)
try:
    torch.ones(3) + torch.ones(4)
except RuntimeError as e:
    print("broadcast error:", e)
try:
    torch.ones(2, dtype=torch.float32) @ torch.ones(2, dtype=torch.float64)
except RuntimeError as e:
    print("dtype mismatch:", e)
try:
    torch.tensor([[1, 2], [3]])
except ValueError as e:
    print("ragged:", e)
print(
    "legacy ctors",
    torch.Tensor([1, 2]).dtype,
    torch.Tensor(2, 3).shape,
    torch.LongTensor([1]).dtype,
    torch.FloatTensor(2).shape,
)
print(
    "new_*",
    x.new_zeros(2),
    x.new_ones(1, 2).dtype,
    x.new_tensor([1, 2]).dtype,
    x.new_full((2,), 7).dtype,
    x.new_empty(3).shape,
)
print("*_like", torch.zeros_like(x, dtype=torch.int64), torch.full_like(x, 2), torch.ones_like(torch.arange(3)).dtype)
print("arange dtypes", torch.arange(5).dtype, torch.arange(0, 1, 0.25), torch.arange(1, 4, dtype=torch.float64))
print("linspace logspace", torch.linspace(0, 1, 5), torch.logspace(0, 2, 3), torch.linspace(-1, 1, 1))
print("eye full", torch.eye(2, 3), torch.full((2,), True).dtype, torch.full((1,), 1j).dtype)
print(
    "complex parts", torch.complex(torch.tensor([1.0]), torch.tensor([2.0])), torch.view_as_real(torch.tensor([1 + 2j]))
)
print(
    "numel dim", torch.zeros(2, 3, 4).dim(), torch.zeros(2, 3, 4).ndim, torch.zeros(()).numel(), len(torch.zeros(5, 2))
)
print(
    "size args",
    torch.zeros(2, 3).size(1),
    torch.zeros(2, 3).size(-1),
    torch.zeros(2, 3).shape[0],
    list(torch.zeros(2, 3).shape),
)
print(
    "is_floating",
    x.is_floating_point(),
    x.int().is_floating_point(),
    torch.is_tensor(x),
    torch.is_complex(x),
    torch.numel(x),
)
