"""A dtype table as serialization and quantization libraries build one: every torch.dtype object the module
exposes, with its size, kind flags, real/complex counterparts and machine limits (PyTorch's errors where it has
none)."""
import torch


def attempt(fn):
    try:
        return fn()
    except Exception as e:
        return f"{type(e).__name__}: {e}"


names = sorted(n for n in dir(torch) if isinstance(getattr(torch, n), torch.dtype))
print("dtype names:", len(names))
canonical = {}
for n in names:
    d = getattr(torch, n)
    canonical.setdefault(d, []).append(n)
print("distinct dtypes:", len(canonical))
aliases = sorted((str(d), sorted(v)) for d, v in canonical.items() if len(v) > 1)
for d, v in aliases:
    print("  alias", d, v)

for d in sorted(canonical, key=str):
    row = [str(d), d.itemsize, d.is_floating_point, d.is_complex, attempt(lambda: d.is_signed)]
    row.append(attempt(lambda: str(d.to_real())))
    row.append(attempt(lambda: str(d.to_complex())))
    print(*row)

print("-- limits")
for d in [torch.float4_e2m1fn_x2, torch.uint4, torch.int4, torch.bits8, torch.qint8, torch.float8_e4m3fn,
          torch.bfloat16, torch.uint16, torch.int8]:
    fi = attempt(lambda: (torch.finfo(d).bits, attempt(lambda: torch.finfo(d).max)))
    ii = attempt(lambda: torch.iinfo(d))
    print(d, "finfo:", fi, "| iinfo:",
          ii if isinstance(ii, str) else (ii.bits, ii.min, ii.max))

print("-- sizes of empty tensors")
for d in [torch.uint1, torch.uint7, torch.int2, torch.bits1x8, torch.bits2x4, torch.bits4x2, torch.bits16,
          torch.float4_e2m1fn_x2]:
    t = torch.empty(3, 5, dtype=d)
    print(d, tuple(t.shape), t.stride(), t.element_size(), t.nbytes, t.dtype is d, t.is_floating_point())

print("-- lookups")
print(torch.bit is torch.uint1, torch.uint4 == torch.uint4, torch.uint4 != torch.int4)
print(len({torch.uint4, torch.uint4, torch.int4, torch.float4_e2m1fn_x2}))
print([str(d) for d in (torch.uint1, torch.int7, torch.bits8, torch.quint4x2, torch.qint32)])
print(torch.empty(2, dtype=torch.int3).type(), torch.empty(0, dtype=torch.bits16).type())
