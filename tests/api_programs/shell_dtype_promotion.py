"""Type promotion with PyTorch's barebones dtypes, as a quantization library's dispatch table probes it:
promote_types over a grid, result_type of tensors, which casts and views go through, and the errors for the rest."""
import torch


def short(d):
    return str(d).replace("torch.", "")


def outcome(fn):
    try:
        return short(fn())
    except RuntimeError as e:
        msg = str(e)
        if "INTERNAL ASSERT" in msg:
            return "assert"
        if msg.startswith("Promotion for uint16"):
            return "unsigned"
        if msg.startswith("Promotion for Float8"):
            return "float8"
        if msg.startswith("Promotion from"):
            return "bits"
        if msg.startswith("promoteTypes with quantized"):
            return "quant"
        return "RuntimeError " + msg


grid = [torch.uint1, torch.uint4, torch.int4, torch.int7, torch.bits8, torch.bits16, torch.float4_e2m1fn_x2,
        torch.qint8, torch.bool, torch.uint8, torch.int64, torch.float16, torch.float32, torch.complex64,
        torch.uint16, torch.float8_e4m3fn]
print("rows x cols:", [short(d) for d in grid])
for a in grid:
    print(f"{short(a):>17}", " ".join(f"{outcome(lambda: torch.promote_types(a, b)):>9}" for b in grid))

print("-- messages")
for a, b in [(torch.uint4, torch.int64), (torch.bits8, torch.float32), (torch.int4, torch.float4_e2m1fn_x2),
             (torch.float32, torch.int2), (torch.qint32, torch.quint8), (torch.uint3, torch.float8_e5m2)]:
    try:
        torch.promote_types(a, b)
    except RuntimeError as e:
        print(short(a), short(b), "->", e)

print("-- result_type")
u4 = torch.empty(3, dtype=torch.uint4)
print(outcome(lambda: torch.result_type(u4, torch.ones(3))), outcome(lambda: torch.result_type(u4, 1.5)),
      outcome(lambda: torch.result_type(u4, 2)), outcome(lambda: torch.result_type(u4, u4)))
print(outcome(lambda: torch.result_type(torch.empty(2, dtype=torch.bits8), torch.ones(2))))

print("-- views across dtypes")
raw = torch.arange(16, dtype=torch.uint8)
for d in [torch.uint2, torch.int5, torch.bits1x8, torch.bits2x4, torch.bits4x2, torch.bits16, torch.float4_e2m1fn_x2]:
    t = raw.view(d)
    back = t.view(torch.uint8)
    print(short(d), tuple(t.shape), t.stride(), tuple(t.view(torch.int32).shape), torch.equal(back, raw))
print(tuple(torch.zeros(2, 3, dtype=torch.float64).view(torch.bits16).shape))
try:
    raw[1:].view(torch.bits16)
except RuntimeError as e:
    print("offset view:", e)
try:
    raw.view(4, 4)[:, ::2].view(torch.bits16)
except RuntimeError as e:
    print("strided view:", e)
