"""Indexing, dtype and device mistakes: indices out of bounds, boolean masks of the wrong shape, float and
negative indices, too many indices, gather/scatter/index_select with wrong index dtypes, device strings that do
not parse ("cuda:x", "cpux"), .to() with bad arguments, and the dtype rules users trip over."""

import numpy as np
import torch

rng = np.random.default_rng(3)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def oops(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} {out.dtype}")
    else:
        print(f"{name}: ok {out}")


x = T(3, 4)
# basic indexing
oops("row_oob", lambda: x[3])
oops("col_oob", lambda: x[:, 4])
oops("neg_oob", lambda: x[-4])
oops("too_many", lambda: x[0, 1, 2])
oops("too_many_slices", lambda: x[:, :, :])
oops("float_index", lambda: x[1.0])
oops("float_slice", lambda: x[0.5:2])
oops("string_index", lambda: x["a"])
oops("none_ok", lambda: x[None, :, None])
oops("step_negative", lambda: x[::-1])
oops("step_zero", lambda: x[::0])
oops("tensor_float_index", lambda: x[torch.tensor([0.0, 1.0])])
oops("tensor_index_oob", lambda: x[torch.tensor([0, 3])])
oops("tensor_index_neg_oob", lambda: x[torch.tensor([-4])])
oops("tensor_index_ok", lambda: x[torch.tensor([0, -1])])
oops("list_index_oob", lambda: x[[0, 5]])
oops("advanced_broadcast", lambda: x[torch.tensor([0, 1]), torch.tensor([0, 1, 2])])
oops("advanced_ok", lambda: x[torch.tensor([[0], [1]]), torch.tensor([0, 1, 2])])
oops("int32_index", lambda: x[torch.tensor([0, 2], dtype=torch.int32)])
oops("uint8_index", lambda: x[torch.tensor([1, 0, 1], dtype=torch.uint8)])

# boolean masks
oops("mask_shape", lambda: x[torch.ones(4, dtype=torch.bool)])
oops("mask_shape_2d", lambda: x[torch.ones(4, 3, dtype=torch.bool)])
oops("mask_ok", lambda: x[x > 0].shape[0] >= 0)
oops("mask_row", lambda: x[torch.tensor([True, False, True])])
oops("mask_list", lambda: x[[True, False, True]])
oops("mask_second_dim", lambda: x[:, torch.tensor([True, False])])
oops("masked_fill_shape", lambda: x.masked_fill(torch.ones(4, 3, dtype=torch.bool), 0))
oops("masked_fill_int_mask", lambda: x.masked_fill(torch.ones(3, 4, dtype=torch.long), 0))
oops("masked_fill_tensor_value", lambda: x.masked_fill(x > 0, torch.tensor([1.0, 2.0])))
oops("masked_select_shape", lambda: torch.masked_select(x, torch.ones(2, 4, dtype=torch.bool)))
oops("where_cond_float", lambda: torch.where(x, x, 0.0))
oops("setitem_mask_values", lambda: x.clone().__setitem__(x > 100, torch.ones(2)))
oops("setitem_shape", lambda: x.clone().__setitem__(0, torch.ones(3)))
oops("setitem_broadcast_ok", lambda: x.clone().__setitem__(slice(None), torch.ones(4)))
oops("setitem_float_in_long", lambda: torch.zeros(3, dtype=torch.long).__setitem__(0, 1.7))

# gather / scatter / index ops
idx = torch.tensor([[0, 1], [2, 3], [1, 1]])
oops("gather_int32", lambda: x.gather(1, idx.int()))
oops("gather_float", lambda: x.gather(1, idx.float()))
oops("gather_oob", lambda: x.gather(1, idx + 1))
oops("gather_dims", lambda: x.gather(1, torch.tensor([0, 1])))
oops("gather_ok", lambda: x.gather(1, idx))
oops("scatter_src_dtype", lambda: torch.zeros(3, 4).scatter(1, idx, torch.ones(3, 2, dtype=torch.float64)))
oops("scatter_oob", lambda: torch.zeros(3, 4).scatter_(1, idx + 2, 1.0))
oops("scatter_add_dims", lambda: torch.zeros(3, 4).scatter_add(1, idx, torch.ones(3)))
oops("index_select_2d", lambda: x.index_select(0, torch.tensor([[0]])))
oops("index_select_float", lambda: x.index_select(0, torch.tensor([0.0])))
oops("index_select_oob", lambda: x.index_select(1, torch.tensor([4])))
oops("index_add_shape", lambda: torch.zeros(3, 4).index_add(0, torch.tensor([0, 1]), torch.ones(3, 4)))
oops("index_put_ok", lambda: torch.zeros(3).index_put_((torch.tensor([0, 0]),), torch.tensor(1.0), accumulate=True))
oops("take_oob", lambda: x.take(torch.tensor([12])))
oops("narrow_neg", lambda: x.narrow(0, -4, 1))
oops("select_oob", lambda: x.select(1, 4))

# dtypes
oops("bitwise_float", lambda: x & x)
oops("bitwise_fix", lambda: (x > 0) & (x < 1))
oops("shift_float", lambda: x << 1)
oops("remainder_int_zero", lambda: torch.tensor([3]) % torch.tensor([0]))
oops("int_div_zero", lambda: torch.tensor([3]) // 0)
oops("float_div_zero_ok", lambda: (torch.tensor([3.0]) / 0).tolist())
oops("neg_bool", lambda: -torch.tensor([True]))
oops("sub_bool", lambda: torch.tensor([True]) - torch.tensor([False]))
oops("sqrt_int_ok", lambda: torch.tensor([4]).sqrt())
oops("pow_int_negative", lambda: torch.tensor([2]) ** -1)
oops("sum_bool_ok", lambda: torch.tensor([True, True]).sum())
oops("argmax_bool", lambda: torch.tensor([True, False]).argmax())
oops("topk_int_ok", lambda: torch.tensor([3, 1, 2]).topk(2))
oops("topk_k", lambda: torch.tensor([3.0, 1.0]).topk(3))
oops("kthvalue_k", lambda: torch.tensor([3.0, 1.0]).kthvalue(0))
oops("histc_int", lambda: torch.tensor([1, 2]).histc())
oops("clamp_none", lambda: x.clamp())
oops("clamp_min_max", lambda: x.clamp(min=1, max=0).unique().tolist())
oops("to_bad_dtype", lambda: x.to("float32"))
oops("type_string_ok", lambda: x.type("torch.DoubleTensor"))
oops("type_bad", lambda: x.type("torch.FooTensor"))
oops("complex_max", lambda: torch.tensor([1j, 2j]).max())
oops("complex_lt", lambda: torch.tensor([1j]) < torch.tensor([2j]))

# devices
oops("device_cuda_x", lambda: torch.device("cuda:x"))
oops("device_cpux", lambda: torch.device("cpux"))
oops("device_negative", lambda: torch.device("cuda", -1))
oops("device_gpu", lambda: torch.device("gpu"))
oops("device_two_colons", lambda: torch.device("cuda:0:1"))
oops("device_upper", lambda: torch.device("CUDA"))
oops("device_space", lambda: torch.device("cuda: 0"))
oops("device_ok", lambda: (torch.device("cpu"), torch.device("cuda:1"), torch.device("cuda", 2).index))
oops("to_device_string", lambda: x.to("cpux"))
oops("zeros_device", lambda: torch.zeros(2, device="cuda:x"))
oops("to_two_dtypes", lambda: x.to(torch.float64, torch.int32))
oops("cpu_ok", lambda: x.cpu().device)
oops("is_cuda", lambda: x.is_cuda)
