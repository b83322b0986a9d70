"""Overflow and wraparound in int8..int64 and casts out of range, as image, counting and quantization
code meets them: silent wrapping, dtype promotion of sums and cumsums, saturating casts done by hand."""

import warnings

import torch

i8 = torch.tensor([100, 120, -128, 127], dtype=torch.int8)
print("i8 + i8", (i8 + i8).tolist(), (i8 + i8).dtype)
print("i8 * 2", (i8 * 2).tolist(), "i8 * 2.0", (i8 * 2.0).tolist(), (i8 * 2.0).dtype)
print("i8 + int64 tensor", (i8 + torch.tensor(1)).dtype, "i8 + int64 1-d", (i8 + torch.tensor([1])).dtype)
print("sum", i8.sum().item(), i8.sum().dtype, "sum int8", i8.sum(dtype=torch.int8).item())
print("cumsum", i8.cumsum(0).tolist(), i8.cumsum(0).dtype, i8.cumsum(0, dtype=torch.int8).tolist())
print("cumprod", i8.cumprod(0).tolist(), "prod", i8.prod().item(), i8.prod().dtype)
print("mean needs float", end=" ")
try:
    i8.mean()
except RuntimeError as e:
    print(type(e).__name__, e)
print("float mean", i8.float().mean().item(), i8.mean(dtype=torch.float64).item())
print(
    "abs/neg of min",
    torch.tensor([-128], dtype=torch.int8).abs().tolist(),
    (-torch.tensor([-128], dtype=torch.int8)).tolist(),
)

img = torch.tensor([[250, 10], [128, 255]], dtype=torch.uint8)
print("u8 brighten wraps", (img + 10).tolist())
print("u8 brighten saturates", (img.int() + 10).clamp(0, 255).to(torch.uint8).tolist())
print("u8 diff wraps", (img - img.flip(0)).tolist(), "abs diff", (img.int() - img.flip(0).int()).abs().tolist())
print("u8 mean", img.float().mean().item(), "u8 sum", img.sum().item(), img.sum(1).dtype)
print("u8 * 0.5", (img * 0.5).tolist(), "u8 // 3", (img // 3).tolist(), "u8 / 255", (img / 255).dtype)
img2 = img.clone()
img2 += 10
img2 -= 300 % 256
print("in place", img2.tolist())
try:
    img2 *= 1.5
except RuntimeError as e:
    print(type(e).__name__, e)

i32 = torch.tensor([2**31 - 1, -(2**31)], dtype=torch.int32)
print("i32 wrap", (i32 + 1).tolist(), (i32 * 2).tolist(), (i32 + 2**31).dtype)
print("i32 sum", i32.sum().item(), i32.sum(dtype=torch.int32).item())
i64 = torch.tensor([2**63 - 1])
print("i64 wrap", (i64 + 1).tolist(), (i64 * 3).tolist())
print("i64 to float32 and back", i64.float().long().tolist(), torch.tensor([2**53 + 1]).double().long().tolist())

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    f = torch.tensor([300.7, -1.5, 127.9, -128.9, float("nan"), float("inf"), 1e10])
    print("to int8", f[:4].to(torch.int8).tolist(), "to uint8", f[:2].to(torch.uint8).tolist())
    print("nan/inf/1e10 to int32", f[4:].int().tolist(), "to int64", f[4:].long().tolist())
    print("to int16", torch.tensor([40000.0, -40000.0]).short().tolist())
    print("float64 to float16", torch.tensor([1e6, 65519.0, 65520.0, 1e-8], dtype=torch.float64).half().tolist())
    print(
        "to bfloat16",
        torch.tensor([1e39], dtype=torch.float64).bfloat16().tolist(),
        torch.tensor([3e38]).bfloat16().tolist(),
    )
    out = torch.zeros(3, dtype=torch.int32)
    out.copy_(torch.tensor([3e9, -3e9, 5.9]))
    print("copy_ into int32", out.tolist())
    print("int64 into int8", torch.tensor([200, -200, 256, 1000]).to(torch.int8).tolist())
    print("int64 into uint8", torch.tensor([-1, 256, 257, -256]).to(torch.uint8).tolist())
    print("bool", torch.tensor([0.0, -0.0, 0.1, float("nan")]).bool().tolist(), torch.tensor([256]).bool().tolist())
print("warnings", [str(x.message)[:60] for x in w])

q = torch.tensor([0.9, -0.9, 2.2, -2.2])
scale = 1 / 64
print("saturating quantize", (q / scale).round().clamp(-128, 127).to(torch.int8).tolist())
print("naive quantize wraps", (q / scale).round().to(torch.int8).tolist())
for bad in [
    lambda: torch.tensor([128], dtype=torch.int8),
    lambda: torch.full((1,), 300, dtype=torch.uint8),
    lambda: torch.zeros(1, dtype=torch.int16).fill_(40000),
    lambda: torch.tensor([-1.0], dtype=torch.uint8),
]:
    try:
        print(bad())
    except RuntimeError as e:
        print(type(e).__name__, e)
print("iinfo", [(torch.iinfo(d).min, torch.iinfo(d).max) for d in (torch.int8, torch.uint8, torch.int16, torch.int32)])
print(torch.iinfo(torch.int64), torch.iinfo(torch.uint8))
