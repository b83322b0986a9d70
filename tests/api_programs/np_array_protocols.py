"""The array protocols at the numpy/torch border, as I/O and glue code meets them: torch.asarray (sharing,
copy=, dtype= and its aliasing error, Python buffers read in the default dtype), torch.frombuffer over
bytearray/bytes/array.array with count and offset (and its length errors), torch.tensor of memoryview and
array.array, objects that only numpy understands (__array__, __array_interface__), numpy ufuncs and their
reduce/accumulate on tensors (results wrapped back as tensors, booleans as uint8), 0-d conversions, and the
`t != array` gotcha next to `t == array`."""

import array
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
                r = f"Tensor {str(r.dtype).replace('torch.', '')} {tuple(r.shape)} {r.tolist()}"
            elif isinstance(r, np.ndarray):
                r = f"ndarray {r.dtype} {r.tolist()}"
            print(f"{name:<28} {r}")
        except Exception as e:
            print(f"{name:<28} {type(e).__name__}: {str(e).splitlines()[0][:110]}")
    for w in ws:
        if issubclass(w.category, UserWarning):
            print(f"{'':<28} warns: {str(w.message).split('. ')[0]}")


print("-- torch.asarray")
a = np.arange(6, dtype=np.float32).reshape(2, 3)
shared = torch.asarray(a)
copied = torch.asarray(a, copy=True)
a[0, 0] = 50.0
print("share / copy", shared[0, 0].item(), copied[0, 0].item(), shared.data_ptr() == a.ctypes.data)
attempt("dtype=float64", lambda: torch.asarray(a, dtype=torch.float64)[0])
attempt("copy=False, new dtype", lambda: torch.asarray(a, dtype=torch.float64, copy=False))
attempt("tensor, copy=False", lambda: torch.asarray(shared, copy=False) is shared)
attempt("np scalars list", lambda: torch.asarray([np.float32(1), np.float32(2.5)]))
attempt("np scalar", lambda: torch.asarray(np.int16(4)))
attempt("requires_grad", lambda: torch.asarray(a, requires_grad=True).requires_grad)
attempt("negative strides", lambda: torch.asarray(np.arange(3)[::-1]))
attempt("read-only array", lambda: torch.asarray(np.broadcast_to(np.arange(3), (2, 3))))
attempt("array.array('f')", lambda: torch.asarray(array.array("f", [1.0, 2.0])))
buf = array.array("d", [1.5, 2.5, 3.5])
as64 = torch.asarray(buf, dtype=torch.float64)
buf[0] = -1.0
attempt("array.array('d') shared", lambda: as64)
attempt("array.array('d') default", lambda: torch.asarray(buf)[:2])
attempt("memoryview (2 bytes)", lambda: torch.asarray(memoryview(bytearray(b"\x01\x02"))))
attempt("bytearray as uint8", lambda: torch.asarray(bytearray(b"\x01\x02"), dtype=torch.uint8))

print("-- torch.frombuffer")
raw = bytearray(range(8))
attempt("int16", lambda: torch.frombuffer(raw, dtype=torch.int16))
attempt("count/offset", lambda: torch.frombuffer(raw, dtype=torch.uint8, count=3, offset=2))
attempt("bytes (read-only)", lambda: torch.frombuffer(b"\x00\x00\x80\x3f", dtype=torch.float32))
view = torch.frombuffer(raw, dtype=torch.uint8)
raw[0] = 200
view[1] = 100
print("shares both ways", view[:2].tolist(), list(raw[:2]))
attempt("odd length", lambda: torch.frombuffer(bytearray(7), dtype=torch.int32))
attempt("offset not multiple", lambda: torch.frombuffer(bytearray(7), dtype=torch.int16, offset=2))
attempt("count too big", lambda: torch.frombuffer(bytearray(8), dtype=torch.int32, count=3))
attempt("count zero", lambda: torch.frombuffer(bytearray(8), dtype=torch.int32, count=0))
attempt("offset past end", lambda: torch.frombuffer(bytearray(4), dtype=torch.uint8, offset=9))
attempt("empty", lambda: torch.frombuffer(bytearray(), dtype=torch.uint8))
attempt("array.array doubles", lambda: torch.frombuffer(array.array("d", [0.5, 0.25]), dtype=torch.float64))
attempt("not a buffer", lambda: torch.frombuffer([1, 2], dtype=torch.uint8))

print("-- torch.tensor / as_tensor of other objects")
attempt("tensor(array.array)", lambda: torch.tensor(array.array("i", [1, 2])))
attempt("tensor(memoryview)", lambda: torch.tensor(memoryview(np.arange(3.0))))
attempt("tensor(range)", lambda: torch.tensor(range(2, 5)))


class OnlyArray:
    def __array__(self, dtype=None, copy=None):
        return np.array([1.5, 2.5], dtype=np.float32)


class OnlyInterface:
    def __init__(self):
        self._a = np.arange(3, dtype=np.int16)
        self.__array_interface__ = self._a.__array_interface__


attempt("tensor(__array__ only)", lambda: torch.tensor(OnlyArray()))
attempt("as_tensor(__array__ only)", lambda: torch.as_tensor(OnlyArray()))
attempt("tensor(interface only)", lambda: torch.tensor(OnlyInterface()))
attempt("via np.asarray first", lambda: torch.as_tensor(np.asarray(OnlyInterface())))
attempt("from_numpy(np.asarray())", lambda: torch.from_numpy(np.asarray(OnlyArray())))

print("-- numpy ufuncs on tensors")
t = torch.arange(1.0, 5.0)
attempt("np.add(t, 1)", lambda: np.add(t, 1))
attempt("np.negative", lambda: np.negative(t))
attempt("np.multiply.reduce", lambda: np.multiply.reduce(t))
attempt("np.add.accumulate", lambda: np.add.accumulate(t))
attempt("np.maximum.reduce int", lambda: np.maximum.reduce(torch.tensor([3, 9, 2])))
attempt("np.sin float16", lambda: np.sin(torch.tensor([1.0], dtype=torch.float16)))
attempt("np.isfinite", lambda: np.isfinite(torch.tensor([1.0, float("inf")])))
attempt("np.equal", lambda: np.equal(t, t))
attempt("np.floor of ints", lambda: np.floor(torch.tensor([1, 2])))
attempt("np.add(t, t)", lambda: np.add(t, t))
attempt("np.matmul(t, t)", lambda: np.matmul(t, t))
attempt("np.outer", lambda: np.outer(t[:2], t[:2]))
attempt("np.linalg.inv", lambda: np.linalg.inv(torch.eye(2) * 2))
attempt("np.fft.fft", lambda: np.fft.fft(torch.ones(2)))
attempt("np.cumsum ints", lambda: np.cumsum(torch.tensor([1, 2, 3])))
attempt("np.sqrt requires_grad", lambda: np.sqrt(torch.ones(2, requires_grad=True)))
out = t.clone()
np.add(out.numpy(), 10, out=out.numpy())
attempt("ufunc out= on .numpy()", lambda: out)

print("-- 0-d conversions")
s = torch.tensor(2.5)
attempt("np.array(0-d)", lambda: np.array(s))
print("  item type", type(np.array(s)[()]).__name__, "ndim", s.numpy().ndim, "float()", float(np.asarray(s)))
attempt("np.float64 * 0-d", lambda: np.float64(2) * s)
attempt("np.sum(list of 0-d)", lambda: float(np.sum([torch.tensor(1.5), torch.tensor(2.5)])))
attempt("np.max(list of 1-d)", lambda: float(np.max([torch.ones(2), torch.zeros(2)])))
attempt("list with grad", lambda: np.array([torch.ones(1, requires_grad=True)]))

print("-- == and != with arrays")
pred = torch.tensor([1, 0, 2, 2])
labels = np.array([1, 1, 2, 0])
print("t == array", (pred == labels).tolist(), "array == t", (labels == pred).tolist())
print("t != array", pred != labels, "array != t", labels != pred)
print("the fix", (pred != torch.from_numpy(labels)).tolist(), pred.ne(torch.as_tensor(labels)).sum().item())
print("t != np scalar", (pred != np.int64(2)).tolist(), "t == np scalar", (pred == np.int64(2)).tolist())
attempt("t < 0-d array", lambda: pred < np.array(2))
