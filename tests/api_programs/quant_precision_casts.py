"""Moving a model between precisions as deployment code does: half()/bfloat16()/to(dtype) on modules with
buffers, keeping normalization layers in float32, CPU autocast to bfloat16 around linear/conv, accumulation error
of 16-bit sums and matmuls against float64, element sizes and nbytes, legacy type strings, default dtypes, and
the dtype mismatches users hit."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
x = torch.randn(2, 3, 6, 6)
ref = model.eval()(x)
half = model.half()
print(
    "half params",
    {str(p.dtype) for p in half.parameters()},
    "bn buffers",
    half[1].running_mean.dtype,
    half[1].num_batches_tracked.dtype,
)
for m in half.modules():
    if isinstance(m, nn.BatchNorm2d):
        m.float()
print("bn back to fp32", half[1].weight.dtype, half[1].running_var.dtype)
try:
    half(x)
except Exception as e:
    print(type(e).__name__, e)
print("half input with fp32 bn", half(x.half()).dtype)
model = model.float()
print("float again", {str(p.dtype) for p in model.parameters()}, torch.allclose(model(x), ref, atol=1e-2))

bf = model.to(torch.bfloat16)
out_bf = bf(x.to(torch.bfloat16))
print("bf16 out", out_bf.dtype, "max diff", round((out_bf.float() - ref).abs().max().item(), 2) < 0.1)
model.to(dtype=torch.float64)
print("to float64", model[0].weight.dtype, model(x.double()).dtype)
model.float()

with torch.autocast("cpu", dtype=torch.bfloat16):
    y = model(x)
    lin = F.linear(x.flatten(1)[:, :8], torch.randn(3, 8))
    s = torch.softmax(lin, dim=-1)
    summed = lin.sum()
    inside = torch.is_autocast_enabled("cpu")
print("autocast", y.dtype, lin.dtype, s.dtype, summed.dtype, "enabled inside", inside)
print("outside", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))

v = torch.full((4096,), 0.1)
for dt in (torch.float16, torch.bfloat16, torch.float32):
    s16 = v.to(dt).sum()
    cs = v.to(dt).cumsum(0)[-1]
    print(
        dt,
        "sum",
        s16.dtype,
        round(s16.float().item(), 2),
        "cumsum",
        round(cs.float().item(), 2),
        "mean",
        round(v.to(dt).mean().float().item(), 4),
    )
A = torch.randn(64, 256)
Bm = torch.randn(256, 32)
exact = A.double() @ Bm.double()
for dt in (torch.float16, torch.bfloat16, torch.float32):
    r = (A.to(dt) @ Bm.to(dt)).double()
    print(dt, "matmul rel err < 1e-2", bool(((r - exact).norm() / exact.norm()) < 1e-2))
for dt in (
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.int8,
    torch.uint8,
    torch.int64,
    torch.bool,
    torch.complex64,
):
    t = torch.zeros(3, 5, dtype=dt)
    print(
        str(dt).ljust(15), t.element_size(), t.nbytes, t.type(), t.is_floating_point(), t.is_complex(), t.dtype.itemsize
    )
print("legacy type casts", torch.ones(2).type(torch.HalfTensor).dtype, torch.ones(2).type("torch.DoubleTensor").dtype)
torch.set_default_dtype(torch.float64)
print(
    "default float64",
    torch.tensor([1.5]).dtype,
    torch.randn(1).dtype,
    torch.arange(2.0).dtype,
    torch.tensor([1 + 2j]).dtype,
)
torch.set_default_dtype(torch.float32)
print("restored", torch.get_default_dtype(), torch.tensor(1.0).dtype)
print(
    "promotion",
    (torch.ones(1, dtype=torch.float16) + torch.ones(1, dtype=torch.bfloat16)).dtype,
    (torch.ones(1, dtype=torch.float16) * 2.5).dtype,
    (torch.ones(1, dtype=torch.int8) * 2.5).dtype,
    (torch.ones(1, dtype=torch.float16) + torch.ones((), dtype=torch.float64)).dtype,
)
for bad in (
    lambda: torch.set_default_dtype(torch.int32),
    lambda: torch.ones(2, 2, dtype=torch.float16) @ torch.ones(2, 2),
    lambda: F.linear(torch.ones(1, 2), torch.ones(2, 2, dtype=torch.bfloat16)),
    lambda: torch.ones(2).type("torch.FooTensor"),
):
    try:
        bad()
        print("accepted")
    except Exception as e:
        print(type(e).__name__, e)
