"""Tensor-op mistakes from StackOverflow: matmul/bmm/einsum/mm with mismatched shapes, view on a transposed
tensor, reshape to a size that does not fit, squeeze of a dim that is not 1, cat/stack with mismatched shapes
or an empty list, Long times Float in mm, torch.tensor from ragged lists, and what the fixed call returns."""

import numpy as np
import torch

rng = np.random.default_rng(2)


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


# products
a, b = T(3, 4), T(5, 4)
oops("mm", lambda: torch.mm(a, b))
oops("mm_fix", lambda: torch.mm(a, b.t()))
oops("mm_1d", lambda: torch.mm(a, T(4)))
oops("mm_3d", lambda: torch.mm(T(2, 3, 4), T(4, 5)))
oops("matmul", lambda: a @ b)
oops("matmul_vec", lambda: a @ T(3))
oops("matmul_vec_vec", lambda: T(3) @ T(4))
oops("matmul_scalar", lambda: a @ torch.tensor(2.0))
oops("matmul_batch", lambda: T(2, 3, 4) @ T(3, 4, 5))
oops("matmul_broadcast_fix", lambda: T(2, 3, 4) @ T(4, 5))
oops("bmm_2d", lambda: torch.bmm(a, b.t()))
oops("bmm_batch", lambda: torch.bmm(T(2, 3, 4), T(3, 4, 5)))
oops("bmm_inner", lambda: torch.bmm(T(2, 3, 4), T(2, 5, 4)))
oops("mv", lambda: torch.mv(a, T(3)))
oops("dot_sizes", lambda: torch.dot(T(3), T(4)))
oops("dot_2d", lambda: torch.dot(a, a))
oops("dot_dtypes", lambda: torch.dot(T(3), torch.ones(3, dtype=torch.float64)))
oops("outer_fix", lambda: torch.outer(T(3), T(4)))
oops("mm_long_float", lambda: torch.mm(torch.ones(2, 2, dtype=torch.long), torch.ones(2, 2)))
oops("matmul_long_float", lambda: torch.ones(2, 2, dtype=torch.long) @ torch.ones(2, 2))
oops("matmul_double", lambda: torch.ones(2, 2, dtype=torch.float64) @ torch.ones(2, 2))
oops("matmul_int_ok", lambda: torch.ones(2, 2, dtype=torch.long) @ torch.ones(2, 2, dtype=torch.long))
oops("addmm", lambda: torch.addmm(torch.zeros(3), a, b))
oops("einsum_dims", lambda: torch.einsum("ij,jk->ik", a, b))
oops("einsum_operands", lambda: torch.einsum("ij,jk->ik", a))
oops("einsum_subscripts", lambda: torch.einsum("ijk,jk->ik", a, b.t()))
oops("einsum_output", lambda: torch.einsum("ij,kj->iz", a, b))
oops("einsum_fix", lambda: torch.einsum("ij,kj->ik", a, b))
oops("tensordot", lambda: torch.tensordot(a, b, dims=([1], [0])))
oops("linalg_inv", lambda: torch.linalg.inv(a))
oops("inv_int", lambda: torch.linalg.inv(torch.eye(2, dtype=torch.long)))
oops("det_rect", lambda: torch.det(a))
oops("solve_shapes", lambda: torch.linalg.solve(T(3, 3), T(4)))
oops("cross_dim", lambda: torch.linalg.cross(T(4), T(4)))

# views and reshapes
x = T(3, 4)
oops("view_transposed", lambda: x.t().view(12))
oops("view_fix_contiguous", lambda: x.t().contiguous().view(12))
oops("view_fix_reshape", lambda: x.t().reshape(-1))
oops("view_permuted", lambda: T(2, 3, 4).permute(0, 2, 1).view(2, 12))
oops("view_size", lambda: x.view(5, 3))
oops("view_two_minus_one", lambda: x.view(-1, -1))
oops("view_negative", lambda: x.view(-2, 6))
oops("reshape_size", lambda: x.reshape(5, -1))
oops("reshape_zero", lambda: x.reshape(0, -1))
oops("reshape_fix", lambda: x.reshape(2, -1))
oops("view_dtype_size", lambda: x.view(torch.float64))
oops("view_as", lambda: x.view_as(T(4, 4)))
oops("flatten_range", lambda: x.flatten(1, 0))
oops("unflatten", lambda: x.unflatten(1, (3, 2)))
oops("expand", lambda: x.expand(2, 3))
oops("expand_fix", lambda: x[:, :1].expand(3, 5))
oops("expand_fewer", lambda: x.expand(4))
oops("repeat_fewer", lambda: x.repeat(2))
oops("squeeze_non_one", lambda: x.squeeze(0))
oops("squeeze_range", lambda: x.squeeze(2))
oops("unsqueeze_range", lambda: x.unsqueeze(3))
oops("transpose_range", lambda: x.transpose(0, 2))
oops("permute_dims", lambda: x.permute(0))
oops("movedim_dup", lambda: x.movedim((0, 0), (1, 0)))
oops("narrow", lambda: x.narrow(1, 2, 3))
oops("split_size", lambda: x.split(0))
oops("chunk_zero", lambda: x.chunk(0))
oops("split_sizes", lambda: x.split([1, 1], dim=0))
oops("unbind_range", lambda: x.unbind(2))
oops("t_3d", lambda: T(2, 3, 4).t())
oops("T_3d_ok", lambda: T(2, 3, 4).mT)

# joining
oops("cat_shapes", lambda: torch.cat([T(2, 3), T(2, 4)]))
oops("cat_fix", lambda: torch.cat([T(2, 3), T(2, 4)], dim=1))
oops("cat_ranks", lambda: torch.cat([T(2, 3), T(3)]))
oops("cat_empty", lambda: torch.cat([]))
oops("cat_dim", lambda: torch.cat([T(2, 3), T(2, 3)], dim=2))
oops("cat_tensor_arg", lambda: torch.cat(T(2, 3), T(2, 3)))
oops("cat_not_tensors", lambda: torch.cat([T(2), [1.0, 2.0]]))
oops("cat_dtypes_ok", lambda: torch.cat([T(2), torch.ones(2, dtype=torch.long)]))
oops("stack_shapes", lambda: torch.stack([T(3), T(4)]))
oops("stack_empty", lambda: torch.stack([]))
oops("stack_dim", lambda: torch.stack([T(3), T(3)], dim=3))
oops("stack_fix", lambda: torch.stack([T(3), T(3)], dim=-1))
oops("hstack", lambda: torch.hstack([T(2, 3), T(3, 3)]))
oops("vstack_fix", lambda: torch.vstack([T(3), T(3)]))
oops("where_shapes", lambda: torch.where(x > 0, x, T(4, 3)))
oops("add_shapes", lambda: x + T(4))
oops("add_shapes_3d", lambda: T(2, 3, 4) + T(3, 2, 4))
oops("inplace_broadcast", lambda: T(4).add_(x))
oops("inplace_dtype", lambda: torch.ones(3, dtype=torch.long).add_(0.5))
oops("inplace_bool", lambda: torch.ones(3, dtype=torch.bool).mul_(2))

# construction
oops("ragged", lambda: torch.tensor([[1, 2], [3]]))
oops("ragged_deep", lambda: torch.tensor([[1, 2], [3, [4]]]))
oops("list_of_tensors", lambda: torch.tensor([T(2), T(2)]))
oops("list_of_tensors_fix", lambda: torch.stack([T(2), T(2)]))
oops("list_of_scalars_ok", lambda: torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]))
oops("strings", lambda: torch.tensor(["a", "b"]))
oops("none_value", lambda: torch.tensor([1.0, None]))
oops("object_array", lambda: torch.from_numpy(np.array([1, "a"], dtype=object)))
oops("from_numpy_list", lambda: torch.from_numpy([1, 2]))
oops("negative_size", lambda: torch.zeros(-1))
oops("zeros_float_size", lambda: torch.zeros(2.5))
oops("arange_step", lambda: torch.arange(0, 5, 0))
oops("arange_direction", lambda: torch.arange(5, 0, 1))
oops("linspace_steps", lambda: torch.linspace(0, 1, -2))
oops("full_fill", lambda: torch.full((2,), "x"))
oops("eye_negative", lambda: torch.eye(-2))
oops("empty_like_ok", lambda: torch.empty_like(x).shape)
