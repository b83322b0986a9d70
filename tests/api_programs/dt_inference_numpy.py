"""dtype inference from Python data, set_default_dtype and numpy interop as data-loading code meets them."""

import numpy as np
import torch


def d(t):
    return str(t.dtype).replace("torch.", "")


# inference from Python lists
cases = {
    "ints": [1, 2, 3],
    "floats": [1.0, 2.0],
    "bools": [True, False],
    "bool+int": [True, 2],
    "int+float": [1, 2.5],
    "bool+float": [False, 0.5],
    "complex": [1, 2j],
    "nested": [[1, 2], [3.0, 4]],
    "empty": [],
    "big int": [2**40],
    "scalar int": 5,
    "scalar bool": True,
    "scalar float": 2.5,
}
for k, v in cases.items():
    t = torch.tensor(v)
    print(f"{k:<14}", d(t), t.tolist())
for bad in ([2**64], [[1, 2], [3]], ["a"], [1, None]):
    try:
        torch.tensor(bad)
    except (RuntimeError, TypeError, ValueError, OverflowError) as e:
        print("bad", repr(bad), type(e).__name__, e)
print("tensor of tensors", d(torch.tensor([torch.tensor(1), torch.tensor(2)])))
print("stack of 0-dim", d(torch.stack([torch.tensor(1.5), torch.tensor(2)])))
print("as_tensor list", d(torch.as_tensor([1, 2])), d(torch.as_tensor([1, 2], dtype=torch.float16)))
print("factories", d(torch.arange(5)), d(torch.arange(5.0)), d(torch.arange(0, 1, 0.25)),
      d(torch.full((2,), 7)), d(torch.full((2,), True)), d(torch.full((2,), 1.5)),
      d(torch.linspace(0, 1, 3)), d(torch.zeros(2)), d(torch.randint(0, 5, (2,))))
fl = torch.full_like(torch.tensor([1, 2]), 2.7)
print("full_like int fill 2.7", d(fl), fl.tolist())

# set_default_dtype(float64): affects float inference and factories, not ints
old = torch.get_default_dtype()
torch.set_default_dtype(torch.float64)
try:
    print("default", torch.get_default_dtype())
    print("float literal", d(torch.tensor([1.5])), "int literal", d(torch.tensor([1])))
    print("zeros", d(torch.zeros(2)), "arange float", d(torch.arange(0.0, 1.0, 0.5)), "arange int", d(torch.arange(3)))
    print("int / int", d(torch.tensor([1]) / 2), "int + 0.5", d(torch.tensor([1]) + 0.5))
    print("complex literal", d(torch.tensor([1j])), "rand", d(torch.rand(1)), "linspace", d(torch.linspace(0, 1, 2)))
    print("f32 tensor + float", d(torch.tensor([1.0], dtype=torch.float32) + 1.5))
    print("nn.Linear", d(torch.nn.Linear(2, 2).weight))
    print("result_type 1, 1.0", torch.result_type(1, 1.0))
    print("from numpy f32 keeps f32", d(torch.from_numpy(np.ones(2, dtype=np.float32))))
finally:
    torch.set_default_dtype(old)
print("restored", torch.get_default_dtype(), d(torch.tensor([1.5])))
for bad in (torch.int64, torch.float16):
    try:
        torch.set_default_dtype(bad)
        print("set_default_dtype", bad, "accepted", torch.get_default_dtype())
        torch.set_default_dtype(old)
    except TypeError as e:
        print("set_default_dtype", bad, type(e).__name__, e)

# numpy -> torch
arrs = [np.array([1, 2], dtype=np.int32), np.array([1.0, 2.0]), np.array([1.0], dtype=np.float16),
        np.array([True]), np.array([1], dtype=np.uint8), np.array([1 + 2j], dtype=np.complex64),
        np.array([1], dtype=np.int8), np.arange(3)]
for a in arrs:
    print("from_numpy", a.dtype, "->", d(torch.from_numpy(a)), "| tensor", d(torch.tensor(a)),
          "| as_tensor", d(torch.as_tensor(a)))
try:
    torch.from_numpy(np.array([1], dtype=np.uint16))
    print("uint16 ok", d(torch.from_numpy(np.array([1], dtype=np.uint16))))
except TypeError as e:
    print("uint16", type(e).__name__, e)
try:
    torch.from_numpy(np.array(["a"]))
except TypeError as e:
    print("str array", type(e).__name__, e)

# numpy scalars
for s in (np.float64(1.5), np.float32(1.5), np.int64(3), np.int32(3), np.bool_(True), np.float16(0.1)):
    print("np scalar", type(s).__name__, "tensor", d(torch.tensor(s)), "as_tensor", d(torch.as_tensor(s)),
          "shape", tuple(torch.as_tensor(s).shape))
print("tensor * np.float64", d(torch.tensor([1.0]) * np.float64(2.0)), d(torch.tensor([1]) * np.float64(2.0)))
print("tensor + np.int64", d(torch.tensor([1], dtype=torch.int8) + np.int64(2)))
print("list of np scalars", d(torch.tensor([np.float32(1), np.float32(2)])), d(torch.tensor([np.int64(1), 2.5])))

# sharing memory
a = np.zeros(3, dtype=np.float32)
t = torch.from_numpy(a)
t += 1
print("from_numpy shares", a.tolist())
t2 = torch.as_tensor(a)
t2[0] = 5
print("as_tensor shares", a.tolist(), "tensor copies", torch.tensor(a).data_ptr() != t.data_ptr())
t3 = torch.as_tensor(a, dtype=torch.float64)
t3[1] = 7
print("as_tensor with cast copies", a.tolist())
b = torch.arange(4, dtype=torch.int16)
n = b.numpy()
n[0] = 42
print(".numpy shares", b.tolist(), n.dtype)
print("numpy dtypes", [str(torch.tensor([0], dtype=dt).numpy().dtype)
                       for dt in (torch.bool, torch.uint8, torch.int8, torch.int32, torch.float16, torch.complex128)])
try:
    torch.tensor([1.0], dtype=torch.bfloat16).numpy()
except TypeError as e:
    print("bf16 numpy", type(e).__name__, e)
try:
    torch.ones(2, requires_grad=True).numpy()
except RuntimeError as e:
    print("grad numpy", type(e).__name__, e)
print("force", torch.ones(2, requires_grad=True).numpy(force=True).dtype)
print("np.asarray", np.asarray(torch.tensor([1, 2], dtype=torch.int32)).dtype, np.array(torch.tensor(2.5)).shape)
print("negative strides", torch.tensor(np.arange(4)[::-1].copy()).tolist())
try:
    torch.from_numpy(np.arange(4)[::-1])
except ValueError as e:
    print("neg stride", type(e).__name__, str(e).split(".")[0])
print("non-contig from_numpy", torch.from_numpy(np.arange(6).reshape(2, 3).T).stride())
print("item types", type(torch.tensor(1).item()).__name__, type(torch.tensor(1.0).item()).__name__,
      type(torch.tensor(True).item()).__name__, type(torch.tensor(1j).item()).__name__)
print("tolist nested types", [type(x).__name__ for x in torch.tensor([1, 2], dtype=torch.uint8).tolist()])
