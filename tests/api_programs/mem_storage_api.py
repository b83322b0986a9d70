"""The storage API as older library code and serialization helpers use it: untyped_storage() bytes, slicing,
fill_/copy_/clone and their size checks, _cdata and data_ptr identity between views, Tensor.storage() as a
TypedStorage (type(), pickle_storage_type(), casts, isinstance against the legacy classes, writes reaching the
tensor), legacy FloatStorage/LongStorage constructors and from_buffer, set_ onto storages, and sharing."""

import warnings

import numpy as np
import torch

warnings.simplefilter("ignore")  # TypedStorage's deprecation warning
torch.manual_seed(0)


def attempt(name, fn):
    try:
        print(f"{name}: {fn()}")
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


x = torch.tensor([1.0, -2.0, 0.5, 4.0])
u = x.untyped_storage()
print("untyped:", type(u).__name__, "nbytes", u.nbytes(), "len", len(u), "element_size", u.element_size())
print("bytes of 1.0:", list(u)[:4], "byte 3:", u[3])
print("slice:", type(u[4:8]).__name__, u[4:8].tolist(), "aliases:", u[4:8].data_ptr() == u.data_ptr() + 4)
w = u[4:8]
w[3] = 64
print("write through a storage slice:", x.tolist(), "clamped slice nbytes:", u[10:20].nbytes(), u[-4:].nbytes())
attempt("step slice", lambda: u[::2])
print("same object per call:", x.untyped_storage() is x.untyped_storage())
print("view _cdata equal:", x[1:].untyped_storage()._cdata == u._cdata, "clone:",
      x.clone().untyped_storage()._cdata == u._cdata)
print("data_ptr of view storage:", x[2:].untyped_storage().data_ptr() == x.data_ptr(),
      "offset bytes:", x[2:].data_ptr() - x.data_ptr())
print("device:", u.device, "is_cuda:", u.is_cuda, "get_device:", u.get_device(), "pinned:", u.is_pinned())
print("type():", u.type())

b = torch.zeros(8, dtype=torch.uint8).untyped_storage()
print("fill_:", b.fill_(7).tolist())
b[0] = 255
print("setitem:", b.tolist())
attempt("copy_ size mismatch", lambda: b.copy_(torch.zeros(2, dtype=torch.uint8).untyped_storage()))
b.copy_(torch.arange(8, dtype=torch.uint8).untyped_storage())
print("copy_:", b.tolist())
c = b.clone()
c[1] = 100
print("clone independent:", b[1], c[1])
print("UntypedStorage(4) nbytes:", torch.UntypedStorage(4).nbytes())
print("UntypedStorage(list):", torch.UntypedStorage([1, 2, 3]).tolist())
print("from_buffer:", torch.UntypedStorage.from_buffer(b"\x01\x02\x03\x04", "big", dtype=torch.int16).tolist())
attempt("from_buffer without dtype", lambda: torch.UntypedStorage.from_buffer(b"\x01\x02"))
print("reinterpret int16:", torch.empty(0, dtype=torch.int16).set_(torch.UntypedStorage([1, 0, 0, 1])).tolist())

# TypedStorage through Tensor.storage()
s = x.storage()
print("typed:", type(s).__name__, "dtype", s.dtype, "size", s.size(), "len", len(s), "nbytes", s.nbytes())
print("isinstance Float/Double/Typed:", isinstance(s, torch.FloatStorage), isinstance(s, torch.DoubleStorage),
      isinstance(s, torch.TypedStorage), torch.is_storage(s), torch.is_storage(x))
print("type():", s.type(), "pickle type:", s.pickle_storage_type(), "storage_type:", x.storage_type())
print("tolist:", s.tolist(), "item 1:", s[1], "data_ptr equal:", s.data_ptr() == x.data_ptr())
print("_untyped_storage is untyped_storage():", s._untyped_storage is x.untyped_storage(),
      "untyped() is:", s.untyped() is x.untyped_storage())
print(repr(s))
for name in ["double", "half", "int", "long", "bool", "byte", "bfloat16", "complex_float"]:
    t = getattr(s, name)()
    print(f"{name}(): {t.dtype} {t.tolist()} copy={t.data_ptr() != s.data_ptr()}")
print("float() copies too:", s.float() is not s and s.float().data_ptr() != s.data_ptr())
attempt("type('torch.IntStorage')", lambda: s.type("torch.IntStorage").tolist())
print("type('torch.ByteStorage'):", s.type("torch.ByteStorage").tolist())
print("type(torch.CharStorage):", s.type(torch.CharStorage).tolist())
print("types by dtype:", [torch.zeros(1, dtype=d).storage().type() for d in
                          (torch.int64, torch.bool, torch.uint8, torch.int8, torch.int16, torch.float16,
                           torch.bfloat16, torch.float64, torch.complex64, torch.complex128)])
s[0] = 10.0
print("write through storage:", x.tolist())
s.fill_(3.0)
print("fill_ through storage:", x.tolist())
s.copy_(torch.FloatStorage([4, 3, 2, 1]))
print("copy_ through storage:", x.tolist())
attempt("typed copy_ mismatch", lambda: s.copy_(torch.FloatStorage([1, 2])))
attempt("typed slice", lambda: s[0:2])
cl = s.clone()
cl[0] = -1.0
print("clone independent:", x[0].item(), cl[0], "clone type:", type(cl).__name__)
print("cpu() same memory:", s.cpu().data_ptr() == s.data_ptr(), "is_cuda:", s.is_cuda, "get_device:",
      s.get_device())
print("view's storage spans the base:", x[2:].storage().size(), "offset:", x[2:].storage_offset())

# legacy constructors
f = torch.FloatStorage([1, 2, 3])
print("FloatStorage:", type(f).__name__, f.dtype, f.tolist())
print(repr(torch.LongStorage([5, 6])))
print("IntStorage(3):", torch.IntStorage(3).size(), torch.IntStorage(3).dtype)
print("TypedStorage(dtype=int16):", torch.TypedStorage([1, -1], dtype=torch.int16).tolist())
print("FloatStorage.dtype:", torch.FloatStorage.dtype, "subclass:", issubclass(torch.FloatStorage, torch.TypedStorage))
print("from_buffer little:", torch.FloatStorage.from_buffer(b"\x00\x00\x80\x3f\x00\x00\x00\xc0", "little").tolist())
print("from_buffer big:", torch.ShortStorage.from_buffer(b"\x00\x01\x01\x00", "big").tolist())

# set_ onto storages
t = torch.empty(0)
t.set_(f)
print("set_(typed):", t.tolist(), "shares:", t.data_ptr() == f.data_ptr())
t.set_(f, 1, (2,), (1,))
print("set_(typed, 1, (2,), (1,)):", t.tolist())
t[0] = 20.0
print("storage sees:", f.tolist())
t2 = torch.empty(0).set_(x.untyped_storage(), 0, (2, 2), (1, 2))
print("set_(untyped) transposed view:", t2.tolist(), t2.stride())
grown = torch.empty(0).set_(f, 2, (3,), (1,))
print("set_ past the end grows the storage:", tuple(grown.shape), f.nbytes(), "first:", grown[0].item())
attempt("set_ past a numpy array's end", lambda: torch.empty(0).set_(
    torch.from_numpy(np.zeros(3, dtype=np.float32)).untyped_storage(), 2, (3,), (1,)))
attempt("resize_ of a numpy array's tensor", lambda: torch.from_numpy(np.zeros(3, dtype=np.float32)).resize_(10))
print("resizable:", x.untyped_storage().resizable(),
      torch.from_numpy(np.zeros(2)).untyped_storage().resizable())
attempt("set_ wrong dtype", lambda: torch.empty(0).set_(torch.zeros(2, dtype=torch.float64)))

# sharing
sh = torch.zeros(3)
st = sh.storage()
print("is_shared:", st.is_shared(), "share_memory_ returns self:", st.share_memory_() is st,
      "now:", st.is_shared(), sh.is_shared())
print("_new_shared:", torch.FloatStorage._new_shared(4).is_shared())
