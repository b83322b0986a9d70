"""Printing and inspecting float16/bfloat16 tensors, as debugging mixed-precision code does: reprs at default
and custom print options (precision, sci_mode, threshold/edgeitems summarization, linewidth), integer-valued,
huge, tiny, inf/nan and mixed-magnitude half tensors, 0-dim and empty ones, grad_fn and requires_grad in reprs,
complex32, f-string formatting, .item()/.tolist() types, numpy round trips (and bfloat16's refusal), and the
dtype objects' own attributes."""

import numpy as np
import torch

torch.manual_seed(0)

base = torch.tensor([0.1, 1.0, 2.5, -3.75, 1000.0, 1 / 3])
print(base.half())
print(base.bfloat16())
print(torch.arange(6, dtype=torch.float16))
print(torch.arange(6, dtype=torch.bfloat16).reshape(2, 3))
print(torch.tensor([65504.0, -65504.0, 1e-4, 6e-8], dtype=torch.float16))
print(torch.tensor([3e38, 1e-38, 1.0], dtype=torch.bfloat16))
print(torch.tensor([float("inf"), float("-inf"), float("nan"), 0.5], dtype=torch.float16))
print(torch.tensor([float("nan"), 1.0, 100.0], dtype=torch.bfloat16))
print(torch.tensor([1e-5, 1.0, 1e5], dtype=torch.bfloat16))
print(torch.tensor([123456.0, 0.5], dtype=torch.bfloat16))
print(torch.tensor(2.5, dtype=torch.float16), torch.tensor(-0.0, dtype=torch.bfloat16))
print(torch.empty(0, dtype=torch.float16), torch.empty(2, 0, dtype=torch.bfloat16))
print(repr(torch.ones(2, dtype=torch.float16, requires_grad=True)))
w = torch.randn(3, dtype=torch.bfloat16, requires_grad=True)
print(w * 2)
print((w * 2).sum())

torch.set_printoptions(precision=2)
print("precision=2:", torch.randn(4).half(), torch.randn(4).bfloat16())
torch.set_printoptions(precision=6)
print("precision=6:", torch.tensor([1 / 3, 2 / 3], dtype=torch.float16), torch.tensor([1 / 3], dtype=torch.bfloat16))
torch.set_printoptions(sci_mode=True, precision=3)
print("sci:", torch.tensor([0.5, 1.5, 250.0], dtype=torch.float16), torch.tensor([2.0], dtype=torch.bfloat16))
torch.set_printoptions(sci_mode=False, precision=4)
print("no sci:", torch.tensor([1e-4, 1e4], dtype=torch.float16))
torch.set_printoptions(threshold=10, edgeitems=2)
print(torch.arange(30, dtype=torch.bfloat16))
print(torch.randn(6, 6).half())
torch.set_printoptions(profile="default")
torch.set_printoptions(linewidth=40)
print(torch.linspace(-1, 1, 9).bfloat16())
torch.set_printoptions(profile="default")

c = torch.tensor([1 + 2j, -0.5j], dtype=torch.complex32)
print(c, c.dtype, c.real.dtype, torch.view_as_real(c).dtype)

t = torch.tensor(1 / 3, dtype=torch.float16)
b = torch.tensor(1 / 3, dtype=torch.bfloat16)
print(f"{t:.5f} {b:.5f} {t.item()!r} {b.item()!r} {type(t.item()).__name__}")
print(f"{float(t):.6f} {int(torch.tensor(7.9, dtype=torch.bfloat16))}")
print(torch.tensor([0.1, 0.2], dtype=torch.float16).tolist(), torch.tensor([0.1, 0.2], dtype=torch.bfloat16).tolist())
print(str(t), repr(b))

a = torch.tensor([0.1, 2.0], dtype=torch.float16).numpy()
print("numpy", a.dtype, a, torch.from_numpy(np.array([1.5], dtype=np.float16)))
try:
    torch.tensor([1.0], dtype=torch.bfloat16).numpy()
except TypeError as e:
    print("TypeError:", e)
print("via float:", torch.tensor([1.0, 0.1], dtype=torch.bfloat16).float().numpy())
print("as_tensor of float16 array:", torch.as_tensor(np.float16([3.0, 0.25])).dtype)

for dt in (torch.float16, torch.bfloat16, torch.complex32):
    print(dt, repr(dt), dt.is_floating_point, dt.is_complex, dt.is_signed, dt.itemsize)
print(torch.float16 == torch.half, torch.bfloat16 is torch.bfloat16, torch.complex32 == torch.chalf)
print(torch.float16.to_complex(), torch.complex32.to_real(), torch.bfloat16.to_real())
h = torch.zeros(3, dtype=torch.half)
print(h.type(), h.element_size(), h.nbytes, h.is_floating_point(), torch.zeros(2).bfloat16().type())
print(torch.HalfTensor([1, 2]), torch.BFloat16Tensor([3]) if hasattr(torch, "BFloat16Tensor") else "no")
