"""Memory and numpy-bridge mistakes: in-place writes into expanded tensors, overlapping in-place copies,
from_numpy of negative strides, read-only and object arrays, torch.tensor(tensor) copies (the warning caught),
views that alias after .numpy(), resize_ of a tensor that requires grad, and `if tensor:` ambiguity."""

import warnings

import numpy as np
import torch


def oops(name, fn):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            out = fn()
        except Exception as e:
            print(f"{name}: {type(e).__name__}: {e}")
        else:
            if isinstance(out, torch.Tensor):
                print(f"{name}: ok {tuple(out.shape)} {out.dtype} {out.tolist()}")
            else:
                print(f"{name}: ok {out}")
    for w in ws:
        if w.category is UserWarning:  # PyTorch's own (numpy's DeprecationWarnings vary by version)
            print("  warns", str(w.message).split(" (Triggered internally")[0])


# in-place into expanded or overlapping memory
base = torch.arange(3.0)
oops("expand_add_", lambda: base.expand(2, 3).add_(1))
oops("expand_copy_", lambda: base.view(1, 3).expand(2, 3).copy_(torch.ones(2, 3)))
oops("expand_fix", lambda: base.expand(2, 3).clone().add_(1))
oops("overlap_copy_", lambda: base[1:].copy_(base[:-1]))
oops("self_overlap_mul", lambda: torch.arange(4.0)[:2].mul_(torch.arange(4.0)[2:]))
oops("out_overlap", lambda: torch.add(base, 1, out=base[:2]))
oops("inplace_broadcast_fail", lambda: torch.ones(3).mul_(torch.ones(2, 3)))
oops("resize_requires_grad", lambda: torch.ones(3, requires_grad=True).resize_(4))
oops("resize_view", lambda: torch.ones(4)[:2].resize_(6)[:4])
oops("set_data_dtype_ok", lambda: torch.ones(2).data.dtype)
oops("storage_offset", lambda: torch.arange(6.0)[2:].storage_offset())
oops("as_strided_oob", lambda: torch.arange(4.0).as_strided((3,), (2,)))
oops("unfold_step", lambda: torch.arange(6.0).unfold(0, 2, 0))

# numpy bridge
oops("neg_stride", lambda: torch.from_numpy(np.arange(4.0)[::-1]))
oops("neg_stride_fix", lambda: torch.from_numpy(np.arange(4.0)[::-1].copy()))
oops("read_only", lambda: torch.from_numpy(np.broadcast_to(np.arange(3.0), (2, 3))).shape)
oops("as_tensor_read_only", lambda: torch.as_tensor(np.broadcast_to(np.arange(2.0), (2, 2))).shape)
oops("object_array", lambda: torch.from_numpy(np.array([{"a": 1}], dtype=object)))
oops("str_array", lambda: torch.from_numpy(np.array(["a", "b"])))
oops("float64_default", lambda: torch.from_numpy(np.zeros(2)).dtype)
oops("tensor_from_np_float64", lambda: torch.tensor(np.zeros(2)).dtype)
oops("as_tensor_dtype", lambda: torch.as_tensor([1, 2], dtype=torch.float32))
oops("from_numpy_uint16_ok", lambda: torch.from_numpy(np.array([1, 2], dtype=np.uint16)).dtype)
oops("from_numpy_0d", lambda: torch.from_numpy(np.float32(3.0)))
oops("numpy_bool_index", lambda: torch.arange(3)[np.array([True, False, True])])
a = np.zeros(3, dtype=np.float32)
t = torch.from_numpy(a)
t += 1
print("aliases", a.tolist(), t.tolist())
t2 = torch.tensor(a)
t2 += 1
print("copies", a.tolist(), t2.tolist())
n = t.numpy()
n[0] = 9
print("numpy_alias", t.tolist())
oops("numpy_bf16", lambda: torch.ones(2, dtype=torch.bfloat16).numpy())
oops("numpy_force", lambda: torch.ones(2, requires_grad=True).numpy(force=True).tolist())
oops("np_array_of_grad_tensor", lambda: np.array(torch.ones(2, requires_grad=True)))
oops("np_asarray_ok", lambda: np.asarray(torch.arange(3)).tolist())

# copying and conversions that warn
x = torch.ones(2)
oops("tensor_of_tensor", lambda: torch.tensor(x))
oops("tensor_of_tensor_fix", lambda: x.clone().detach())
oops("tensor_of_list_of_tensors", lambda: torch.tensor([x, x]))
oops("Tensor_of_ints", lambda: torch.Tensor([1, 2]).dtype)
oops("Tensor_of_size", lambda: torch.Tensor(2, 3).shape)
oops("Tensor_of_float", lambda: torch.Tensor(2.5))
oops("LongTensor_float", lambda: torch.LongTensor([1.7, 2.2]))
oops("FloatTensor_str", lambda: torch.FloatTensor("abc"))
oops("T_3d", lambda: torch.ones(2, 3, 4).T.shape)
oops("float_of_grad", lambda: float(torch.tensor(2.0, requires_grad=True)))

# truthiness and comparisons
y = torch.tensor([1.0, 2.0])
oops("if_tensor", lambda: "yes" if y else "no")
oops("if_any_fix", lambda: "yes" if (y > 1).any() else "no")
oops("and_tensors", lambda: y > 0 and y < 3)
oops("chained_compare", lambda: 0 < y < 3)
oops("in_tensor", lambda: 2.0 in y)
oops("in_tensor_tensor", lambda: torch.tensor([1.0, 2.0]) in y)
oops("eq_shapes", lambda: torch.ones(2) == torch.ones(3))
oops("equal_shapes_ok", lambda: torch.equal(torch.ones(2), torch.ones(3)))
oops("allclose_shapes", lambda: torch.allclose(torch.ones(2), torch.ones(3)))
oops("allclose_dtypes", lambda: torch.allclose(torch.ones(2), torch.ones(2, dtype=torch.float64)))
oops("isclose_int_float", lambda: torch.isclose(torch.ones(2, dtype=torch.long), torch.ones(2)))
oops("max_of_list", lambda: max(torch.tensor([1.0, 3.0, 2.0])))
oops("sorted_tensor", lambda: [v.item() for v in sorted(torch.tensor([3, 1, 2]))])
oops("hash_tensor_ok", lambda: len({torch.ones(1), torch.ones(1)}))
oops("dict_key_eq", lambda: {torch.tensor(1): "a"}.get(torch.tensor(1)))
