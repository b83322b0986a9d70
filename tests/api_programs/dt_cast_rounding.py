"""Float-to-int casts and rounding as quantizers and binning code meet them."""

import math

import torch

torch.set_printoptions(precision=4)


def show(tag, t):
    print(f"{tag:<22}", t.tolist(), str(t.dtype).replace("torch.", ""))


x = torch.tensor([-2.7, -2.5, -1.5, -0.5, -0.2, 0.0, 0.2, 0.5, 1.5, 2.5, 2.7])
show("long()", x.long())
show("int()", x.int())
show("to int8", x.to(torch.int8))
show("to uint8 (>=0)", x[5:].to(torch.uint8))
show("to bool", x.bool())
show("trunc", torch.trunc(x))
show("fix", torch.fix(x))
show("floor", torch.floor(x))
show("ceil", torch.ceil(x))
show("round (half even)", torch.round(x))
show("floor().long()", x.floor().long())
show("round().long()", x.round().long())
show("frac", torch.frac(x).round(decimals=4))
print("python round", [round(v) for v in (-2.5, -1.5, -0.5, 0.5, 1.5, 2.5)])
print("math.floor", [math.floor(v) for v in (-2.7, 2.7)], int(torch.tensor(-2.7)), int(torch.tensor(2.7)))

# round with decimals
y = torch.tensor([1.23456, -1.23456, 12345.678, 0.125, 0.375, 2.675])
show("round(decimals=2)", torch.round(y, decimals=2))
show("round(decimals=0)", torch.round(y, decimals=0))
show("round(decimals=-2)", torch.round(y, decimals=-2))
show("round(decimals=1) f64", torch.round(y.double(), decimals=1))
show("Tensor.round(3)", y.round(decimals=3))
yy = y.clone()
yy.round_(decimals=1)
show("round_(decimals=1)", yy)
try:
    torch.round(torch.tensor([1, 2]), decimals=1)
except RuntimeError as e:
    print("int round decimals", type(e).__name__, e)
show("int round", torch.round(torch.tensor([1, 2])))
show("int floor/ceil", torch.stack([torch.floor(torch.tensor([-3, 3])), torch.ceil(torch.tensor([-3, 3]))]))
show("half round", torch.tensor([0.5, 1.5, 2.5, 2.4999], dtype=torch.float16).round())

# values at the edges of the integer ranges
big = torch.tensor([2.0**31 - 64, 2.0**31, -(2.0**31), 1e10], dtype=torch.float64)
show("f64 -> i64", big.long())
show("f32 2**24+1", torch.tensor([2**24 + 1, 2**24 + 3], dtype=torch.int64).float().long())
show("i64 -> f32 -> i64", torch.tensor([2**53 + 1]).float().long())
show("i64 -> f64 -> i64", torch.tensor([2**53 + 1]).double().long())
show("f16 from ints", torch.tensor([2049, 2051, 65504, 70000]).half())
show("bf16 from ints", torch.tensor([257, 259, 1000, 123456]).bfloat16())

# NaN and inf: nan->bool is True; inf->bool True
nf = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0])
show("nan/inf -> bool", nf.bool())
show("nan_to_num", torch.nan_to_num(nf))
show("nan_to_num args", torch.nan_to_num(nf, nan=0.0, posinf=1e4, neginf=-1e4))
show("nan_to_num f16", torch.nan_to_num(nf.half()))
show("clamp then long", nf.nan_to_num(0.0).clamp(-100, 100).long())
try:
    int(torch.tensor(float("nan")))
except ValueError as e:
    print("int(nan)", type(e).__name__, e)
try:
    int(torch.tensor(float("inf")))
except OverflowError as e:
    print("int(inf)", type(e).__name__, e)

# quantize / dequantize as an int8 fake-quant does it
torch.manual_seed(0)
w = torch.randn(10)
scale = w.abs().max() / 127
q = torch.clamp(torch.round(w / scale), -128, 127).to(torch.int8)
print("scale", round(scale.item(), 6))
show("q", q)
deq = q.float() * scale
print("max err", round((deq - w).abs().max().item(), 4), "<= scale/2", bool((deq - w).abs().max() <= scale / 2 + 1e-7))
# uint8 image conversion
img = torch.rand(2, 3)
u8 = (img * 255).round().clamp(0, 255).to(torch.uint8)
show("u8 image", u8)
show("back to float", (u8.float() / 255).round(decimals=4))
show("byte() wraps", torch.tensor([255.0, 256.0, 300.0]).byte())

# binning with floor division on floats and with bucketize
v = torch.tensor([-1.0, -0.01, 0.0, 0.49, 0.5, 0.99, 1.0])
show("floor(v/0.25)", torch.floor(v / 0.25).long())
show("v // 0.25", v // 0.25)
show("bucketize", torch.bucketize(v, torch.tensor([0.0, 0.5, 1.0])))
show("bucketize right", torch.bucketize(v, torch.tensor([0.0, 0.5, 1.0]), right=True))
show("bucketize int32", torch.bucketize(v, torch.tensor([0.0, 0.5]), out_int32=True))
show("searchsorted", torch.searchsorted(torch.tensor([0.0, 0.5, 1.0]), v))
show("histc", torch.histc(v, bins=4, min=-1, max=1))
