"""torch.* creation-op docstring examples (arange, linspace, full, eye, tensor, frombuffer, polar, meshgrid...)."""

import array

import numpy as np
import torch

print("arange", torch.arange(5), torch.arange(1, 4), torch.arange(1, 2.5, 0.5))
print("arange dtypes", torch.arange(5).dtype, torch.arange(1.0, 4).dtype, torch.arange(0, 1, 0.25, dtype=torch.float64))
print("arange neg step", torch.arange(10, 0, -3), torch.arange(5, dtype=torch.int16).dtype)
print("range", torch.range(1, 4), torch.range(1, 4, 0.5).shape)
print("linspace", torch.linspace(3, 10, steps=5), torch.linspace(-10, 10, steps=5))
print("linspace start end", torch.linspace(start=-10, end=10, steps=1), torch.linspace(0, 1, 3, dtype=torch.float64))
print("linspace int", torch.linspace(0, 10, 4, dtype=torch.int64))
print("logspace", torch.logspace(start=-10, end=10, steps=5), torch.logspace(start=0.1, end=1.0, steps=5))
print("logspace base2", torch.logspace(start=0, end=3, steps=4, base=2))
print("full", torch.full((2, 3), 3.141592), torch.full((2,), 7).dtype, torch.full((2,), True).dtype)
print("full dtype", torch.full((1, 2), 2, dtype=torch.float16), torch.full((2,), 1.5).dtype)
print("eye", torch.eye(3), torch.eye(2, 3, dtype=torch.int32))
print("zeros ones", torch.zeros(2, 3), torch.ones(size=(1, 2), dtype=torch.int8), torch.zeros([2]).dtype)
x = torch.empty(2, 3)
print("like", torch.zeros_like(x), torch.ones_like(x, dtype=torch.int64), torch.full_like(x, 2.5).shape)
print("empty_like", torch.empty_like(x).shape, torch.empty_like(x, dtype=torch.float64).dtype)
r = torch.zeros(2, 2, requires_grad=True)
print(
    "requires_grad", r.requires_grad, r.is_leaf, torch.ones_like(r).requires_grad, torch.zeros(1, device="cpu").device
)
print("new_*", x.new_zeros(2).dtype, x.new_ones((1, 2)), x.new_full((2,), 4.0), x.new_tensor([1, 2]).dtype)
print("new_empty", x.new_empty((3,)).shape, torch.tensor([1, 2], dtype=torch.int8).new_tensor([3.7]).dtype)
print("tensor", torch.tensor([[0.1, 1.2], [2.2, 3.1], [4.9, 5.2]]), torch.tensor([0, 1]))
print("tensor kw", torch.tensor([[0.11111, 0.222222, 0.3333333]], dtype=torch.float64), torch.tensor(3.14159))
print("tensor empty", torch.tensor([]), torch.tensor([]).shape, torch.tensor([[]]).shape, torch.tensor(True).dtype)
a = np.array([1, 2, 3])
t = torch.as_tensor(a)
t[0] = -1
print("as_tensor shares", a, t.dtype, torch.as_tensor(a, dtype=torch.float32), torch.as_tensor([1.5, 2]).dtype)
b = torch.tensor([1.0, 2.0])
print("as_tensor same", torch.as_tensor(b) is b, torch.as_tensor(b, dtype=torch.float64) is b)
c = torch.asarray(a)
print("asarray", c, c.dtype, torch.asarray([1, 2.5]).dtype, torch.asarray(3).shape, torch.asarray(b, copy=True) is b)
print("asarray dtype", torch.asarray([[1, 2], [3, 4]], dtype=torch.float64), torch.asarray(np.float32(2.5)).dtype)
arr = array.array("i", [1, 2, 3])
fb = torch.frombuffer(arr, dtype=torch.int32)
print("frombuffer", fb, fb.dtype)
fb[0] = -1
print("frombuffer shared", arr[0])
print("frombuffer count", torch.frombuffer(bytearray(b"\x01\x02\x03\x04\x05"), dtype=torch.uint8, count=3, offset=2))
print("from_numpy", torch.from_numpy(np.array([[1.5, 2.5]], dtype=np.float32)), torch.from_numpy(np.arange(3)).dtype)
real = torch.tensor([1, 2], dtype=torch.float32)
imag = torch.tensor([3, 4], dtype=torch.float32)
z = torch.complex(real, imag)
print("complex", z, z.dtype, torch.complex(real.double(), imag.double()).dtype)
absv = torch.tensor([1, 2], dtype=torch.float64)
angle = torch.tensor([np.pi / 2, 5 * np.pi / 4], dtype=torch.float64)
p = torch.polar(absv, angle)
print("polar", torch.round(p.real, decimals=4), torch.round(p.imag, decimals=4), p.dtype)
inp = torch.tensor([-1.5, 0, 2.0])
print("heaviside", torch.heaviside(inp, torch.tensor([0.5])), torch.heaviside(inp, torch.tensor([1.2, -2.0, 3.5])))
print("tril_indices", torch.tril_indices(3, 3), torch.tril_indices(4, 3, -1), torch.tril_indices(4, 3, 1))
print("triu_indices", torch.triu_indices(3, 3), torch.triu_indices(4, 3, -1), torch.triu_indices(4, 3, 1).dtype)
print("cartesian_prod", torch.cartesian_prod(torch.tensor([1, 2, 3]), torch.tensor([4, 5])))
print("cartesian one", torch.cartesian_prod(torch.tensor([1, 2])))
cb = torch.tensor([1, 2, 3])
print("combinations", torch.combinations(cb), torch.combinations(cb, r=3))
print("combinations repl", torch.combinations(cb, with_replacement=True), torch.combinations(cb, r=0).shape)
mx, my = torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6, 7])
gx, gy = torch.meshgrid(mx, my, indexing="ij")
print("meshgrid ij", gx, gy)
gx, gy = torch.meshgrid(mx, my, indexing="xy")
print("meshgrid xy", gx.shape, gy)
print("meshgrid xy stack", torch.stack(torch.meshgrid(mx, my, indexing="xy"), dim=-1).reshape(-1, 2)[:5])
print("zeros int size", torch.zeros(3, dtype=torch.bool), torch.ones(0, 2).shape, torch.eye(0).shape)
print("empty_strided", torch.empty_strided((2, 3), (1, 2)).stride(), torch.empty((2, 3)).stride())
print("scalar_tensor", torch.scalar_tensor(3), torch.scalar_tensor(2, dtype=torch.int32))
for bad in [
    lambda: torch.arange(0, 10, 0),
    lambda: torch.arange(0, 10, -1),
    lambda: torch.linspace(0, 1, -1),
    lambda: torch.eye(-1),
    lambda: torch.full((2,), 1.5, dtype=torch.int64).sum(),
    lambda: torch.tensor([[1, 2], [3]]),
    lambda: torch.complex(real, imag.double()),
    lambda: torch.complex(real.long(), imag.long()),
    lambda: torch.polar(absv, angle.float()),
    lambda: torch.zeros(-1),
    lambda: torch.frombuffer(bytearray(b"\x01\x02\x03"), dtype=torch.int32),
    lambda: torch.meshgrid(mx, my, indexing="yx"),
    lambda: torch.tensor([1, 2]).new_full(3, 2),
    lambda: torch.heaviside(inp, torch.tensor([1, 2])),
    lambda: torch.combinations(torch.ones(2, 2)),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
