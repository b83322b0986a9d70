"""Which conversions share memory and which copy, as a simulation that keeps its state in numpy arrays and
steps it with torch: from_numpy/as_tensor/.numpy() views written from both sides, Fortran-ordered and sliced
arrays (their strides), a read-only np.frombuffer image (PyTorch's non-writable warning), broadcast_to arrays,
negative strides and the dtypes from_numpy refuses, .numpy() of a tensor that requires grad (and force=True),
np.asarray/np.array of tensors, and data_ptr/np.shares_memory checks."""

import warnings

import numpy as np
import torch

torch.set_printoptions(precision=4)


def attempt(name, fn):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            r = fn()
            if isinstance(r, torch.Tensor):
                r = f"Tensor {r.dtype} {tuple(r.shape)} {r.stride()}"
            print(f"{name}: {r}")
        except Exception as e:
            print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")
    for w in ws:
        if issubclass(w.category, UserWarning):
            print(f"  {w.category.__name__}: {str(w.message).split('. ')[0]}")


# a 1-D heat rod stepped in place: numpy holds the state, torch does the stencil
rod = np.zeros(8)
rod[3:5] = 100.0
state = torch.from_numpy(rod)
print("shares", state.data_ptr() == rod.ctypes.data, state.dtype, state.is_contiguous())
alpha = 0.25
for step in range(3):
    lap = torch.zeros_like(state)
    lap[1:-1] = state[2:] - 2 * state[1:-1] + state[:-2]
    state += alpha * lap  # in place: rod sees every step
print("rod after 3 steps", np.round(rod, 4).tolist())
rod[0] = -5.0  # numpy writes back into the tensor
print("tensor sees numpy write", state[0].item(), state.sum().round(decimals=4).item())

# as_tensor shares when it can, copies when it must
f32 = torch.as_tensor(rod, dtype=torch.float32)
same = torch.as_tensor(rod)
rod[1] = 42.0
print("as_tensor copy/share", f32[1].item(), same[1].item(), np.shares_memory(same.numpy(), rod))
copied = torch.tensor(rod)
rod[2] = 7.0
print("torch.tensor copies", copied[2].item())

# layouts: Fortran order, slices and transposes keep numpy's strides (in elements)
F = np.asfortranarray(np.arange(12.0).reshape(3, 4))
tF = torch.from_numpy(F)
print("fortran", tF.stride(), tF.is_contiguous(), tF.t().is_contiguous(), F.strides)
sl = torch.from_numpy(np.arange(20.0).reshape(4, 5)[1:, ::2])
print("sliced", tuple(sl.shape), sl.stride(), sl.storage_offset(), sl.tolist()[0])
back = torch.arange(12.0).view(3, 4).t().numpy()
print("numpy of transpose", back.strides, back.flags["C_CONTIGUOUS"], back.flags["F_CONTIGUOUS"])
view = torch.arange(10.0)[2:8:2].numpy()
print("numpy of strided view", view.strides, view.tolist())
col = torch.zeros(3, 3)
col_np = col[:, 1].numpy()
col_np[:] = [1.0, 2.0, 3.0]
print("column written via numpy", col.tolist())

# a read-only buffer, as decoded image bytes arrive
raw = bytes(range(12))
img = np.frombuffer(raw, dtype=np.uint8).reshape(3, 4)
print("writeable", img.flags.writeable)
attempt("from_numpy read-only", lambda: torch.from_numpy(img))
attempt("as_tensor read-only", lambda: torch.as_tensor(img))
attempt("tensor read-only", lambda: torch.tensor(img))
attempt("as_tensor read-only float", lambda: torch.as_tensor(img, dtype=torch.float32))
print("copy fixes it", torch.from_numpy(img.copy()).float().mean().item())
attempt("broadcast_to", lambda: torch.from_numpy(np.broadcast_to(np.arange(3.0), (2, 3))))

# what from_numpy refuses
attempt("negative stride", lambda: torch.from_numpy(np.arange(5.0)[::-1]))
attempt("negative stride 2-D", lambda: torch.from_numpy(np.eye(3)[:, ::-1]))
attempt("np.flip", lambda: torch.from_numpy(np.flip(np.arange(4))))
attempt("np.flip copy", lambda: torch.from_numpy(np.flip(np.arange(4)).copy()))
attempt("ascontiguousarray", lambda: torch.from_numpy(np.ascontiguousarray(np.arange(4)[::-1])))
attempt("torch.flip instead", lambda: torch.from_numpy(np.arange(4)).flip(0))
attempt("object", lambda: torch.from_numpy(np.array([1, None], dtype=object)))
attempt("strings", lambda: torch.from_numpy(np.array(["x", "y"])))
attempt("longdouble", lambda: torch.from_numpy(np.ones(2, dtype=np.longdouble)))
attempt("datetime64", lambda: torch.from_numpy(np.array(["2024-01-01"], dtype="datetime64[D]")))
attempt("big-endian", lambda: torch.from_numpy(np.ones(2, dtype=">f4")))
attempt("not an array", lambda: torch.from_numpy([1.0, 2.0]))
for dt in [np.uint16, np.uint32, np.uint64, np.int8, np.float16, np.complex64, np.bool_]:
    t = torch.from_numpy(np.ones(2, dtype=dt))
    print("from_numpy", np.dtype(dt).name, "->", t.dtype, "| back:", t.numpy().dtype)

# tensors that require grad
w = torch.linspace(-1, 1, 5, requires_grad=True)
attempt("numpy requires_grad", lambda: w.numpy())
attempt("numpy of a result", lambda: (w * 2).numpy())
attempt("np.asarray requires_grad", lambda: np.asarray(w))
attempt("np.array requires_grad", lambda: np.array(w * 2))
forced = w.numpy(force=True)
forced[0] = 99.0
print("force=True shares", w[0].item(), forced.dtype)
det = w.detach().numpy()
det[1] = -99.0
print("detach shares", w[1].item(), w.requires_grad)
with torch.no_grad():
    print("numpy under no_grad", type(w.numpy()).__name__)
attempt("bfloat16", lambda: torch.ones(2, dtype=torch.bfloat16).numpy())
attempt("bfloat16 force", lambda: torch.ones(2, dtype=torch.bfloat16).numpy(force=True))
z = torch.tensor([1 + 2j, 3 - 4j])
attempt("conj view", lambda: z.conj().numpy())
print("conj force", z.conj().numpy(force=True).tolist(), z.conj().imag.numpy(force=True).tolist())

# np.asarray / np.array of plain tensors
t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
a1 = np.asarray(t)
a2 = np.array(t)
a3 = np.array(t, dtype=np.float64)
a1[0, 0] = 50.0
a2[0, 1] = 60.0
print("asarray shares, array copies", t[0].tolist(), a3.dtype, a3.sum())
print("np.asarray dtypes", np.asarray(torch.tensor([1, 2], dtype=torch.int16)).dtype,
      np.asarray(torch.tensor([True])).dtype, np.asarray(torch.tensor([1.0], dtype=torch.float16)).dtype,
      np.asarray(torch.tensor([1j])).dtype, np.asarray(torch.tensor(3.5)).shape)
print("shares_memory", np.shares_memory(t.numpy(), a1), np.shares_memory(t.numpy(), a2),
      np.shares_memory(t.numpy(), t.clone().numpy()), np.shares_memory(t.numpy(), t.view(-1).numpy()))
