"""Mistakes at the boundary between tensors and Python/numpy, printed as type(e).__name__ and the whole message:
format specs, math functions and round() of many-element tensors, numpy conversion of tensors that require
grad, deepcopy of non-leaf tensors, assigning .grad of the wrong shape or dtype, attribute assignments that
tensors refuse, .T/.mT/.H on the wrong ranks, and the conversions that work."""

import copy
import math
import pickle

import numpy as np
import torch

torch.manual_seed(13)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    print(f"{name}: ok {out}")
    return out


v = torch.tensor([1.5, -2.25, 3.0])
s = torch.tensor(2.5)
w = torch.randn(3, requires_grad=True)

# --- Python number protocols ----------------------------------------------------------------------------
show("format_vector", lambda: f"{v:.2f}")
show("format_scalar_ok", lambda: f"{s:.2f}")
show("format_plain_ok", lambda: f"{v}")
show("format_int_spec", lambda: f"{torch.tensor(3):04d}")
show("round_vector", lambda: round(v))
show("round_scalar_ok", lambda: round(s))
show("round_digits_ok", lambda: round(torch.tensor(2.345), 2))
show("math_sqrt_vector", lambda: math.sqrt(v))
show("math_sqrt_scalar_ok", lambda: math.sqrt(s))
show("math_floor_ok", lambda: math.floor(s))
show("int_vector", lambda: int(v))
show("int_scalar_ok", lambda: int(torch.tensor(-2.7)))
show("float_grad_ok", lambda: float(w.sum()) == float(w.detach().sum()))
show("complex_ok", lambda: complex(torch.tensor(1 + 2j)))
show("index_float", lambda: list(range(10))[s])
show("index_int_ok", lambda: list(range(10))[torch.tensor(3)])
show("index_bool", lambda: operator_index(torch.tensor(True)))
show("range_float", lambda: range(s))
show("hex_int_ok", lambda: hex(torch.tensor(255)))
show("divmod_ok", lambda: divmod(torch.tensor(7), 2))
show("builtin_max_ok", lambda: max(torch.tensor(1.0), torch.tensor(3.0)))
show("builtin_sum_ok", lambda: sum(torch.ones(3)))
show("sorted_ok", lambda: sorted([torch.tensor(2), torch.tensor(1)]))
show("sorted_vectors", lambda: sorted([torch.ones(2), torch.zeros(2)]))
show("eq_none_ok", lambda: v == None)  # noqa: E711
show("in_tensor_ok", lambda: (2.0 in torch.arange(3.0), torch.tensor(5.0) in v))
show("in_wrong_type", lambda: "a" in v)
show("len_scalar", lambda: len(s))
show("iter_scalar", lambda: iter(s))
show("reversed_ok", lambda: [round(x.item(), 2) for x in reversed(v)])
show("hash_ok", lambda: hash(v) == id(v) or hash(v) != 0)
show("bool_empty", lambda: bool(torch.tensor([])))
show("bool_one_ok", lambda: bool(torch.tensor([0.0])))


def operator_index(t):
    import operator
    return operator.index(t)


# --- numpy --------------------------------------------------------------------------------------------------
show("np_array_grad", lambda: np.array(w))
show("np_asarray_grad", lambda: np.asarray(w * 2))
show("np_array_detached_ok", lambda: np.array(w.detach()).shape)
show("np_array_ok", lambda: np.array(v).dtype)
show("np_add_grad", lambda: np.add(w, 1))
show("np_float64_times_tensor_ok", lambda: (np.float64(2.0) * v).dtype)
show("tensor_times_np_array_ok", lambda: (v * np.ones(3)).dtype)
show("from_numpy_list", lambda: torch.from_numpy([1, 2]))
show("from_numpy_str", lambda: torch.from_numpy(np.array(["a"])))
show("from_numpy_uint16_ok", lambda: torch.from_numpy(np.array([1], dtype=np.uint16)).dtype)
show("from_numpy_longdouble", lambda: torch.from_numpy(np.array([1.0], dtype=np.longdouble)))
show("numpy_force_ok", lambda: w.numpy(force=True).shape)
show("numpy_bf16", lambda: torch.ones(2, dtype=torch.bfloat16).numpy())
show("tolist_bf16_ok", lambda: torch.ones(2, dtype=torch.bfloat16).tolist())

# --- copying and pickling ---------------------------------------------------------------------------------
show("deepcopy_nonleaf", lambda: copy.deepcopy(w * 2))
show("deepcopy_leaf_ok", lambda: copy.deepcopy(w).requires_grad)
show("copy_nonleaf_ok", lambda: copy.copy(w * 2).shape)
show("pickle_nonleaf", lambda: pickle.loads(pickle.dumps(w * 2)).requires_grad)
show("pickle_leaf_ok", lambda: pickle.loads(pickle.dumps(w)).requires_grad)

# --- attributes --------------------------------------------------------------------------------------------
p = torch.zeros(2, 3, requires_grad=True)
show("grad_shape", lambda: setattr(p, "grad", torch.zeros(3, 2)))
show("grad_dtype", lambda: setattr(p, "grad", torch.zeros(2, 3, dtype=torch.float64)))
show("grad_not_tensor", lambda: setattr(p, "grad", [0.0]))
show("grad_ok", lambda: setattr(p, "grad", torch.ones(2, 3)) or p.grad.sum().item())
show("grad_none_ok", lambda: setattr(p, "grad", None) or p.grad)
show("shape_assign", lambda: setattr(p, "shape", (3, 2)))
show("dtype_assign", lambda: setattr(p, "dtype", torch.float64))
show("device_assign", lambda: setattr(p, "device", "cpu"))
show("ndim_assign", lambda: setattr(p, "ndim", 3))
show("data_shape_ok", lambda: setattr(p, "data", torch.ones(4)) or tuple(p.shape))
show("data_not_tensor", lambda: setattr(p, "data", [1.0]))
show("requires_grad_not_bool", lambda: setattr(torch.zeros(1), "requires_grad", "yes"))
show("names_missing_attr", lambda: v.size_of)
show("T_3d", lambda: torch.zeros(2, 3, 4).T.shape)
show("mT_1d", lambda: torch.zeros(3).mT)
show("mH_ok", lambda: torch.zeros(2, 3, dtype=torch.complex64).mH.shape)
show("H_3d", lambda: torch.zeros(2, 3, 4).H)
show("T_1d_ok", lambda: torch.zeros(3).T.shape)
show("item_grad_ok", lambda: round(w.sum().item(), 4))
show("storage_offset_ok", lambda: v[1:].storage_offset())
show("untyped_storage_size_ok", lambda: v.untyped_storage().nbytes())
show("element_size_ok", lambda: (v.element_size(), v.itemsize, v.nbytes))
