"""The torch.autocast API itself, as training frameworks drive it: its state functions (is_autocast_enabled,
get/set_autocast_dtype, is_autocast_cache_enabled, is_autocast_available), the context manager's attributes and
re-entry, the warning and error for unsupported dtypes and devices, nesting with different dtypes, autocast
inside no_grad and checkpointed segments, the cast cache (cache_enabled) seen through a weight reused by two
matmuls, the state's thread locality, and a decorated function called inside and outside a region."""

import threading
import warnings

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def state(tag):
    print(f"{tag}: enabled={torch.is_autocast_enabled('cpu')} dtype={torch.get_autocast_dtype('cpu')} "
          f"cache={torch.is_autocast_cache_enabled()}")


state("start")
print("available:", torch.amp.is_autocast_available("cpu"), torch.amp.is_autocast_available("cuda"))

ac = torch.autocast("cpu", dtype=torch.bfloat16)
print("attributes:", ac.device, ac.fast_dtype, ac._enabled, ac._cache_enabled)
with ac:
    state("inside")
    with torch.autocast("cpu", dtype=torch.float16, cache_enabled=False):
        state("nested fp16")
        print("  linear:", F.linear(torch.randn(2, 3), torch.randn(4, 3)).dtype)
    state("back")
    with torch.autocast("cpu", enabled=False):
        state("disabled")
state("after")
with ac:
    state("re-entered")

# unsupported dtype: a warning, and autocast stays off
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autocast("cpu", dtype=torch.float64):
        state("fp64 request")
        print("  mm:", torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype)
print("warnings:", [str(w.message) for w in caught])
for bad in (lambda: torch.autocast("tpu"), lambda: torch.autocast(device_type=3)):
    try:
        with bad():
            pass
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__ + ":", e)

# set_autocast_enabled / set_autocast_dtype by hand, as some frameworks do
torch.set_autocast_dtype("cpu", torch.float16)
torch.set_autocast_enabled("cpu", True)
state("manual on")
print("  mm:", torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype)
torch.set_autocast_enabled("cpu", False)
torch.set_autocast_dtype("cpu", torch.bfloat16)
torch.clear_autocast_cache()
state("manual off")

# autocast with no_grad and with requires_grad leaves
w = torch.randn(4, 3, requires_grad=True)
x = torch.randn(2, 3)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    y = F.linear(x, w)
print("no_grad:", y.dtype, y.requires_grad, y.grad_fn)
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = F.linear(x, w)
print("grad:", y.dtype, y.requires_grad, type(y.grad_fn).__name__)
y.float().sum().backward()
print("w.grad:", w.grad.dtype, w.grad)

# the cast cache: one float32 leaf weight used twice is cast once per region
w.grad = None
with torch.autocast("cpu", dtype=torch.bfloat16):
    a = x @ w.t()
    b = (x * 2) @ w.t()
    (a.float().sum() + b.float().sum()).backward()
print("cached twice-used weight grad:", w.grad)

# checkpointed segments recompute under the forward's autocast state
block = nn.Sequential(nn.Linear(3, 5), nn.GELU(), nn.Linear(5, 2))
inp = torch.randn(4, 3, requires_grad=True)
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = checkpoint(block, inp, use_reentrant=False)
print("checkpoint:", out.dtype, out)
out.float().pow(2).sum().backward()
print("input grad:", inp.grad.dtype, inp.grad[0])

# the state is thread-local
seen = {}


def worker():
    seen["thread"] = (torch.is_autocast_enabled("cpu"), torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype)


with torch.autocast("cpu", dtype=torch.bfloat16):
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    seen["main"] = (torch.is_autocast_enabled("cpu"), torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype)
print("thread-local:", seen)


# a decorated helper keeps autocast on even when called outside a region, and a nested disable wins
@torch.autocast("cpu", dtype=torch.bfloat16)
def project(t, weight):
    with torch.autocast("cpu", enabled=False):
        exact = t @ weight.t()
    return t @ weight.t(), exact


lo, hi = project(x, w.detach())
print("decorated:", lo.dtype, hi.dtype, round((lo.float() - hi).abs().max().item(), 2))
state("end")
