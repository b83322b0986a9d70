"""Global defaults as libraries toggle them: torch.set_default_dtype (float64 and bfloat16/half) and what it
changes (factories, Python-float promotion, complex defaults, nn layer parameters, torch.tensor of ints and
bools, arange/linspace), a context manager that restores it, torch.set_default_device/get_default_device, the
`with torch.device(...)` context nesting, and the errors for non-float defaults."""

import contextlib

import torch
from torch import nn

torch.set_printoptions(precision=4)


@contextlib.contextmanager
def default_dtype(dtype):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def describe(tag):
    t_float = torch.tensor([1.5, 2.0])
    t_int = torch.tensor([1, 2])
    t_bool = torch.tensor([True])
    t_cplx = torch.tensor([1 + 2j]) if torch.get_default_dtype() != torch.float16 else torch.ones(1, dtype=torch.chalf)
    print(f"[{tag}] default", torch.get_default_dtype())
    print("  tensor float/int/bool/complex", t_float.dtype, t_int.dtype, t_bool.dtype, t_cplx.dtype)
    print("  zeros/ones/empty/rand/randn", torch.zeros(1).dtype, torch.ones(2).dtype, torch.empty(1).dtype,
          torch.rand(1).dtype, torch.randn(1).dtype)
    print("  arange int/float", torch.arange(3).dtype, torch.arange(3.0).dtype, torch.arange(0, 1, 0.25).dtype)
    print("  linspace/logspace/full", torch.linspace(0, 1, 3).dtype, torch.logspace(0, 1, 3).dtype,
          torch.full((1,), 2).dtype, torch.full((1,), 2.0).dtype)
    print("  int tensor * 0.5", (t_int * 0.5).dtype, "int / int", (t_int / t_int).dtype,
          "mean of ints -> error-free float", t_int.float().mean().dtype)
    print("  sqrt of int", torch.sqrt(t_int).dtype, "complex(1j)*int", (t_int * 1j).dtype)
    print("  from python scalars", torch.as_tensor(3.0).dtype, torch.scalar_tensor(1).dtype)
    lin = nn.Linear(2, 2)
    emb = nn.Embedding(3, 2)
    bn = nn.BatchNorm1d(2)
    print("  Linear/Embedding/BatchNorm", lin.weight.dtype, emb.weight.dtype, bn.running_mean.dtype,
          bn.num_batches_tracked.dtype)
    print("  as_tensor(float32 values) stays", torch.as_tensor(torch.ones(1, dtype=torch.float32)).dtype,
          "float32 tensor + 1.5", (torch.ones(1, dtype=torch.float32) + 1.5).dtype)


describe("start")
with default_dtype(torch.float64):
    describe("float64")
    x = torch.linspace(0, 1, 5)
    print("  precise", x.sum().item(), (torch.tensor(1.0) / 3).item())
with default_dtype(torch.float16):
    describe("float16")
with default_dtype(torch.bfloat16):
    print("[bfloat16] default", torch.get_default_dtype(), torch.tensor([1.0]).dtype, torch.randn(2).dtype,
          (torch.ones(2) * 1j).dtype, torch.full((1,), 1j).dtype)
    try:
        torch.tensor([1j])
    except RuntimeError as e:
        print("RuntimeError:", e)
print("restored", torch.get_default_dtype())

for bad in (torch.int32, torch.complex64, torch.bool):
    try:
        torch.set_default_dtype(bad)
    except TypeError as e:
        print("TypeError:", e)
try:
    torch.set_default_dtype("float64")
except TypeError as e:
    print("TypeError:", e)

print("get_default_device", torch.get_default_device())
with torch.device("meta"):
    print("in meta", torch.get_default_device(), torch.ones(2).device, nn.Linear(2, 2).weight.device)
    with torch.device("cpu"):
        print("nested cpu", torch.get_default_device(), torch.ones(2).device)
    print("back to meta", torch.zeros(1).device, torch.zeros(1, device="cpu").device)
print("outside", torch.get_default_device(), torch.ones(1).device)

torch.set_default_device("meta")
print("set_default_device meta", torch.get_default_device(), torch.randn(2, 2).device, torch.tensor([1, 2]).device,
      torch.arange(4).device)
print("explicit device wins", torch.zeros(1, device="cpu").device)
print("from_numpy ignores default", torch.from_numpy(__import__("numpy").ones(2)).device)
torch.set_default_device(None)
print("reset", torch.get_default_device(), torch.ones(1).device)
torch.set_default_device("cpu")
print("set cpu", torch.get_default_device(), torch.ones(1).device)
torch.set_default_device(None)

dev = torch.device("cpu")
with dev:
    print("device object as context", torch.empty(3).device)
print("device fields", dev.type, dev.index, torch.device("cpu", 0), torch.device("meta").type,
      repr(torch.device("cpu")))
print("is_floating_point default", torch.is_floating_point(torch.zeros(1)),
      torch.promote_types(torch.int64, torch.get_default_dtype()))
