"""How integer tensors print: widths set by the longest value, negative signs, summarised long and wide
tensors, every integer dtype's suffix, printoptions, and bit patterns shown with format()."""

import torch

print(torch.tensor([1, -100000, 22]))
print(torch.tensor([[1, -5], [300, 7]], dtype=torch.int16))
print(torch.tensor([-(2**63), 2**63 - 1]))
print(torch.tensor([0, 255], dtype=torch.uint8), torch.tensor([-128], dtype=torch.int8))
print(torch.tensor([7], dtype=torch.int32), torch.tensor(7, dtype=torch.int64), torch.tensor(-7, dtype=torch.int8))
print(torch.tensor([], dtype=torch.int16), torch.zeros(0, 3, dtype=torch.uint8), torch.zeros(2, 0, dtype=torch.int64))
print(torch.arange(2000))
print(torch.arange(3000, dtype=torch.int32).view(2, 1500))
print(torch.arange(40, dtype=torch.uint8).view(4, 10))
print(torch.arange(-3, 3, dtype=torch.int8).view(2, 3, 1))
print(torch.tensor([True, False]), torch.tensor(True), torch.zeros(2, 2, dtype=torch.bool))
print(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, -2.0]) * 1e10, torch.tensor([1, 2], dtype=torch.float64))
print(torch.tensor([1.5, 2.0], dtype=torch.float16), torch.tensor([1, 2], dtype=torch.bfloat16))
print(torch.tensor([2**40 + 1]).float(), torch.tensor([16777217]).float().long())

x = torch.tensor([5, -3, 1024], dtype=torch.int32)
print(repr(x), str(x) == repr(x))
print(x.tolist(), x[0].item(), type(x[0].item()).__name__, int(x[2]), float(x[1]), x[1].__index__())
print(f"{x[0]:08b} {x[2]:#x} {x[1]:+d} {x[1].item() & 0xFF:02X}")
print([format(v & 0xFFFF, "016b") for v in torch.tensor([1, -1, 255], dtype=torch.int16).tolist()])
print("hex of floats", [hex(v) for v in torch.tensor([1.0, -2.5]).view(torch.int32).tolist()])
print("bin via bits", "".join(str(b) for b in ((torch.tensor(0b10110) >> torch.arange(7, -1, -1)) & 1).tolist()))
print(f"{torch.tensor(3)}", f"{torch.tensor(2.5)}", f"{torch.tensor([1, 2])}")

torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10, dtype=torch.int16))
print(torch.arange(24).view(4, 6))
torch.set_printoptions(linewidth=30)
print(torch.arange(100000, 100012))
torch.set_printoptions(profile="default")
print(torch.arange(12, dtype=torch.int64).view(3, 4).t())
print(torch.tensor([[-1, 22], [333, -4444]]).unsqueeze(0))

n = torch.tensor([3, -1, 7], dtype=torch.int64, requires_grad=False)
print(n.dtype, n.is_floating_point(), n.is_signed(), torch.tensor([1], dtype=torch.uint8).is_signed(), n.element_size())
print(n.type(), torch.tensor([1], dtype=torch.uint8).type(), torch.tensor([1], dtype=torch.int16).type())
print(
    torch.LongTensor([1, 2]),
    torch.IntTensor([3]),
    torch.ByteTensor([255]),
    torch.CharTensor([-1]),
    torch.ShortTensor(2).shape,
)
try:
    torch.tensor([1, 2], requires_grad=True)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.ByteTensor([256])
except (RuntimeError, OverflowError) as e:
    print(type(e).__name__, e)
