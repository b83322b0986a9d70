"""When PyTorch's printer switches to scientific notation and how wide it pads: the 1e-4 / 1e8 / ratio-1000
boundaries in float32, float64, float16 and bfloat16; integral floats; -0.0, nan and inf beside tiny and huge
values; float16/bfloat16 rounding shown at high precision; huge Python ints as floats; every integer dtype's
width; complex parts with their own formats; and gradients that span many magnitudes in a real model."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)
boundaries = [[1e-4, 1.0], [9.9999e-5, 1.0], [1e8, 1.0], [1.0001e8, 1.0], [999.9, 1.0], [1000.1, 1.0],
              [0.5, 500.1], [1e-4, 0.1], [1e38, 1e-38], [3e-39, 1.0], [1e-45, 0.0], [123456.0, 7.0]]
for v in boundaries:
    t = torch.tensor(v)
    print(t, t.double(), t.half(), t.bfloat16())
print(torch.tensor([65504.0, -65504.0, 6.1e-5, 5.96e-8], dtype=torch.float16))
print(torch.tensor([3.3895e38, 1e-38, 9.2e-41], dtype=torch.bfloat16))
print(torch.tensor([1.0, 1.0 + 2**-7, 1.0 + 2**-8], dtype=torch.bfloat16))
print(torch.tensor([0.1, 0.2, 0.3]).half() * 100)
third = torch.tensor([1 / 3])
print(third.half(), third.bfloat16(), third, third.double())
torch.set_printoptions(precision=10)
print(third.half(), third.bfloat16(), third, third.double())
print(torch.tensor([0.1]), torch.tensor([16777217.0]), torch.tensor([2**24 + 0.5], dtype=torch.float64))
torch.set_printoptions(precision=4)

print(torch.tensor([2.0**24, 2.0**24 + 2]), torch.tensor([1e15, 1.0], dtype=torch.float64))
print(torch.tensor([123456789012.0], dtype=torch.float64), torch.tensor([2**53, 2**53 + 1], dtype=torch.float64))
print(torch.tensor([2**63], dtype=torch.float64), torch.tensor([2**64, -(2**63) - 1], dtype=torch.float32))
print(torch.tensor([-1e-5, 1e-5]), torch.tensor([-0.0, 1e-5]), torch.tensor([-0.0, 0.0, float("nan")]))
print(torch.tensor([-0.0, 2.0]), torch.tensor([-0.0, 2.5]), torch.tensor([-0.0, 2.5]).half(), torch.tensor([[-0.0]]))
print(torch.tensor(-0.0).double(), torch.tensor([-0.0, -1e10]), torch.tensor([float("nan"), -float("nan")]))
print(torch.tensor([-float("inf"), 1.5]), torch.tensor([float("inf"), -0.0]), torch.tensor([float("inf")] * 2))
print(torch.tensor([1e-300, 1e300], dtype=torch.float64), torch.tensor([5e-324], dtype=torch.float64))
print(torch.tensor([1.7976931348623157e308], dtype=torch.float64), torch.tensor([1e-310, 1.0], dtype=torch.float64))
print(torch.tensor([0.00012345, 0.1]), torch.tensor([1234.5678, 0.9]), torch.tensor([12345.678, 0.9]))
print(torch.tensor([1.5, -2.5, 0.5]).round(), torch.tensor([0.5, 1.5, 2.5]).round(), torch.tensor([1e10]).round())
print(torch.tensor([9.99995, 0.1]), torch.tensor([0.99995]), torch.tensor([0.00005, 1.0]))
print(torch.tensor([-9.5e-5, 1.0]), torch.tensor([1.00005]), torch.tensor([99999.5, 0.5]))

# integers: width from the widest value, negative signs included
print(torch.tensor([0]), torch.tensor([-1]), torch.tensor([[1], [-10], [100]]), torch.tensor([2**62, -(2**62)]))
for dt in [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64]:
    print(dt, torch.tensor([0, 1, 100], dtype=dt), torch.tensor(7, dtype=dt), torch.iinfo(dt).max)
print(torch.tensor([1, 2], dtype=torch.uint64) * 2, torch.tensor([-128, 127], dtype=torch.int8) - 1)

# complex: real and imaginary parts are formatted separately
print(torch.tensor([1e-5 + 1j]), torch.tensor([1 + 1e-5j]), torch.tensor([1e10 + 1j]))
print(torch.tensor([0.5 + 0.25j, -1 - 1j]), torch.tensor([complex(1, -0.0), complex(-0.0, 1)]))
print(torch.tensor([complex(float("inf"), float("nan"))]), torch.tensor([[1 + 1j, 2 - 2j], [3.5 + 0j, -4.25j]]))
print(torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([0.0, math.pi / 2])))
print(torch.randn(30, dtype=torch.complex64))
print(torch.tensor(1 + 2j, dtype=torch.complex128), torch.tensor(1j).abs(), torch.tensor([1j]).angle())

# a model whose parameters and gradients span orders of magnitude
net = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
with torch.no_grad():
    net[0].weight.mul_(torch.tensor([[1e-3], [1.0], [1e3]]))
x = torch.randn(8, 4)
loss = net(x).pow(2).mean() * 1e-6
loss.backward()
print(loss)
for name, p in net.named_parameters():
    print(name, p.grad)
print(torch.stack([p.grad.abs().max() for p in net.parameters()]))
print(torch.logspace(-6, 6, 7), torch.logspace(-6, 6, 7, dtype=torch.float64))
print(torch.logspace(0, 3, 4), torch.logspace(0, 3.01, 4), torch.logspace(-4, -1, 4))
print(torch.linspace(-1, 1, 5) * 1e-5, torch.linspace(0, 1, 5) ** 10)
print(torch.exp(torch.tensor([-100.0, 0.0, 80.0])), torch.exp(torch.tensor([-100.0, 0.0, 100.0])))
print(torch.finfo(torch.float32).tiny * torch.tensor([1.0, 0.5, 2**-23]))

# float8 formats print through float32, each with its own zero and specials
vals = torch.tensor([0.0, 0.3, 2.0, 448.0, float("nan"), -1.5])
for dt in [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]:
    print(dt, vals.to(dt), vals.to(dt).float().tolist())
e8m0 = torch.float8_e8m0fnu
print(torch.tensor([0.0, 1024.0]).to(e8m0), torch.tensor([0.0, float("nan"), 4.0]).to(e8m0))
print(torch.tensor([0.5, 2.0, 3.0]).to(e8m0), torch.tensor([2.0**-127, 1.0]).to(e8m0))
