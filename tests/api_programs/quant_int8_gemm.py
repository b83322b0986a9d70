"""Integer-only inference emulated in torch (Jacob et al. 2018): int8 operands, int32 accumulation with
zero-point corrections, a fixed-point requantization multiplier (frexp, rounding right shifts), int32 bias,
saturation to int8 and the comparison against float arithmetic."""

import torch

torch.manual_seed(0)


def quantize(x, scale, zp, qmin=-128, qmax=127, dtype=torch.int8):
    return torch.clamp(torch.round(x / scale) + zp, qmin, qmax).to(dtype)


def dequantize(q, scale, zp):
    return (q.to(torch.int32) - zp).to(torch.float32) * scale


def quantize_multiplier(m):
    """m in (0, 1) -> (int32 mantissa in Q31, right shift), as gemmlowp does."""
    mant, exp = torch.frexp(torch.tensor(m, dtype=torch.float64))
    q = torch.round(mant * (1 << 31)).to(torch.int64)
    return q, -exp.item()


def rounding_rshift(x, shift):
    if shift <= 0:
        return x << (-shift)
    mask = (1 << shift) - 1
    rem = x & mask
    thresh = (mask >> 1) + (x < 0).to(x.dtype)
    return (x >> shift) + (rem > thresh).to(x.dtype)


def requantize(acc, q_mult, shift, out_zp):
    prod = acc.to(torch.int64) * q_mult
    nudge = torch.where(prod >= 0, torch.tensor(1 << 30), torch.tensor(1 - (1 << 30)))
    high = torch.div(prod + nudge, 1 << 31, rounding_mode="trunc")
    return torch.clamp(rounding_rshift(high, shift) + out_zp, -128, 127).to(torch.int8)


x = torch.randn(4, 16)
W = torch.randn(8, 16) * 0.3
b = torch.randn(8) * 0.1
sx, zx = (x.max() - x.min()).item() / 255, -128 - round(x.min().item() / ((x.max() - x.min()).item() / 255))
sw = W.abs().max().item() / 127
qx = quantize(x, sx, zx)
qw = quantize(W, sw, 0)
print("qx", qx.dtype, qx.min().item(), qx.max().item(), "zx", zx)
print("qw row0", qw[0, :8].tolist())

acc = (qx.to(torch.int32) - zx) @ qw.to(torch.int32).t()
print("acc dtype", acc.dtype, "max |acc|", acc.abs().max().item())
# zero-point expansion equals the direct product
acc2 = qx.to(torch.int32) @ qw.to(torch.int32).t() - zx * qw.to(torch.int32).sum(1)
print("expansion equal", torch.equal(acc, acc2))
qb = torch.round(b / (sx * sw)).to(torch.int32)
acc = acc + qb
y_float = x @ W.t() + b
print("int32 vs float max err", round((acc.float() * sx * sw - y_float).abs().max().item(), 4))

sy = (y_float.max() - y_float.min()).item() / 255
zy = -128 - round(y_float.min().item() / sy)
m = sx * sw / sy
q_mult, shift = quantize_multiplier(m)
print("multiplier", round(m, 6), "Q31", q_mult.item(), "shift", shift)
qy = requantize(acc, q_mult, shift, zy)
print("qy", qy.dtype, qy[0].tolist())
y_deq = dequantize(qy, sy, zy)
print("end-to-end max err", round((y_deq - y_float).abs().max().item(), 4), "step", round(sy, 4))
ref = quantize(acc.double() * m, 1.0, zy).to(torch.int8)
print("fixed-point vs float requant mismatches", int((ref != qy).sum()))

# shifts and rounding on negative values
v = torch.tensor([-9, -8, -7, -1, 0, 1, 7, 8, 9], dtype=torch.int32)
print(">> 2", (v >> 2).tolist())
print("rounding >> 2", rounding_rshift(v, 2).tolist())
print("floor_divide", torch.floor_divide(v, 4).tolist(), "trunc", torch.div(v, 4, rounding_mode="trunc").tolist())
print("bitwise_right_shift int8", torch.bitwise_right_shift(v.to(torch.int8), 1).tolist())
print("<< overflow int8", (torch.tensor([64, 100], dtype=torch.int8) << 1).tolist())
print("int8 add wraps", (torch.tensor([120], dtype=torch.int8) + torch.tensor([10], dtype=torch.int8)).tolist())
print("int8 @ int8", (qx[:2, :4] @ qw[:4, :4].t()).dtype)
print("iinfo", torch.iinfo(torch.int8), torch.iinfo(torch.int32).max, torch.iinfo(torch.uint8).min)
try:
    torch.randn(2, 2) @ qw[:2, :2]
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bitwise_left_shift(torch.tensor([1.0]), 1)
except Exception as e:
    print(type(e).__name__, e)
