"""Numpy and Python interop from the forums: np.array of a tensor that requires grad, numpy scalars and lists
of arrays into torch.tensor, from_numpy sharing and its refusals, .item()/.tolist()/int() under grad, tensors as
list indices and range bounds, f-string formats, builtins (round, max, sum, sorted) over tensors, `in` over
1-D and 2-D tensors, and Python types as dtype arguments."""

import numpy as np
import torch


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0] if str(e) else "")


t = torch.tensor([1.0, 2.0], requires_grad=True)
catch("np_array", lambda: np.array(t))
catch("np_asarray", lambda: np.asarray(t))
catch("np_array_plain", lambda: np.array(torch.tensor([1, 2])).dtype)
catch("np_array_bf16", lambda: np.array(torch.tensor([1.0], dtype=torch.bfloat16)))
catch("np_float_grad", lambda: np.float32(t[0]))
catch("list_of_tensors_np", lambda: np.array([torch.tensor(1.0), torch.tensor(2.0)]))
catch("tensor_list_np", lambda: torch.tensor([np.array([1.0, 2.0]), np.array([3.0, 4.0])]).dtype)
catch("tensor_mixed", lambda: torch.tensor([1, 2.5, True]).dtype)
catch("tensor_np_scalar_mix", lambda: torch.tensor([np.float64(1.0), 2]).dtype)
catch("from_numpy_list", lambda: torch.from_numpy([1, 2]))
catch("from_numpy_f16", lambda: torch.from_numpy(np.ones(2, dtype=np.float16)).dtype)
catch("as_tensor_share", lambda: (lambda a: (torch.as_tensor(a).add_(1), a.tolist())[1])(np.zeros(2)))
arr = np.zeros(2)
torch.as_tensor(arr, dtype=torch.float32).add_(1)
print("as_tensor_dtype_copy", arr.tolist())
catch("numpy_readonly", lambda: torch.from_numpy(np.broadcast_to(np.ones(1), (3,))).shape)
catch("item_grad", lambda: t[0].item())
catch("tolist_grad", lambda: t.tolist())
catch("numpy_detach_share", lambda: (lambda n: (n.__setitem__(0, 5.0), t.tolist())[1])(t.detach().numpy()))
catch("clone_numpy", lambda: t.clone().numpy())
catch("data_numpy", lambda: t.data.numpy().tolist())
catch("int_grad_item", lambda: int(t[0]))
catch("index_float", lambda: [1, 2, 3][torch.tensor(1)])
catch("index_float2", lambda: [1, 2, 3][torch.tensor(1.0)])
catch("range_tensor", lambda: list(range(torch.tensor(3))))
catch("format", lambda: f"{torch.tensor(3.14159):.2f}")
catch("format_vec", lambda: f"{torch.tensor([3.14159]):.2f}")
catch("format_plain", lambda: f"{torch.tensor([1.5, 2.0])}")
catch("round_builtin", lambda: round(torch.tensor(2.567), 2))
catch("round_builtin_vec", lambda: round(torch.tensor([2.567]), 2))
catch("math_exp", lambda: __import__("math").exp(torch.tensor(1.0)))
catch("max_builtin", lambda: max(torch.tensor([1, 5, 3])))
catch("sum_builtin", lambda: sum(torch.tensor([1, 5, 3])))
catch("sorted_builtin", lambda: sorted(torch.tensor([3, 1, 2])))
catch("in_tensor", lambda: 2 in torch.tensor([1, 2]))
catch("in_tensor_str", lambda: "a" in torch.tensor([1, 2]))
catch("hash_grad", lambda: hash(t) == id(t))
catch("eq_none", lambda: torch.tensor([1]) == None)  # noqa: E711
catch("list_index", lambda: [torch.tensor(1), torch.tensor(2)].index(torch.tensor(2)))
catch("str_dtype", lambda: str(torch.float32) + " " + repr(torch.int64))
catch("dtype_itemsize", lambda: (torch.float16.itemsize, torch.bfloat16.is_floating_point, torch.int8.is_signed))
print("astype", hasattr(torch.zeros(2), "astype"))

grid = torch.arange(6).view(2, 3)
print("in_2d", 5 in grid, 7 in grid, torch.tensor([3, 4, 5]) in grid, 2.0 in grid, True in grid, 2 in torch.tensor(2))
print("in_nan", float("nan") in torch.tensor([float("nan")]), 1 in torch.zeros(0), [r.tolist() for r in grid])
catch("in_list", lambda: [1] in grid)
catch("in_none", lambda: None in grid)
catch("in_row", lambda: torch.tensor([0, 1]) in torch.tensor([[0, 1], [1, 2]]))
for dt in [float, int, bool, torch.float32, torch.int16]:
    print("dtype_arg", dt, torch.zeros(2, dtype=dt).dtype, torch.tensor([1], dtype=dt).dtype,
          torch.ones(2).to(dt).dtype, torch.ones_like(torch.ones(1), dtype=dt).dtype)
catch("to_np_dtype", lambda: torch.ones(2).to(np.float32))
catch("to_np_dtype_obj", lambda: torch.ones(2).to(np.dtype("float64")))
for d in [float, np.float32, np.dtype("float32"), torch.Tensor, "torch.IntTensor", torch.DoubleTensor]:
    catch("type_arg", lambda: torch.ones(2, dtype=torch.int64).type(d).dtype)
