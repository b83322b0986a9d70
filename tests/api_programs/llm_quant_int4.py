"""Weight-only quantization as LLM inference code does it: per-channel absmax int8, group-wise asymmetric int4 with
zero points, packing two nibbles per uint8 and eight per int32 with shifts/masks, unpacking with bitwise ops,
dequantized matmuls vs float, LLM.int8-style outlier split, fake quantization with a straight-through estimator,
and the dtype rules and errors of integer bit ops."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)

out_f, in_f = 6, 16
W = torch.sin(torch.arange(out_f * in_f, dtype=torch.float32).reshape(out_f, in_f) * 0.37) * \
    torch.linspace(0.5, 2.0, out_f)[:, None]
W[2, 5] = 6.0  # an outlier
x = torch.cos(torch.arange(3 * in_f, dtype=torch.float32).reshape(3, in_f) * 0.21)


# int8 per-output-channel absmax
def quantize_int8(w):
    scale = w.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127.0
    q = torch.round(w / scale).clamp(-128, 127).to(torch.int8)
    return q, scale


q8, s8 = quantize_int8(W)
print("int8:", q8.dtype, q8[0, :8].tolist(), "scales:", s8.squeeze(1))
deq8 = q8.float() * s8
print(f"int8 max abs err {(deq8 - W).abs().max().item():.4f}  rel matmul err "
      f"{((x @ deq8.T - x @ W.T).norm() / (x @ W.T).norm()).item():.4f}")
print("int8 storage:", q8.element_size() * q8.numel(), "bytes vs", W.element_size() * W.numel())
acc = torch.round(x * 10).to(torch.int8).to(torch.int32) @ q8.to(torch.int32).T
print("int32 accumulate:", acc.dtype, acc[0].tolist())


# int4 group-wise asymmetric (min/max) with zero points
def quantize_int4(w, group_size=8):
    wg = w.reshape(-1, group_size)
    wmin, wmax = wg.amin(dim=1, keepdim=True), wg.amax(dim=1, keepdim=True)
    scale = (wmax - wmin).clamp(min=1e-6) / 15
    zero = torch.round(-wmin / scale).clamp(0, 15)
    q = torch.clamp(torch.round(wg / scale) + zero, 0, 15).to(torch.uint8)
    return q.reshape(w.shape), scale, zero


q4, s4, z4 = quantize_int4(W)
print("int4 codes row0:", q4[0].tolist())
print("zeros:", z4.squeeze(1).int().tolist())
deq4 = ((q4.reshape(-1, 8).float() - z4) * s4).reshape(W.shape)
print(f"int4 max abs err {(deq4 - W).abs().max().item():.4f}")


# pack two nibbles per byte, low nibble first
def pack_uint4(q):
    q = q.reshape(*q.shape[:-1], -1, 2)
    return (q[..., 0] | (q[..., 1] << 4)).to(torch.uint8)


def unpack_uint4(p):
    low = p & 0x0F
    high = (p >> 4) & 0x0F
    return torch.stack([low, high], dim=-1).flatten(-2)


packed = pack_uint4(q4)
print("packed:", packed.dtype, tuple(packed.shape), packed[0].tolist())
print("roundtrip exact:", torch.equal(unpack_uint4(packed), q4))


# GPTQ-style: eight 4-bit values in an int32, with shifts from arange
def pack_int32(q):
    q = q.to(torch.int32).reshape(q.shape[0], -1, 8)
    shifts = torch.arange(0, 32, 4, dtype=torch.int32)
    return torch.sum(q << shifts, dim=-1, dtype=torch.int32)


def unpack_int32(p):
    shifts = torch.arange(0, 32, 4, dtype=torch.int32)
    return ((p.unsqueeze(-1) >> shifts) & 0xF).flatten(-2)


p32 = pack_int32(q4)
print("int32 words:", p32.dtype, p32[0].tolist())
print("int32 roundtrip:", torch.equal(unpack_int32(p32).to(torch.uint8), q4))
print("sign of words with high nibble >= 8:", (p32 < 0).int().tolist())


# symmetric int4 in signed range [-8, 7]
qs = torch.clamp(torch.round(W / (W.abs().amax(1, keepdim=True) / 7)), -8, 7).to(torch.int8)
biased = (qs + 8).to(torch.uint8)
print("signed codes:", qs[1, :8].tolist(), "biased:", biased[1, :8].tolist())
restored = unpack_uint4(pack_uint4(biased)).to(torch.int8) - 8
print("signed roundtrip:", torch.equal(restored, qs))


class Int4Linear(nn.Module):
    def __init__(self, w, group_size=8):
        super().__init__()
        q, s, z = quantize_int4(w, group_size)
        self.register_buffer("qweight", pack_uint4(q))
        self.register_buffer("scales", s.half())
        self.register_buffer("zeros", z.to(torch.uint8))
        self.shape, self.group_size = tuple(w.shape), group_size

    def forward(self, x):
        q = unpack_uint4(self.qweight).reshape(-1, self.group_size).float()
        w = ((q - self.zeros.float()) * self.scales.float()).reshape(self.shape)
        return F.linear(x, w.to(x.dtype))


lin = Int4Linear(W)
print("buffers:", {k: (v.dtype, tuple(v.shape)) for k, v in lin.state_dict().items()})
print("int4 linear:", lin(x)[0], "\nfloat      :", (x @ W.T)[0])

# LLM.int8: outlier input features stay in fp, the rest go through int8
xo = x.clone()
xo[:, 5] = xo[:, 5] * 20
outlier_cols = (xo.abs() > 6.0).any(0)
print("outlier columns:", outlier_cols.nonzero().flatten().tolist())
xs = xo[:, ~outlier_cols]
ws = W[:, ~outlier_cols]
sx = xs.abs().amax(1, keepdim=True) / 127
sw = ws.abs().amax(1, keepdim=True) / 127
qx = torch.round(xs / sx).to(torch.int8)
qw = torch.round(ws / sw).to(torch.int8)
y_int = (qx.int() @ qw.int().T).float() * sx * sw.T
y = y_int + xo[:, outlier_cols] @ W[:, outlier_cols].T
print(f"LLM.int8 rel err {((y - xo @ W.T).norm() / (xo @ W.T).norm()).item():.4f}")

# fake quant with straight-through estimator
w = W.clone().requires_grad_()
scale = w.detach().abs().amax(1, keepdim=True) / 7
wq = w + (torch.clamp(torch.round(w / scale), -8, 7) * scale - w).detach()
(x @ wq.T).sum().backward()
print("STE grad == plain grad:", torch.allclose(w.grad, x.sum(0).expand_as(W)))
fq = torch.fake_quantize_per_channel_affine(W, s8.squeeze(1), torch.zeros(out_f, dtype=torch.int32), 0, -128, 127)
print("fake_quantize_per_channel_affine == int8 deq:", torch.allclose(fq, deq8, atol=1e-6))

# integer bit-op semantics and errors
a = torch.tensor([0xF0, 0x0F, 0xAB], dtype=torch.uint8)
print("uint8 ops:", (a >> 4).tolist(), (a << 1).tolist(), (~a).tolist(), (a ^ 0xFF).tolist())
print("int8 shift right (arithmetic):", (torch.tensor([-16, 16], dtype=torch.int8) >> 2).tolist())
print("bitwise_and dtype:", torch.bitwise_and(a, torch.tensor(3)).dtype, (a & 3).dtype)
for bad in (lambda: W & 1, lambda: W >> 1, lambda: ~W, lambda: torch.bitwise_not(W),
            lambda: torch.bitwise_left_shift(W, 2), lambda: q8 | W):
    try:
        bad()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
print("round half to even:", torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5])).tolist())
print("float->int8 clamp first:", torch.tensor([300.0, -300.0]).clamp(-128, 127).to(torch.int8).tolist())
