"""float16/bfloat16 as mixed-precision code meets them: literal rounding, accumulation, finfo, overflow."""

import torch

torch.manual_seed(0)


def r(t, n=4):
    """16-bit values printed rounded, as a float list."""
    return [round(v, n) for v in t.float().reshape(-1).tolist()]


lits = [0.1, 0.2, 0.3, 1 / 3, 3.14159, 1000.1, 65519.0, 65520.0, 1e-5, 1e-8, 6e-8]
for dt in (torch.float16, torch.bfloat16):
    t = torch.tensor(lits, dtype=dt)
    print(dt, "literals", [f"{v:.6g}" for v in t.float().tolist()])
    print(dt, "0.1+0.2 == 0.3", (t[0] + t[1] == t[2]).item(), r(t[0] + t[1], 6))

# finfo fields
for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
    fi = torch.finfo(dt)
    print(str(dt), "bits", fi.bits, "eps", fi.eps, "max", fi.max, "tiny", fi.tiny,
          "smallest_normal", fi.smallest_normal, "resolution", fi.resolution)
print("finfo repr", torch.finfo(torch.bfloat16))
print("finfo default", torch.finfo().dtype, torch.finfo(torch.complex64).dtype)

# eps semantics: 1 + eps/2 rounds back to 1
for dt in (torch.float16, torch.bfloat16):
    one = torch.ones(1, dtype=dt)
    eps = torch.finfo(dt).eps
    print(dt, "1+eps", r(one + eps, 6), "1+eps/2 == 1", (one + eps / 2 == one).item(),
          "nextafter", r(torch.nextafter(one, one * 2), 6))

# accumulation: naive fp16 running sum stalls, torch.sum accumulates wider
x = torch.full((4096,), 0.1, dtype=torch.float16)
acc = torch.zeros((), dtype=torch.float16)
for chunk in x.split(256):
    acc = acc + chunk.sum()
print("fp16 sum", round(x.sum().item(), 2), "chunked", round(acc.item(), 2), "f32", round(x.float().sum().item(), 2))
run = torch.tensor(0.0, dtype=torch.float16)
for _ in range(3000):
    run += torch.tensor(1.0, dtype=torch.float16)
print("fp16 counter stalls at", run.item())
bf = torch.tensor(256.0, dtype=torch.bfloat16)
print("bf16 256+1", (bf + 1).item(), "256+2", (bf + 2).item())
print("cumsum fp16", r(torch.full((6,), 0.1, dtype=torch.float16).cumsum(0)))
print("mean fp16 dtype", x.mean().dtype, round(x.mean().item(), 4))
print("sum dtype=f32", x.sum(dtype=torch.float32).dtype)

# overflow and underflow
h = torch.tensor([60000.0, 1e-4, 1e-7, -70000.0], dtype=torch.float16)
print("fp16 values", h.tolist())
print("fp16 * 2", (h * 2).tolist())
print("fp16 square", (h.float() ** 2).half().tolist())
print("bf16 handles range", torch.tensor([1e30, 1e-30, 3e38], dtype=torch.bfloat16).float().tolist())
print("isinf", torch.isinf(h * 2).tolist(), "isfinite", torch.isfinite(h * 2).tolist())
sub = torch.tensor([6e-8, 3e-8, 2.9e-8], dtype=torch.float16)
print("fp16 subnormals", sub.tolist())

# softmax / logsumexp in half vs float
z = torch.randn(6) * 8
zh = z.half()
print("softmax f16", r(torch.softmax(zh, 0)), torch.softmax(zh, 0).dtype)
print("softmax f16->f32", r(torch.softmax(zh, 0, dtype=torch.float32)))
print("logsumexp", round(torch.logsumexp(zh, 0).item(), 2), round(torch.logsumexp(z, 0).item(), 2))
print("exp overflow f16", torch.exp(torch.tensor([11.0, 12.0], dtype=torch.float16)).tolist())

# matmul in half and bfloat16 on CPU
a = torch.randn(4, 8)
b = torch.randn(8, 3)
ref = a @ b
for dt in (torch.float16, torch.bfloat16):
    got = (a.to(dt) @ b.to(dt))
    print(dt, "matmul dtype", got.dtype, "max abs err < 0.1", bool((got.float() - ref).abs().max() < 0.1))

# conversions between the two 16-bit formats
v = torch.tensor([1.0009765625, 3.140625, 65504.0, 1e-6])
print("f32 -> f16 -> bf16", v.half().bfloat16().float().tolist())
print("f32 -> bf16 -> f16", v.bfloat16().half().float().tolist())
print("bf16 round-to-nearest-even", torch.tensor([1.00390625, 1.01171875], dtype=torch.float32).bfloat16().tolist())
print("half item type", type(torch.tensor(1.5, dtype=torch.float16).item()).__name__)
print("half repr", torch.tensor([0.1, 1 / 3], dtype=torch.float16))
print("bf16 repr", torch.tensor([0.1, 1 / 3], dtype=torch.bfloat16))
print("is_floating_point", torch.tensor([1], dtype=torch.bfloat16).is_floating_point(),
      torch.bfloat16.is_floating_point, torch.float16.itemsize, torch.bfloat16.itemsize)
