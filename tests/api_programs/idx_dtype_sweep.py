"""A sweep of the index ops over dtypes in the manner of PyTorch's OpInfo tests: scatter_reduce in every mode with
include_self both ways, index_reduce, index_add with alpha, scatter with the legacy reduce, index_put with
accumulate, put_, gather/take, masked_fill with out-of-range values, searchsorted/bucketize, unique and nonzero over
float16/bfloat16/float32/float64/int8/uint8/int16/int32/int64/bool/complex64, printing values and result dtypes
(or the exact error) for each."""

import torch

torch.manual_seed(0)

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.uint8, torch.int16,
          torch.int32, torch.int64, torch.bool, torch.complex64]
idx = torch.tensor([0, 2, 0, 1, 2, 2])


def show(name, fn):
    try:
        r = fn()
    except Exception as e:
        print(f"  {name}: {type(e).__name__}: {e}")
        return
    if isinstance(r, tuple):
        print(f"  {name}:", [t.tolist() for t in r], [str(t.dtype) for t in r])
    else:
        print(f"  {name}:", r.tolist(), r.dtype)


for dt in DTYPES:
    if dt is torch.bool:
        src = torch.tensor([True, False, True, False, False, True])
    else:
        src = (torch.arange(6) * 3 % 7 - 2).to(dt)
    base = (torch.ones(3) * 2).to(dt)
    print(dt, "src:", src.tolist())
    for red in ("sum", "prod", "mean", "amax", "amin"):
        show(f"scatter_reduce {red}", lambda: base.scatter_reduce(0, idx, src, red))
        show(f"scatter_reduce {red} no self", lambda: base.scatter_reduce(0, idx, src, red, include_self=False))
    for red in ("prod", "mean", "amax", "amin"):
        show(f"index_reduce {red} no self", lambda: base.index_reduce(0, idx, src, red, include_self=False))
    show("index_add", lambda: base.index_add(0, idx, src) if dt is torch.bool else base.index_add(0, idx, src,
                                                                                                  alpha=2))
    show("scatter_add", lambda: base.scatter_add(0, idx, src))
    show("scatter reduce=multiply", lambda: base.scatter(0, idx, src, reduce="multiply"))
    show("scatter value reduce=add", lambda: base.scatter(0, idx, 3, reduce="add"))
    show("index_put accumulate", lambda: base.index_put((idx,), src, accumulate=True))
    show("put_ accumulate", lambda: base.clone().put_(idx, src, accumulate=True))
    show("gather", lambda: src.gather(0, idx))
    show("take", lambda: src.take(idx.flip(0)))
    show("index_fill 5", lambda: base.index_fill(0, idx[:2], 5))
    show("masked_fill 300", lambda: src.masked_fill(idx > 0, 300))
    show("masked_fill -1", lambda: src.masked_fill(idx > 1, -1))
    show("searchsorted", lambda: torch.searchsorted(src.sort().values, src))
    show("bucketize right", lambda: torch.bucketize(src, src.sort().values, right=True))
    show("unique", lambda: torch.unique(src, return_counts=True))
    show("unique_consecutive", lambda: torch.unique_consecutive(src, return_inverse=True))
    show("nonzero", lambda: src.nonzero().flatten())
    show("count_nonzero", lambda: src.count_nonzero())
    show("masked_select", lambda: src.masked_select(idx > 0))
