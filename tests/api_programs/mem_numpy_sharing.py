"""Memory shared with numpy as data-loading and interop code relies on it: from_numpy/numpy()/as_tensor/asarray
sharing both ways (writes and in-place ops visible on the other side), which conversions copy (torch.tensor,
dtype changes, non-contiguous numpy inputs, .numpy() of views keeping strides), numpy's strides in bytes against
torch's in elements, negative-stride and non-writeable arrays, detach()/numpy(force=True), share_memory_ keeping
values, and np.shares_memory checks."""

import warnings

import numpy as np
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def attempt(name, fn):
    try:
        print(f"{name}: {fn()}")
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


a = np.arange(12, dtype=np.float32).reshape(3, 4)
t = torch.from_numpy(a)
print("from_numpy:", t.dtype, tuple(t.shape), t.stride(), "numpy strides:", a.strides)
a[0, 0] = 100.0
t[1].mul_(-1)
t.add_(0.5)
print("tensor sees numpy write:", t[0, 0].item(), "numpy sees tensor ops:", a[1].tolist())
n = t.numpy()
print("numpy() shares:", np.shares_memory(n, a), "same ptr:", n.ctypes.data == a.ctypes.data == t.data_ptr())

# views keep strides on the way out
tv = t.t()
nv = tv.numpy()
print("t().numpy() strides:", nv.strides, "c-contig:", nv.flags.c_contiguous, "shares:", np.shares_memory(nv, a))
sl = t[:, 1::2].numpy()
print("slice numpy strides:", sl.strides, sl.tolist())
ex = torch.zeros(1, 3).expand(4, 3).numpy()
print("expand numpy strides:", ex.strides, ex.shape)

# numpy views into torch
b = np.arange(20, dtype=np.int64).reshape(4, 5)
tb = torch.from_numpy(b[:, ::2])
print("strided numpy view:", tuple(tb.shape), tb.stride(), tb.storage_offset(), tb.is_contiguous())
tf = torch.from_numpy(np.asfortranarray(b))
print("fortran order:", tf.stride(), tf.is_contiguous(), tf.t().is_contiguous())
tb[0, 0] = -1
print("write into strided view reaches numpy:", b[0, 0])
attempt("negative strides", lambda: torch.from_numpy(b[::-1]))
print("copy() fixes it:", torch.from_numpy(b[::-1].copy())[0].tolist())
ro = np.zeros(3)
ro.flags.writeable = False
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    tro = torch.from_numpy(ro)
print("non-writeable warns:", len(w) > 0, "shape:", tuple(tro.shape))

# which conversions copy
c = np.ones(4, dtype=np.float64)
for name, fn in [("torch.tensor", lambda: torch.tensor(c)), ("as_tensor", lambda: torch.as_tensor(c)),
                 ("asarray", lambda: torch.asarray(c)),
                 ("as_tensor float32", lambda: torch.as_tensor(c, dtype=torch.float32)),
                 ("asarray copy=True", lambda: torch.asarray(c, copy=True)),
                 ("from_numpy", lambda: torch.from_numpy(c)), ("Tensor(c)", lambda: torch.Tensor(c))]:
    r = fn()
    print(f"{name:18s} dtype={r.dtype} shares={np.shares_memory(r.numpy(), c)}")
attempt("asarray copy=False dtype change", lambda: torch.asarray(c, dtype=torch.float32, copy=False))

# dtypes through numpy
for dt in [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
           np.complex64]:
    arr = np.zeros(2, dtype=dt)
    tt = torch.from_numpy(arr)
    print(f"{np.dtype(dt).name:10s} -> {tt.dtype} itemsize={tt.itemsize} back={tt.numpy().dtype}")
attempt("uint16", lambda: torch.from_numpy(np.zeros(2, dtype=np.uint16)).dtype)
attempt("object", lambda: torch.from_numpy(np.zeros(2, dtype=object)))
attempt("big-endian", lambda: torch.from_numpy(np.zeros(2, dtype=">f4")))

# autograd and numpy
p = torch.randn(3, requires_grad=True)
attempt("numpy() of requires_grad", lambda: p.numpy())
d = p.detach().numpy()
d[0] = 42.0
print("detach().numpy() shares with the parameter:", round(p[0].item(), 4))
f = p.numpy(force=True)
f[1] = 7.0
print("numpy(force=True) shares here too:", round(p[1].item(), 4))
attempt("bfloat16 numpy", lambda: torch.ones(2, dtype=torch.bfloat16).numpy())
print("bfloat16 via float:", torch.ones(2, dtype=torch.bfloat16).float().numpy().tolist())
z = torch.tensor([1 + 2j], dtype=torch.complex64)
attempt("conj view numpy", lambda: z.conj().numpy())
print("resolve_conj numpy:", z.conj().resolve_conj().numpy().tolist())

# share_memory_ keeps values and numpy sharing
s = torch.from_numpy(np.arange(4.0))
before = s.data_ptr()
s.share_memory_()
print("shared:", s.is_shared(), "values:", s.tolist(), "moved:", s.data_ptr() != before)
g = torch.arange(6.0).view(2, 3)
arr = g.numpy()
g.resize_(3, 2)
print("after resize_ (same bytes):", np.shares_memory(arr, g.numpy()), g.tolist())
print("np.asarray(tensor) shares:", np.shares_memory(np.asarray(g), g.numpy()))
print("array(tensor) copies:", np.shares_memory(np.array(g), g.numpy()))
print("tensor.tolist vs numpy:", g.tolist() == g.numpy().tolist())
