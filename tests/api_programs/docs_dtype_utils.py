"""torch.* utility docstring examples: finfo/iinfo, dtype attributes, default dtype, print options, is_* predicates."""

import numpy as np
import torch

for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64]:
    fi = torch.finfo(dt)
    print("finfo", dt, fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution, fi.dtype)
print("finfo default", torch.finfo().dtype, torch.finfo(torch.complex64).bits, torch.finfo(torch.complex128).eps)
print("finfo repr", torch.finfo(torch.float16))
for dt in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool]:
    try:
        ii = torch.iinfo(dt)
        print("iinfo", dt, ii.bits, ii.max, ii.min, ii.dtype)
    except TypeError as e:
        print("iinfo", dt, "TypeError:", e)
print("iinfo repr", torch.iinfo(torch.int16))
for dt in [torch.float32, torch.int64, torch.complex64, torch.bool, torch.uint8, torch.bfloat16]:
    print("dtype attrs", dt, dt.is_floating_point, dt.is_complex, dt.is_signed, dt.itemsize)
print(
    "to_complex",
    torch.float32.to_complex(),
    torch.float64.to_complex(),
    torch.complex64.to_real(),
    torch.float16.to_complex(),
)
print(
    "dtype aliases",
    torch.float,
    torch.double,
    torch.half,
    torch.long,
    torch.int,
    torch.short,
    torch.cfloat,
    torch.cdouble,
)
print(
    "dtype eq",
    torch.float32 == torch.float,
    torch.int64 is torch.long,
    str(torch.float64),
    repr(torch.int8),
    isinstance(torch.float, torch.dtype),
)
print("default dtype", torch.get_default_dtype(), torch.tensor([1.2, 3]).dtype, torch.tensor([1.2, 3j]).dtype)
torch.set_default_dtype(torch.float64)
print(
    "default f64",
    torch.get_default_dtype(),
    torch.tensor([1.2, 3]).dtype,
    torch.tensor([1.2, 3j]).dtype,
    torch.arange(2.0).dtype,
)
torch.set_default_dtype(torch.float32)
print("default restored", torch.get_default_dtype(), torch.zeros(1).dtype)
x = torch.tensor([1, 2, 3])
print(
    "is_tensor",
    torch.is_tensor(x),
    torch.is_tensor([1]),
    torch.is_tensor(np.ones(1)),
    torch.is_storage(x.untyped_storage()),
)
print(
    "is_floating_point",
    torch.is_floating_point(x),
    torch.is_floating_point(x.float()),
    torch.is_complex(x),
    torch.is_complex(torch.tensor([1j])),
)
print(
    "is_nonzero",
    torch.is_nonzero(torch.tensor([0.0])),
    torch.is_nonzero(torch.tensor([1.5])),
    torch.is_nonzero(torch.tensor([False])),
)
print("numel", torch.numel(torch.ones(1, 2, 3, 4, 5)), torch.numel(torch.zeros(4, 4)), torch.numel(torch.tensor(1)))
print(
    "result_type",
    torch.result_type(torch.tensor([1, 2], dtype=torch.int), 1.0),
    torch.result_type(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor(1)),
)
print(
    "promote_types",
    torch.promote_types(torch.int32, torch.float32),
    torch.promote_types(torch.uint8, torch.long),
    torch.promote_types(torch.bool, torch.int8),
)
print(
    "can_cast",
    torch.can_cast(torch.double, torch.float),
    torch.can_cast(torch.float, torch.int),
    torch.can_cast(torch.int, torch.float),
)
print("typename", torch.typename(x), torch.typename(torch.ones(1)), torch.typename(1.5), x.type())
torch.set_printoptions(precision=2)
print("precision 2", torch.tensor([1.12345, 2.5]), torch.tensor([1e-5, 1.0]))
torch.set_printoptions(threshold=5)
print("threshold", torch.arange(10), torch.arange(20.0).reshape(4, 5))
torch.set_printoptions(profile="default")
print("profile default", torch.tensor([1.12345]), torch.arange(10))
torch.set_printoptions(sci_mode=True)
print("sci_mode", torch.tensor([1.5, 100.0]))
torch.set_printoptions(sci_mode=None, linewidth=40)
print("linewidth", torch.arange(20.0))
torch.set_printoptions(profile="short")
print("profile short", torch.tensor([1.12345, 2.0]), torch.arange(2000)[:3])
torch.set_printoptions(profile="full")
print("profile full", torch.arange(1005)[-3:], len(str(torch.arange(1005))) > 1000)
torch.set_printoptions(profile="default")
print(
    "reprs",
    torch.tensor([]),
    torch.tensor([[]]),
    torch.zeros(0, 3),
    torch.tensor(2.0),
    torch.tensor([float("nan"), float("inf")]),
)
print(
    "repr dtypes",
    torch.tensor([1, 2], dtype=torch.int8),
    torch.tensor([1.0], dtype=torch.float16),
    torch.tensor([True]),
    torch.tensor([1.5], dtype=torch.bfloat16),
)
print(
    "repr grad", torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True) * 2, torch.tensor([1 + 2j, -0.5j])
)
print(
    "repr large",
    torch.tensor([1e10, 1.0]),
    torch.tensor([1e-10, 1.0]),
    torch.tensor([123456789.0]),
    torch.tensor([0.1, 100000.0]),
)
print(
    "repr int big",
    torch.tensor([2**40, -1]),
    torch.tensor([1.0, 2.0], dtype=torch.float64),
    torch.tensor(1.0, dtype=torch.float64),
)
print(
    "str vs repr",
    str(torch.tensor([1.0])) == repr(torch.tensor([1.0])),
    f"{torch.tensor(2.5):.3f}",
    f"{torch.tensor(7)}",
    format(torch.tensor(0.1), ".2e"),
)
print(
    "deterministic",
    torch.are_deterministic_algorithms_enabled(),
    torch.is_deterministic_algorithms_warn_only_enabled(),
    torch.get_num_threads() > 0,
)
g = torch.Generator().manual_seed(42)
print(
    "generator",
    g.initial_seed(),
    type(g).__name__,
    torch.Generator().manual_seed(7).initial_seed(),
    torch.initial_seed() >= 0,
)
print("manual_seed", type(torch.manual_seed(3)).__name__, torch.initial_seed())
for bad in [
    lambda: torch.finfo(torch.int32),
    lambda: torch.iinfo(torch.float32),
    lambda: torch.set_default_dtype(torch.int64),
    lambda: torch.set_printoptions(profile="long"),
    lambda: torch.is_nonzero(torch.tensor([1, 2])),
    lambda: torch.is_floating_point(np.ones(2)),
    lambda: torch.promote_types(torch.float32, "float64"),
    lambda: torch.result_type(1, 2.0),
    lambda: torch.numel([1, 2]),
    lambda: torch.tensor([1.0]).to(torch.float64).new_tensor([1]).dtype,
    lambda: f"{torch.tensor([1.0, 2.0]):.2f}",
    lambda: torch.Generator().manual_seed(-1).initial_seed(),
    lambda: torch.Generator().manual_seed(2**64),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
