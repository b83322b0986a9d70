"""One-liners from accepted answers, each checked the way the asker would: torch.Size arithmetic, 0-d len and
iteration, index forms (lists, numpy arrays, bool lists, int32/uint8 tensors), std/var corrections, max/min
named tuples, new_* constructors, scatter variants, NaN under argmax/topk/sort/unique, clamp with tensors,
isclose/allclose/equal, expand_as/view_as, chunk/split, .mT/.mH and ravel."""

import numpy as np
import torch
import torch.nn.functional as F


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0] if str(e) else "")


x = torch.arange(12.0).view(3, 4)
catch("shape_idx", lambda: x.shape[5])
catch("size_idx", lambda: x.size(5))
catch("len0d", lambda: len(torch.tensor(1.0)))
catch("iter0d", lambda: list(torch.tensor(1.0)))
catch("size_add", lambda: torch.Size([2, 3]) + (4,))
catch("size_numel", lambda: torch.Size([2, 3]).numel())
catch("size_eq", lambda: torch.Size([2, 3]) == (2, 3))
catch("size_slice", lambda: x.shape[1:])
catch("onehot_int32", lambda: F.one_hot(torch.tensor([1, 2], dtype=torch.int32), 3))
catch("eye_int32", lambda: torch.eye(3)[torch.tensor([1, 2], dtype=torch.int32)])
catch("arange_float", lambda: torch.arange(0, 1, 0.1).shape)
catch("linspace_int", lambda: torch.linspace(0, 10, 5, dtype=torch.int64))
catch("sum_tuple", lambda: x.sum(dim=(0, 1)))
catch("mean_list", lambda: x.mean([0, 1]))
catch("idx_list_bool", lambda: x[[True, False, True]])
catch("idx_np", lambda: x[np.array([0, 2])])
catch("idx_np_bool", lambda: x[np.array([True, False, True])])
catch("idx_pairs", lambda: x[[0, 1], [0, 1]])
catch("idx_nested", lambda: x[[[0, 1]]])
catch("idx_int32", lambda: x[torch.tensor([0, 2], dtype=torch.int32)])
catch("idx_uint8", lambda: x[torch.tensor([1, 0, 1], dtype=torch.uint8)].shape)
catch("std_unb", lambda: x.std(unbiased=False))
catch("std_corr", lambda: x.std(dim=1, correction=0))
catch("var_keep", lambda: torch.var_mean(x, 1, keepdim=True))
catch("max_keep", lambda: torch.max(x, 1, keepdim=True))
catch("min_both", lambda: torch.min(x, torch.tensor(3.0)))
catch("max_dim_int", lambda: torch.max(x, dim=5))
catch("new_tensor", lambda: x.new_tensor([1, 2]))
catch("new_zeros", lambda: x.new_zeros(2).dtype)
catch("tensor_of_tensor", lambda: torch.tensor(x).shape)
catch("version", lambda: (x.add_(1), x._version)[1])
x = x.detach()
catch("numpy_force", lambda: x.requires_grad_().numpy(force=True).dtype)
catch("no_grad_repr", lambda: type(torch.no_grad()).__name__)
catch("gen_repr", lambda: type(torch.manual_seed(0)).__name__)
src = torch.tensor([[5.0, 6.0], [7.0, 8.0]])
catch("scatter_src", lambda: torch.zeros(2, 4).scatter(1, torch.tensor([[0, 1], [2, 3]]), src))
catch("scatter_add", lambda: torch.zeros(3).scatter_add(0, torch.tensor([0, 0, 2]), torch.ones(3)))
catch("scatter_reduce", lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 5.0, 2.0]),
                                                              "amax", include_self=False))
catch("index_put", lambda: torch.zeros(3).index_put_((torch.tensor([0, 0]),), torch.tensor([1.0, 2.0]),
      accumulate=True))
catch("one_hot_2d_argmax", lambda: F.one_hot(x.argmax(1), 4))
catch("cumsum_int", lambda: torch.tensor([1, 2], dtype=torch.int32).cumsum(0).dtype)
catch("sum_bool", lambda: torch.tensor([True, True]).sum().dtype)
catch("mean_bool", lambda: torch.tensor([True, False]).float().mean())
catch("argmax_tie", lambda: torch.tensor([1, 3, 3]).argmax())
catch("argmax_nan", lambda: torch.tensor([1, float("nan"), 3]).argmax())
catch("max_empty", lambda: torch.tensor([]).max())
catch("argmax_empty", lambda: torch.tensor([]).argmax())
catch("topk_nan", lambda: torch.tensor([1.0, float("nan"), 3.0]).topk(2))
catch("sort_nan", lambda: torch.tensor([1.0, float("nan"), 3.0, -1.0]).sort())
catch("unique_nan", lambda: torch.unique(torch.tensor([1.0, float("nan"), float("nan")])))
catch("clamp_tensor", lambda: torch.clamp(torch.tensor([1.0, 5.0]), torch.tensor([2.0, 2.0]), 3))
catch("clamp_tensors", lambda: torch.clamp(torch.tensor([1.0, 5.0]), min=torch.tensor([2.0, 2.0]),
      max=torch.tensor(3.0)))
catch("clamp_none", lambda: torch.clamp(torch.tensor([1.0])))
catch("isclose", lambda: torch.isclose(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]),
      equal_nan=True))
catch("allclose_shape", lambda: torch.allclose(torch.ones(2), torch.ones(3)))
catch("equal_dtype", lambda: torch.equal(torch.ones(2), torch.ones(2, dtype=torch.int64)))
catch("expand_as", lambda: torch.ones(3, 1).expand_as(x).stride())
catch("view_as", lambda: torch.arange(12).view_as(x).shape)
catch("reshape_as", lambda: torch.arange(12).reshape_as(x.t()).stride())
catch("repeat_0", lambda: x.repeat(0, 1).shape)
catch("tile", lambda: torch.tensor([1, 2]).tile((2,)))
catch("unsqueeze_neg", lambda: x.unsqueeze(-3).shape)
catch("squeeze_neg", lambda: torch.zeros(2, 1).squeeze(-1).shape)
catch("chunk_uneven", lambda: [c.shape[0] for c in torch.arange(10).chunk(4)])
catch("split_bad", lambda: torch.arange(10).split([3, 3]))
catch("transpose_1d", lambda: torch.arange(3).t().shape)
catch("T_3d", lambda: torch.zeros(2, 3, 4).mT.shape)
catch("mH", lambda: torch.zeros(2, 3, 4).mH.shape)
catch("flatten_0d", lambda: torch.tensor(1.0).flatten().shape)
catch("ravel", lambda: x.t().ravel().is_contiguous())
