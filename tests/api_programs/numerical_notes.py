"""The 'Numerical accuracy' and 'Reproducibility' notes as a reader tries them: float32 vs float64 rounding,
extremal values (norms of 1e20, naive vs stable logsumexp/softmax, float16 overflow, bfloat16 spacing, division
by zero, integer division errors), the TF32 / reduced-precision flags and matmul precision, default dtypes,
finfo/iinfo, deterministic-algorithm switches, seeding with generators, and tolerance-based comparisons."""

import math
import random
import warnings
import numpy as np
import torch


def err(f):
    try:
        r = f()
        print("  ok", r)
    except Exception as e:
        print(" ", type(e).__name__ + ":", str(e).splitlines()[0])


# floating-point precision
a = torch.tensor([0.1, 0.2], dtype=torch.float32)
print("0.1 + 0.2", (a[0] + a[1]).item(), (a.double()[0] + a.double()[1]).item(), a.double().tolist())
print(torch.tensor(1e8) + 1, torch.tensor(1e8, dtype=torch.float64) + 1, torch.tensor(16777217.0))
x = torch.full((1000,), 0.1)
print("sum vs n*x", abs(x.sum().item() - 100.0) < 1e-3, x.double().sum().item() == 100.00000149011612)
print("int roundtrip", torch.tensor(16777217, dtype=torch.int64).float().long(),
      torch.tensor(2 ** 53 + 1).double().long())

# extremal values
a = torch.tensor([1e20, 1e20])
print("norm", a.norm(), torch.linalg.vector_norm(a), a.pow(2).sum().sqrt(), torch.linalg.norm(a.double()))
x = torch.tensor([1e4, 1e4 + 1, 1e4 + 2])
print("logsumexp", torch.logsumexp(x, 0), x.exp().sum().log())
print("softmax", torch.softmax(x, 0), (x.exp() / x.exp().sum()))
print("half overflow", torch.tensor(70000.).half(), torch.tensor([2048.0], dtype=torch.float16) + 1,
      torch.tensor([1.0, 2.0, 3.0], dtype=torch.float16).sum())
print("bfloat16", torch.tensor(1.001, dtype=torch.bfloat16), torch.tensor(257.0, dtype=torch.bfloat16),
      torch.tensor([1.0, 1e-3], dtype=torch.bfloat16).sum())
print("div by zero", torch.tensor(1.0) / 0, torch.tensor(-1.0) / 0, torch.tensor(0.0) / 0, torch.tensor(1) / 0)
err(lambda: torch.tensor(1) // 0)
err(lambda: torch.tensor(1) % 0)
print("nan handling", torch.tensor([1.0, float("nan")]).max(), torch.tensor([1.0, float("nan")]).nanmean(),
      torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf")])))
print("exp overflow", torch.tensor([88.0, 89.0]).exp(), torch.tensor([89.0], dtype=torch.float64).exp(),
      torch.tensor([-104.0]).exp(), torch.tensor([1e-45]), torch.tensor([1e-46]))

# TF32 and reduced-precision flags
print("flags", torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32,
      torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
      torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction, torch.get_float32_matmul_precision())
torch.set_float32_matmul_precision("high")
print("precision", torch.get_float32_matmul_precision())
torch.set_float32_matmul_precision("highest")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.set_float32_matmul_precision("low")
print("bad precision", len(caught), str(caught[0].message)[:40] if caught else None,
      torch.get_float32_matmul_precision())
torch.backends.cuda.matmul.allow_tf32 = True
print("tf32 set", torch.backends.cuda.matmul.allow_tf32)
torch.backends.cuda.matmul.allow_tf32 = False

# dtypes
print("defaults", torch.get_default_dtype(), torch.tensor(1.0).dtype, torch.tensor(1).dtype, torch.tensor(1j).dtype)
torch.set_default_dtype(torch.float64)
print("float64 default", torch.tensor(1.0).dtype, torch.ones(1).dtype, torch.tensor(1j).dtype, torch.arange(2.0).dtype)
torch.set_default_dtype(torch.float32)
err(lambda: torch.set_default_dtype(torch.int32))
print(torch.promote_types(torch.float16, torch.bfloat16), torch.result_type(torch.tensor(1), 1.0),
      torch.can_cast(torch.float64, torch.int32), torch.can_cast(torch.int32, torch.float16))
print(torch.finfo(torch.float32).eps, torch.finfo(torch.float16).max, torch.finfo(torch.bfloat16).eps,
      torch.finfo().dtype, torch.finfo(torch.float64).tiny, torch.finfo(torch.float32).resolution)
print(torch.iinfo(torch.int8), torch.iinfo(torch.uint8).max, torch.iinfo(torch.int64).min)
err(lambda: torch.finfo(torch.int32))
err(lambda: torch.iinfo(torch.float32))

# reproducibility
print("deterministic", torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.deterministic,
      torch.backends.cudnn.benchmark)
torch.use_deterministic_algorithms(True, warn_only=True)
print("on", torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
      torch.get_deterministic_debug_mode())
torch.use_deterministic_algorithms(False)
print("off", torch.are_deterministic_algorithms_enabled(), torch.get_deterministic_debug_mode())
torch.manual_seed(0)
random.seed(0)
np.random.seed(0)
s1 = torch.rand(3)
torch.manual_seed(0)
print("reseeded", torch.equal(s1, torch.rand(3)), torch.initial_seed())
g = torch.Generator().manual_seed(42)
g2 = torch.Generator().manual_seed(42)
print("generators", torch.equal(torch.randn(4, generator=g), torch.randn(4, generator=g2)), g.initial_seed())
state = torch.get_rng_state()
u = torch.rand(2)
torch.set_rng_state(state)
print("rng state", torch.equal(u, torch.rand(2)), state.dtype, state.shape[0] > 0)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2 ** 32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


gen = torch.Generator()
gen.manual_seed(0)
ds = torch.utils.data.TensorDataset(torch.arange(10.0))
dl = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, worker_init_fn=seed_worker, generator=gen)
first = [b[0].tolist() for b in dl]
gen.manual_seed(0)
print("loader", first == [b[0].tolist() for b in dl], [len(b) for b in first])

# tolerances
print(torch.allclose(torch.tensor(1.0), torch.tensor(1.0 + 1e-6)),
      torch.allclose(torch.tensor(1e-9), torch.tensor(0.0)),
      torch.isclose(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), equal_nan=True))
print(torch.isclose(torch.tensor([100.0]), torch.tensor([100.01]), rtol=1e-4, atol=0),
      math.isclose(100.0, 100.01, rel_tol=1e-4))
err(lambda: torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64)))
err(lambda: torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0, 2.0])))
err(lambda: torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.5])))
print(torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-7])))
