"""Bit-exact float tricks: Quake's fast inverse sqrt through view(int32), exponent and mantissa fields,
float16/bfloat16 bit patterns, ulps via nextafter, frexp/ldexp, and NaN payloads as they print."""

import warnings

import torch

torch.set_printoptions(precision=4)

x = torch.tensor([0.25, 1.0, 2.0, 10.0, 1e-3, 12345.0])
i = x.view(torch.int32)
print("bits", i.tolist(), i.dtype, i.stride(), i.data_ptr() == x.data_ptr())
y = (0x5F3759DF - (i >> 1)).view(torch.float32)
y = y * (1.5 - 0.5 * x * y * y)  # one Newton step
print("fast rsqrt", y)
print("rel error", ((y - x.rsqrt()) / x.rsqrt()).abs().max().item() < 2e-3)

exp = ((i >> 23) & 0xFF) - 127
man = i & 0x7FFFFF
print("exponent", exp.tolist(), "mantissa", man.tolist())
print("frexp", torch.frexp(x))
m, e = torch.frexp(x)
print("ldexp back", torch.equal(torch.ldexp(m, e), x), torch.ldexp(torch.tensor([1.0]), torch.tensor([130])))

# writing through the int view changes the floats: flip the sign bit in place
z = torch.tensor([1.5, -2.0, 0.0])
z.view(torch.int32).bitwise_xor_(-(2**31))
print("negated via bits", z, torch.signbit(z).tolist())

s = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan")])
print("special bits", s.view(torch.int32).tolist())
print("signbit", torch.signbit(s).tolist(), "copysign", torch.copysign(torch.ones(5), s).tolist())

nan_bits = torch.tensor([0x7FC00001, 0x7F800001, -4194304, 1, 0x7F7FFFFF], dtype=torch.int32)
f = nan_bits.view(torch.float32)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print("payloads", f)
    print("isnan", f.isnan().tolist(), "max finite", f[4].item())
print("warnings while printing", len(w))

h = torch.tensor([1.0, -2.0, 65504.0, 6.1035e-05, 5.9605e-08, float("inf")], dtype=torch.float16)
hb = h.view(torch.int16)
print("half bits", hb.tolist(), hb.dtype)
print("half exp", ((hb >> 10) & 0x1F).tolist(), "half man", (hb & 0x3FF).tolist())
print("from bits", torch.tensor([0x3C00, 0x7BFF, 0x0001, -1024, 0x7E00], dtype=torch.int16).view(torch.float16))

b = torch.tensor([1.0, 3.14159, -1e30, 1e-30], dtype=torch.bfloat16)
bb = b.view(torch.int16)
print("bf16 bits", bb.tolist())
print("bf16 = top half of f32", torch.equal((b.float().view(torch.int32) >> 16).to(torch.int16), bb))
f32 = torch.tensor([1.0, 3.14159, 2.0**-130, 65536.5])
trunc = (f32.view(torch.int32) & -65536).view(torch.float32)
print("truncated to bf16 grid", trunc, "vs round", f32.bfloat16().float())

one = torch.tensor([1.0, 1e8, 0.0])
up = torch.nextafter(one, torch.tensor(float("inf")))
print("ulp", (up - one).tolist())
print("ulp in bits", (up.view(torch.int32) - one.view(torch.int32)).tolist())
print("float64 bits", torch.tensor([1.0, -0.5], dtype=torch.float64).view(torch.int64).tolist())
d = torch.tensor([1.0, 2.0, 3.0, 4.0]).view(torch.float64)
print("two floats as a double", d.shape, d.dtype, d.view(torch.int64).tolist())
print("as uint8 bytes", torch.tensor([1.0]).view(torch.uint8).tolist(), torch.tensor(1.0).view(torch.int32))
c = torch.tensor([1 + 2j, -3j])
print("complex as floats", c.view(torch.float32), torch.view_as_real(c).stride())

for bad in [
    lambda: torch.zeros(3).view(torch.int64),
    lambda: torch.zeros(4, 2).t().view(torch.int16),
    lambda: torch.zeros(3).view(torch.float16).view(torch.complex64),
]:
    try:
        bad()
    except RuntimeError as e:
        print(type(e).__name__, str(e))
v = torch.zeros(2, 4).t().view(torch.int32)
print("transposed same size view", v.shape, v.stride())
