"""torch.set_printoptions as users reach for it: precision for logs, sci_mode forced on and off, narrow
linewidths, threshold/edgeitems summaries (edgeitems=0 included), the three profiles, and saving/restoring the
options through torch._tensor_str (PRINT_OPTS, get_printoptions, the printoptions context manager)."""

import torch
import torch._tensor_str as ts

torch.manual_seed(0)
scales = torch.tensor([1e-3, 1.0, 1e3, 1e5])
x = torch.randn(3, 4) * scales
ints = torch.arange(-5, 7).reshape(3, 4) * 37
flags = torch.randn(2, 5) > 0
z = torch.complex(torch.randn(3), torch.randn(3))
ramp = torch.arange(40.0) / 7


def show(title):
    print(f"== {title} | {ts.get_printoptions()}")
    print(x)
    print(ramp)
    print(ints, flags)
    print(z, torch.tensor(3.14159265), torch.tensor([0.5, -0.0]))


show("defaults")
for kw in [
    dict(precision=2),
    dict(precision=0),
    dict(precision=8),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(precision=3, sci_mode=False),
    dict(linewidth=36),
    dict(linewidth=150),
    dict(threshold=20),
    dict(threshold=20, edgeitems=1),
    dict(threshold=5, edgeitems=0),
    dict(edgeitems=0),
    dict(profile="short"),
    dict(profile="full"),
    dict(profile="short", precision=6),
]:
    torch.set_printoptions(**kw)
    show(kw)
    torch.set_printoptions(profile="default")

# sci_mode is reset to None by every call that does not name it
torch.set_printoptions(sci_mode=True)
print(ts.PRINT_OPTS.sci_mode, torch.tensor([1.5, 2.5]))
torch.set_printoptions(precision=3)
print(ts.PRINT_OPTS.sci_mode, torch.tensor([1.5, 2.5]))
torch.set_printoptions(profile="default")

# the options as an object: read, set, restore
print(ts.PRINT_OPTS)
saved = dict(vars(ts.PRINT_OPTS))
print(sorted(saved))
ts.PRINT_OPTS.precision = 2
ts.PRINT_OPTS.linewidth = 40
print(torch.linspace(0, 1, 12))
torch.set_printoptions(**saved)
print(torch.linspace(0, 1, 12))
print(ts.get_printoptions() == saved)

# the context manager used around a single debug print
with ts.printoptions(precision=1, threshold=6, edgeitems=2):
    print(torch.randn(4, 6))
    print(ts.PRINT_OPTS.precision, ts.PRINT_OPTS.threshold)
print(ts.PRINT_OPTS.precision, ts.PRINT_OPTS.threshold)
try:
    with ts.printoptions(sci_mode=True):
        print(torch.tensor([10.0, 20.0]))
        raise KeyError("inside")
except KeyError as e:
    print("caught", e, ts.PRINT_OPTS.sci_mode, torch.tensor([10.0, 20.0]))

# a threshold of inf prints everything (the 'full' profile's value)
torch.set_printoptions(threshold=float("inf"))
print(ts.PRINT_OPTS.threshold, torch.arange(1002)[-4:], len(str(torch.arange(1100))))
torch.set_printoptions(profile="default")
print(len(str(torch.arange(1100))), str(torch.arange(1100))[-30:])

# wide rows wrap within a summarised matrix; suffixes wrap at the linewidth
torch.set_printoptions(linewidth=50)
print(torch.arange(2400.0).reshape(40, 60) / 3)
print(torch.randn(2, 4, dtype=torch.float64, requires_grad=True) * 2)
torch.set_printoptions(linewidth=30)
print(torch.ones(2, 3, dtype=torch.float16, requires_grad=True).sum(0))
torch.set_printoptions(profile="default")

# per-dtype: the precision applies to every floating dtype, never to integers
torch.set_printoptions(precision=2)
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.int32, torch.uint8]:
    print(dt, torch.tensor([1.23456, 100.5, 7.0]).to(dt))
torch.set_printoptions(profile="default")
print(torch.tensor([1.23456, 100.5, 7.0]))
