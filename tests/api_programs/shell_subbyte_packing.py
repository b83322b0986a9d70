"""Weight-only int4 quantization as LLM inference code packs it: two 4-bit codes per byte in uint8, the packed
buffer tagged torch.uint4 / torch.int4 through `view`, float4_e2m1fn_x2 (MX-FP4) buffers carried as raw bytes, and
what PyTorch refuses to compute on those dtypes."""
import torch

torch.manual_seed(0)


def attempt(label, fn):
    try:
        out = fn()
        print(label, "->", out)
    except Exception as e:
        print(label, "->", type(e).__name__, e)


w = torch.randn(4, 8)
scale = w.abs().amax(dim=1, keepdim=True) / 7
codes = torch.clamp(torch.round(w / scale), -8, 7).to(torch.int8)
print("codes", codes.tolist())
unsigned = (codes + 8).to(torch.uint8)
packed = (unsigned[:, 0::2] | (unsigned[:, 1::2] << 4)).contiguous()
print("packed", tuple(packed.shape), packed.dtype, packed.sum().item())

q4 = packed.view(torch.uint4)
print("as uint4", q4.dtype, tuple(q4.shape), q4.stride(), q4.element_size(), q4.nbytes)
print("slices keep dtype", q4[1:].dtype, q4.t().dtype, q4.reshape(-1).shape, q4.unsqueeze(0).shape)
print("joined", torch.cat([q4, q4]).dtype, tuple(torch.stack([q4, q4]).shape))
restored = q4.view(torch.uint8)
print("bytes round trip", torch.equal(restored, packed), restored.data_ptr() == packed.data_ptr())
lo, hi = (restored & 0xF).to(torch.int16) - 8, (restored >> 4).to(torch.int16) - 8
unpacked = torch.stack([lo, hi], dim=-1).reshape(4, 8)
print("unpacked equals codes", torch.equal(unpacked.to(torch.int8), codes))
deq = unpacked.float() * scale
print("max abs error", round((deq - w).abs().max().item(), 4))

attempt("uint4 + 1", lambda: q4 + 1)
attempt("uint4.sum()", lambda: q4.sum())
attempt("uint4.float()", lambda: q4.float())
attempt("uint4.clone()", lambda: q4.clone())
attempt("uint4 == uint4", lambda: q4 == q4)
attempt("uint4 repr", lambda: repr(q4))
attempt("uint4.tolist()", lambda: q4.tolist())
attempt("uint4.numpy()", lambda: q4.numpy())
attempt("uint4 item", lambda: q4[0, 0].item())
attempt("uint8 -> int4 cast", lambda: packed.to(torch.int4))
attempt("int4 zeros", lambda: torch.zeros(2, dtype=torch.int4))
attempt("int4 tensor()", lambda: torch.tensor([1, 2], dtype=torch.int4))
attempt("int4 requires_grad", lambda: torch.empty(2, dtype=torch.int4).requires_grad_())
attempt("empty int4 repr", lambda: repr(torch.empty(0, 3, dtype=torch.int4)))

print("-- float4_e2m1fn_x2 buffers")
fp4 = torch.tensor([[0x21, 0x43], [0x65, 0x07]], dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
print(fp4)
print(fp4.dtype, fp4.is_floating_point(), fp4.clone().dtype, fp4.t().contiguous().view(torch.uint8).tolist())
print(torch.zeros(3, dtype=torch.float4_e2m1fn_x2), (fp4 == fp4).all().item())
z = fp4.clone().zero_()
print("zero_", z.view(torch.uint8).tolist())
attempt("fp4 ones", lambda: torch.ones(2, dtype=torch.float4_e2m1fn_x2))
attempt("fp4 -> float", lambda: fp4.float())
attempt("fp4 finfo max", lambda: torch.finfo(torch.float4_e2m1fn_x2).max)
attempt("fp4 flip", lambda: fp4.flip(0))
print("bits copies", torch.arange(4, dtype=torch.uint8).view(torch.bits8).clone().view(torch.uint8).tolist())
attempt("bits8 fill", lambda: torch.empty(2, dtype=torch.bits8).fill_(3))
attempt("float32 as bits16", lambda: torch.ones(2).view(torch.bits16).shape)
attempt("bits16 odd view", lambda: torch.ones(3, dtype=torch.uint8).view(torch.bits16))
