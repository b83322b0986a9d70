"""GitHub issues about how tensors print: inf/nan mixed with very large and very small numbers, when the
sci mode switches on, set_printoptions (precision, sci_mode, threshold, edgeitems, linewidth, profile),
half/bfloat16/float64 values, integer widths, complex parts, summarized reprs and suffixes."""

import numpy as np
import torch

nan, inf = float("nan"), float("inf")
cases = [
    [inf, -inf, nan],
    [1.0, inf],
    [1e10, inf, nan],
    [1e-10, nan, 1.0],
    [1e-10, inf],
    [0.0, -0.0, nan],
    [123456789.0, 0.5],
    [1e15, 1.0],
    [99999.0, 0.001],
    [100000.0, 0.001],
    [1e-4, 10.0],
    [9.9e-5, 10.0],
    [1.0, 2.0, 1000.5],
    [-1e-3, 1e3],
    [3.0e38, -3.0e38],
    [1.4e-45, 1.0],
    [0.1, 0.2, 0.3],
    [1.0, 10.0, 100.0, 1000.0],
    [12345.678, -0.5],
    [5e-324, 1.0],
]
for c in cases:
    print(torch.tensor(c))
for c in cases[:6] + [[1e300, -1e-300]]:
    print(torch.tensor(c, dtype=torch.float64))
print(torch.tensor([[1e-8, 1.0], [inf, nan]]))
print(torch.tensor([[1.0, -inf], [1e5, 2.5]]))
print(torch.tensor([65504.0, 6e-5, 1.0], dtype=torch.float16))
print(torch.tensor([70000.0], dtype=torch.float16), torch.tensor([1e-8], dtype=torch.float16))
print(torch.tensor([3.14159, 1e20, nan], dtype=torch.bfloat16))
print(torch.tensor([1.0 + 1e-8, 1.0], dtype=torch.float64))
print(torch.tensor([1 + 2j, inf + 1j, complex(nan, -inf)]))
print(torch.tensor([1e-10 + 1e10j, 0.5 - 0.5j]))
print(torch.tensor([-(2 ** 31), 2 ** 31 - 1], dtype=torch.int32), torch.tensor([-5, 12345678901]))
print(torch.tensor([255, 0], dtype=torch.uint8), torch.tensor([-128, 127], dtype=torch.int8))
print(torch.tensor(nan), torch.tensor(-inf), torch.tensor(-0.0), torch.tensor(1e-30), torch.tensor(12345.0))

# print options
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.5, 1e-3]), torch.tensor([1e6, 1.0]))
torch.set_printoptions(precision=6)
print(torch.tensor([1.23456789, 1e-3]))
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-10, 1e10, nan]), torch.tensor([123456789.0]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.0, 2.5]), torch.tensor([inf, 0.0]))
torch.set_printoptions(profile="default")
print(torch.tensor([1.0, 2.5]))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10.0))
print(torch.arange(24).reshape(4, 6))
print(torch.arange(10.0).reshape(2, 5) / 3)
torch.set_printoptions(profile="default")
print(torch.arange(1001.0))
torch.set_printoptions(linewidth=40)
print(torch.arange(20.0) * 1.5)
torch.set_printoptions(profile="default")
torch.set_printoptions(profile="short")
print(torch.tensor([1.23456, 1e-5]))
torch.set_printoptions(profile="full")
print(torch.arange(1002)[-5:])
torch.set_printoptions(profile="default")

# suffixes and nested
w = torch.tensor([1.5, -2.0], requires_grad=True)
print(w, w * 2, (w * 2).sum())
print(torch.tensor([1.0, 2.0], dtype=torch.float64) * 1e-9)
print(torch.zeros(2, 0, 3), torch.ones(0, dtype=torch.float16))
print(torch.tensor([[[1.0, nan]], [[inf, 2.0]]]))
print(repr(torch.tensor([1, 2])), str(torch.tensor(3.0)), f"{torch.tensor(2.5):.3f}")
print(torch.tensor([1.0, 2.0]).__format__(""), format(torch.tensor(0.1234), ".2f"))
print(np.float32(torch.tensor(1e-7).item()), torch.tensor(1e-7).item())
print(torch.tensor([1.0, 2.0]).numpy(), torch.tensor(1.0).tolist(), torch.tensor([nan]).tolist())
try:
    print(format(torch.tensor([1.0, 2.0]), ".2f"))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.set_printoptions(profile="tiny")
except Exception as e:
    print(type(e).__name__, e)
torch.set_printoptions(profile="default")
