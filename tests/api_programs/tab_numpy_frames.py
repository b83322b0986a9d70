"""Turning a numpy "data frame" into model tensors: dtypes from columns, shared memory with from_numpy,
categorical codes, label encoding, promotions and the casts that silently lose information."""

import numpy as np
import torch

torch.manual_seed(0)
rng = np.random.default_rng(0)
n = 8
frame = {
    "age": rng.integers(18, 80, n).astype(np.int32),
    "income": np.array([52e3, np.nan, 71e3, 38e3, np.nan, 90e3, 45e3, 61e3]),
    "score": rng.normal(size=n).astype(np.float32),
    "is_member": np.array([True, False, True, True, False, False, True, False]),
    "plan": np.array(["basic", "pro", "basic", "team", "pro", "basic", "team", "pro"]),
    "visits": np.array([3, 0, 7, 2, 1, 0, 5, 4], dtype=np.uint8),
}
for col, arr in frame.items():
    if arr.dtype.kind in "biuf":
        t = torch.from_numpy(arr)
        print(col, t.dtype, t.shape, t.is_contiguous())
try:
    torch.from_numpy(frame["plan"])
except Exception as e:
    print("strings", type(e).__name__, e)

# categorical codes: np.unique inverse, then a long tensor
levels, codes = np.unique(frame["plan"], return_inverse=True)
plan = torch.as_tensor(codes)
print("levels", list(levels), plan.dtype, plan.tolist())
print("as_tensor int32", torch.as_tensor(codes, dtype=torch.int32).dtype, torch.tensor(codes.tolist()).dtype)

# numeric block: stacking mixed dtypes promotes
num = torch.stack(
    [
        torch.from_numpy(frame["age"]).double(),
        torch.from_numpy(frame["income"]),
        torch.from_numpy(frame["score"]).double(),
    ],
    1,
)
print("num", num.dtype, tuple(num.shape), torch.isnan(num).sum(0).tolist())
print(
    "promote",
    torch.result_type(torch.from_numpy(frame["age"]), 2.5),
    (torch.from_numpy(frame["visits"]) + torch.tensor([1], dtype=torch.int8)).dtype,
    (torch.from_numpy(frame["is_member"]) + 1).dtype,
    (torch.from_numpy(frame["score"]) * np.float64(2.0)).dtype,
)
shared = torch.from_numpy(frame["income"])
frame["income"][1] = 0.0
print("shares memory", shared[1].item(), np.shares_memory(shared.numpy(), frame["income"]))
copied = torch.tensor(frame["income"])
frame["income"][4] = -1.0
print("copy does not", copied[4].item(), shared[4].item())
print("noncontiguous view", torch.from_numpy(np.ascontiguousarray(np.stack([frame["score"]] * 2, 1))[:, 0]).stride())

# casts that lose information
f = torch.tensor([float("nan"), 2.7, -2.7, 300.0])
print("to int64", f[1:].long().tolist(), "to uint8", torch.tensor([3.9, -0.5, 255.0]).to(torch.uint8).tolist())
print(
    "to bool",
    torch.tensor([0.0, 0.1, float("nan")]).bool().tolist(),
    "half",
    torch.tensor([65504.0, 70000.0, 1e-8]).half().tolist(),
)
print("bfloat16", torch.tensor([52e3, 1.001]).bfloat16().tolist())
print(
    "int division",
    (torch.tensor([5, -5]) / 2).tolist(),
    (torch.tensor([5, -5]) // 2).tolist(),
    torch.div(torch.tensor([5, -5]), 2, rounding_mode="trunc").tolist(),
)
print("remainder", torch.remainder(torch.tensor([-5, 5]), 3).tolist(), torch.fmod(torch.tensor([-5, 5]), 3).tolist())

# back to numpy for reporting
X = torch.cat(
    [
        torch.nan_to_num(num, nan=0.0).float(),
        torch.nn.functional.one_hot(plan, 3).float(),
        torch.from_numpy(frame["is_member"]).float()[:, None],
    ],
    1,
)
print("X", X.dtype, tuple(X.shape))
arr = X.numpy()
print("numpy", arr.dtype, arr.shape, np.asarray(X[:, 3:6]).sum(0).tolist())
w = torch.zeros(X.shape[1], requires_grad=True)
try:
    (X @ w).numpy()
except Exception as e:
    print("numpy with grad", type(e).__name__, e)
print("force", (X @ w).numpy(force=True).dtype, (X @ w).detach().cpu().numpy().shape)
print("np ops on tensors", type(torch.ones(2) + np.ones(2)).__name__, float(np.mean(torch.tensor([1.0, 2.0]).numpy())))
print(
    "indexing with numpy",
    torch.arange(5)[np.array([1, 3])].tolist(),
    torch.arange(3)[np.array([True, False, True])].tolist(),
    torch.arange(5)[np.int64(2)].item(),
)
for name, fn in [
    ("int of 2 elements", lambda: int(torch.tensor([3, 4]))),
    ("bool of 2 elements", lambda: bool(torch.tensor([3, 4]))),
    ("len of scalar", lambda: len(torch.tensor(3))),
    ("object array", lambda: torch.tensor(np.array([1, None]))),
    ("None in list", lambda: torch.tensor([1.0, None])),
    ("float index", lambda: torch.arange(3)[torch.tensor(1.0)]),
]:
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
