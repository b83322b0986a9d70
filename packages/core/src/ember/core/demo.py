"""A short tour of ember-core: tensors, elementwise kernels, reductions, matmul and views.

Run `python -m ember.core.demo`.
"""

from __future__ import annotations

import ember.core as E

__all__ = ["main"]


def main() -> None:
    x = E.arange(12, dtype=E.float32).reshape(3, 4)
    print("x =", x, sep="\n")
    print("exp(x / 10) + 1 =", E.exp(x / 10) + 1, sep="\n")
    print("x.sum() =", x.sum().item(), " x.mean(dim=0) =", x.mean(dim=0).tolist())
    values, indices = x.max(dim=1)
    print("x.max(dim=1): values", values.tolist(), "indices", indices.tolist())
    print("x.std(dim=1) =", [round(v, 4) for v in x.std(dim=1).tolist()])

    w = E.ones(4, 2) / 4
    print("x @ w =", x @ w, sep="\n")

    t = x.t()
    print("x.t() shares storage with x:", t.untyped_storage() is x.untyped_storage(),
          " contiguous:", t.is_contiguous(), " stride:", t.stride())
    row = x[1]
    row.mul_(-1)
    print("after x[1].mul_(-1), x[1] =", x[1].tolist(), "(the view wrote through to x)")
    print("sorted x[1]:", x[1].sort().values.tolist(), " topk(2) of x.flatten():", x.flatten().topk(2).values.tolist())
    print("type promotion: int32 + 2.5 ->", (E.tensor([1, 2], dtype=E.int32) + 2.5).dtype,
          " uint8 + int8 ->", (E.tensor([1], dtype=E.uint8) + E.tensor([1], dtype=E.int8)).dtype)


if __name__ == "__main__":
    main()
