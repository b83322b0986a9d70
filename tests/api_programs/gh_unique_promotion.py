"""GitHub issues about torch.unique's options (sorted, return_inverse, return_counts, dim, unique_consecutive),
type promotion between 0-dim tensors, Python scalars and dimensioned tensors, and integer division semantics
(floor_divide, remainder, fmod on negatives, int / int, overflow, division by zero)."""

import numpy as np
import torch


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: {out.dtype} {tuple(out.shape)} {out.tolist()}")
    elif isinstance(out, tuple):
        parts = [(o.dtype, o.tolist()) if isinstance(o, torch.Tensor) else o for o in out]
        print(f"{name}: {len(out)} {parts}")
    else:
        print(f"{name}: {out}")


v = torch.tensor([3, 1, 2, 3, 1, 1, 5])
show("unique", lambda: torch.unique(v))
show("unique unsorted", lambda: torch.unique(v, sorted=False).sort().values)
show("unique inverse", lambda: torch.unique(v, return_inverse=True))
show("unique counts", lambda: torch.unique(v, return_counts=True))
show("unique both", lambda: v.unique(return_inverse=True, return_counts=True))
show("inverse reconstructs", lambda: torch.equal(torch.unique(v, return_inverse=True)[0][
    torch.unique(v, return_inverse=True)[1]], v))
m = torch.tensor([[1, 2], [3, 4], [1, 2], [0, 9], [3, 4]])
show("unique dim0", lambda: torch.unique(m, dim=0))
show("unique dim0 all", lambda: torch.unique(m, dim=0, return_inverse=True, return_counts=True))
show("unique dim1", lambda: torch.unique(torch.tensor([[1, 1, 2], [5, 5, 0]]), dim=1, return_counts=True))
show("unique 2d flat", lambda: torch.unique(m, return_inverse=True)[1])
show("unique float", lambda: torch.unique(torch.tensor([0.5, -0.0, 0.0, 0.5, 2.0])))
show("unique bool", lambda: torch.unique(torch.tensor([True, False, True]), return_counts=True))
show("unique empty", lambda: torch.unique(torch.tensor([], dtype=torch.long), return_inverse=True,
                                          return_counts=True))
show("unique dim empty", lambda: torch.unique(torch.empty(0, 2), dim=0))
show("unique bad dim", lambda: torch.unique(m, dim=2))
show("unique_consecutive", lambda: torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])))
show("unique_consecutive all", lambda: torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]),
                                                                  return_inverse=True, return_counts=True))
show("unique_consecutive dim", lambda: torch.unique_consecutive(m, dim=0))
show("np agree", lambda: np.unique(v.numpy(), return_counts=True)[1].tolist() == v.unique(return_counts=True)[1]
     .tolist())
vals, counts = torch.unique(torch.tensor([4, 4, 2, 7, 2, 4]), return_counts=True)
show("most common", lambda: vals[counts.argmax()])
show("unique with grad", lambda: torch.unique(torch.tensor([1.0, 1.0], requires_grad=True)).requires_grad)

# promotion: 0-dim tensors are like scalars of their category
i8 = torch.tensor([1, 2], dtype=torch.int8)
f16 = torch.tensor([1.0, 2.0], dtype=torch.float16)
pairs = [
    ("int8 + int64 0-dim", lambda: i8 + torch.tensor(1000)),
    ("int8 + py int", lambda: i8 + 1000),
    ("int8 + float 0-dim", lambda: i8 + torch.tensor(1.5, dtype=torch.float64)),
    ("int8 + py float", lambda: i8 + 1.5),
    ("f16 + f64 0-dim", lambda: f16 + torch.tensor(1.0, dtype=torch.float64)),
    ("f16 + f64 1-elem", lambda: f16 + torch.tensor([1.0], dtype=torch.float64)),
    ("f16 + py float", lambda: f16 + 1e5),
    ("f16 + complex", lambda: f16 + 1j),
    ("0-dim + 0-dim", lambda: torch.tensor(1, dtype=torch.int8) + torch.tensor(1.0, dtype=torch.float64)),
    ("0-dim int + 0-dim int", lambda: torch.tensor(1, dtype=torch.int8) + torch.tensor(1, dtype=torch.int32)),
    ("bool + py bool", lambda: torch.tensor([True]) + True),
    ("bool * 0-dim int", lambda: torch.tensor([True]) * torch.tensor(3)),
    ("uint8 - int8", lambda: torch.tensor([1], dtype=torch.uint8) - torch.tensor([2], dtype=torch.int8)),
    ("uint8 + 0-dim int8", lambda: torch.tensor([1], dtype=torch.uint8) + torch.tensor(-2, dtype=torch.int8)),
    ("int / int", lambda: torch.tensor([7, -7]) / 2),
    ("int / int tensor", lambda: torch.tensor([7, -7]) / torch.tensor([2, 2])),
    ("int // int", lambda: torch.tensor([7, -7]) // 2),
    ("int // float", lambda: torch.tensor([7, -7]) // 2.0),
    ("int ** float", lambda: torch.tensor([2, 3]) ** 0.5),
    ("int ** neg int", lambda: torch.tensor([2, 3]) ** -1),
    ("float ** int tensor", lambda: 2 ** torch.tensor([1, 2])),
    ("int tensor ** int tensor", lambda: torch.tensor([2]) ** torch.tensor([3], dtype=torch.int8)),
    ("long * np.float64", lambda: torch.tensor([1, 2]) * np.float64(1.5)),
    ("float32 * np.float64 array", lambda: torch.tensor([1.0]) * torch.from_numpy(np.array(2.0))),
    ("result_type", lambda: (torch.result_type(i8, 1.0), torch.result_type(torch.tensor(1), i8),
                             torch.promote_types(torch.uint8, torch.int8), torch.can_cast(torch.float32,
                                                                                          torch.int32))),
    ("where scalars", lambda: torch.where(torch.tensor([True, False]), 1, 0)),
    ("where scalar float", lambda: torch.where(torch.tensor([True, False]), 1.0, 0)),
    ("where tensor scalar", lambda: torch.where(torch.tensor([True, False]), i8, 2.5)),
    ("where f16 0-dim f64", lambda: torch.where(torch.tensor([True, False]), f16, torch.tensor(2.0,
                                                                                              dtype=torch.float64))),
    ("where int32 py int", lambda: torch.where(torch.tensor([True]), torch.tensor([1], dtype=torch.int32), 5)),
    ("where bad cond", lambda: torch.where(torch.tensor([1, 0]), 1.0, 0.0)),
    ("where cond only", lambda: torch.where(torch.tensor([[0, 3], [2, 0]]))),
    ("clamp int with float", lambda: torch.clamp(torch.tensor([1, 5, 9]), min=2.5)),
    ("clamp int with int", lambda: torch.clamp(torch.tensor([1, 5, 9]), 2, 6)),
    ("add_ alpha float on int", lambda: torch.tensor([1, 2]).add(torch.tensor([1, 1]), alpha=0.5)),
    ("sum int8", lambda: i8.sum()),
    ("sum bool", lambda: torch.tensor([True, True]).sum()),
    ("mean int", lambda: torch.tensor([1, 2]).mean()),
    ("mean int dtype", lambda: torch.tensor([1, 2]).mean(dtype=torch.float32)),
    ("prod int8", lambda: torch.tensor([100, 100], dtype=torch.int8).prod()),
    ("cumsum int8", lambda: torch.tensor([100, 100], dtype=torch.int8).cumsum(0)),
]
for name, fn in pairs:
    show(name, fn)

# integer division on negatives and overflow
a = torch.tensor([7, -7, 7, -7, -8])
b = torch.tensor([3, 3, -3, -3, 3])
show("floor_divide", lambda: torch.floor_divide(a, b))
show("div trunc", lambda: torch.div(a, b, rounding_mode="trunc"))
show("div floor", lambda: torch.div(a, b, rounding_mode="floor"))
show("div true", lambda: torch.div(a, b))
show("remainder", lambda: torch.remainder(a, b))
show("fmod", lambda: torch.fmod(a, b))
show("python %", lambda: [x % y for x, y in zip(a.tolist(), b.tolist())])
show("remainder scalar first", lambda: torch.remainder(-7, torch.tensor([3, -3])))
show("float remainder", lambda: torch.remainder(torch.tensor([-7.5, 7.5]), 2.0))
show("float fmod", lambda: torch.fmod(torch.tensor([-7.5, 7.5]), 2.0))
show("div by zero int", lambda: torch.tensor([1]) // torch.tensor([0]))
show("remainder by zero int", lambda: torch.tensor([1]) % torch.tensor([0]))
show("div by zero float", lambda: torch.tensor([1.0, -1.0, 0.0]) / 0)
show("floor_divide float zero", lambda: torch.tensor([1.0, -1.0, 0.0]) // 0.0)
show("int min // -1", lambda: torch.tensor([-(2 ** 63)]) // -1)
show("int32 overflow", lambda: torch.tensor([2 ** 31 - 1], dtype=torch.int32) + 1)
show("uint8 neg", lambda: torch.tensor([0], dtype=torch.uint8) - 1)
show("int64 pow overflow", lambda: torch.tensor([10]) ** 19)
show("abs int min", lambda: torch.tensor([-128], dtype=torch.int8).abs())
show("neg uint8", lambda: -torch.tensor([1, 200], dtype=torch.uint8))
show("float to int cast", lambda: torch.tensor([-1.7, 1.7, 2.5]).long())
show("float to uint8 cast", lambda: torch.tensor([3.9, 255.0]).to(torch.uint8))
show("round half even", lambda: torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])))
show("round decimals", lambda: torch.round(torch.tensor([1.2345, 2.5551]), decimals=2))
show("int tensor from big float", lambda: torch.tensor([3.0e9]).int().dtype)
show("tensor from big int", lambda: torch.tensor([2 ** 63]))
show("tensor from big int list", lambda: torch.tensor([1, 2 ** 62]).dtype)
show("item of int8 sum", lambda: type(torch.tensor([1], dtype=torch.int8).sum().item()).__name__)
