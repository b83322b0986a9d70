"""Shape mistakes as they happen inside real code (an attention block, an MLP head, a batch of features): every
exception caught and printed whole, as type(e).__name__ and str(e), for matmul/mm/bmm/linear/cat/stack/view/
reshape/expand/broadcasting/addition, next to the corrected call's result."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} {out.dtype} sum={out.float().sum().item():.4f}")
    else:
        print(f"{name}: ok {out}")
    return out


# --- attention with the wrong transpose ---------------------------------------------------------------------
B, H, L, D = 2, 4, 5, 8
q = torch.randn(B, H, L, D)
k = torch.randn(B, H, L, D)
v = torch.randn(B, H, L, D)
show("scores_no_transpose", lambda: q @ k)
show("scores_transpose_wrong_dims", lambda: q @ k.transpose(1, 2))
scores = show("scores", lambda: q @ k.transpose(-2, -1) / D ** 0.5)
show("attn_v_wrong", lambda: scores.softmax(-1) @ v.transpose(-2, -1))
out = show("attn_v", lambda: scores.softmax(-1) @ v)
show("merge_heads_view", lambda: out.transpose(1, 2).view(B, L, H * D))
show("merge_heads_reshape", lambda: out.transpose(1, 2).reshape(B, L, H * D))
show("merge_heads_contig", lambda: out.transpose(1, 2).contiguous().view(B, L, H * D))
show("merge_heads_bad_size", lambda: out.transpose(1, 2).reshape(B, L, H * D + 1))
show("split_heads_bad", lambda: torch.randn(B, L, 30).view(B, L, H, -1))
show("view_two_minus_one", lambda: torch.randn(B, L, 32).view(B, -1, -1))
show("mask_broadcast", lambda: scores.masked_fill(torch.ones(L, L + 1, dtype=torch.bool), 0.0))
show("mask_ok", lambda: scores.masked_fill(torch.ones(L, L, dtype=torch.bool).triu(1), float("-inf")))

# --- products -----------------------------------------------------------------------------------------------
a, b = torch.randn(3, 4), torch.randn(3, 4)
show("mm", lambda: torch.mm(a, b))
show("mm_vec", lambda: torch.mm(a, torch.randn(4)))
show("mm_fix", lambda: torch.mm(a, b.T))
show("matmul_1d_2d", lambda: torch.randn(3) @ b)
show("matmul_2d_1d", lambda: a @ torch.randn(3))
show("matmul_0d", lambda: torch.tensor(2.0) @ a)
show("matmul_batched_mismatch", lambda: torch.randn(2, 3, 4) @ torch.randn(3, 4, 2))
show("matmul_batched_bcast", lambda: torch.randn(2, 1, 3, 4) @ torch.randn(5, 4, 2))
show("bmm_batch", lambda: torch.bmm(torch.randn(2, 3, 4), torch.randn(3, 4, 5)))
show("bmm_inner", lambda: torch.bmm(torch.randn(2, 3, 4), torch.randn(2, 5, 6)))
show("bmm_2d", lambda: torch.bmm(a, b.T))
show("bmm_4d", lambda: torch.bmm(q, k.transpose(-1, -2)))
show("baddbmm_input", lambda: torch.baddbmm(torch.zeros(2, 3, 3), torch.randn(2, 3, 4), torch.randn(2, 4, 5)))
show("addmm_input", lambda: torch.addmm(torch.zeros(2, 2), a, b.T))
show("mv", lambda: torch.mv(a, torch.randn(3)))
show("dot", lambda: torch.dot(torch.randn(3), torch.randn(4)))
show("outer_2d", lambda: torch.outer(a, torch.randn(2)))
show("kron_ok", lambda: torch.kron(torch.eye(2), torch.ones(2, 2)))

# --- linear layers ------------------------------------------------------------------------------------------
head = nn.Sequential(nn.Flatten(), nn.Linear(16 * 4 * 4, 10))
feats = torch.randn(2, 16, 5, 5)
show("linear_flattened_wrong", lambda: head(feats))
show("linear_after_pool", lambda: head(F.adaptive_avg_pool2d(feats, 4)))
show("f_linear_weight_T", lambda: F.linear(torch.randn(2, 6), torch.randn(6, 3)))
show("f_linear_bias", lambda: F.linear(torch.randn(2, 6), torch.randn(3, 6), torch.randn(4)))
show("bilinear_in2", lambda: nn.Bilinear(3, 4, 2)(torch.randn(5, 3), torch.randn(5, 3)))
show("bilinear_batch", lambda: nn.Bilinear(3, 4, 2)(torch.randn(5, 3), torch.randn(6, 4)))

# --- cat / stack -----------------------------------------------------------------------------------------
x1, x2 = torch.randn(2, 3), torch.randn(2, 4)
show("cat_dim0", lambda: torch.cat([x1, x2]))
show("cat_dim1", lambda: torch.cat([x1, x2], dim=1))
show("cat_rank", lambda: torch.cat([x1, torch.randn(3)]))
show("cat_dim_range", lambda: torch.cat([x1, x1], dim=2))
show("cat_empty_list", lambda: torch.cat([]))
show("cat_tensor_arg", lambda: torch.cat(x1))
show("stack_sizes", lambda: torch.stack([x1, x2]))
show("stack_three", lambda: torch.stack([x1, x1, torch.randn(3, 2)], dim=1))
show("stack_dim_range", lambda: torch.stack([x1, x1], dim=4))
show("stack_empty", lambda: torch.stack([]))
show("hstack_ok", lambda: torch.hstack([x1, x2]))
show("vstack_bad", lambda: torch.vstack([x1, x2]))

# --- view / reshape / expand -----------------------------------------------------------------------------
img = torch.randn(2, 3, 4, 4)
show("view_numel", lambda: img.view(2, 3, 15))
show("reshape_numel", lambda: img.reshape(-1, 5))
show("view_permuted", lambda: img.permute(0, 2, 3, 1).view(2, -1))
show("flatten_dims", lambda: img.flatten(2, 1))
show("unflatten_bad", lambda: img.flatten(1).unflatten(1, (3, 5)))
show("expand_non_singleton", lambda: torch.randn(3, 2).expand(3, 4))
show("expand_fewer_dims", lambda: torch.randn(3, 2).expand(2))
show("expand_neg_new", lambda: torch.randn(3).expand(-1, 3))
show("expand_as", lambda: torch.randn(2, 3).expand_as(img))
show("expand_ok", lambda: torch.randn(3, 1).expand(3, 5))
show("repeat_fewer", lambda: torch.randn(2, 3).repeat(2))
show("squeeze_ok", lambda: torch.randn(1, 3, 1).squeeze(0).squeeze(-1))
show("permute_len", lambda: img.permute(0, 2, 1))
show("permute_repeat", lambda: img.permute(0, 1, 1, 2))
show("transpose_range", lambda: img.transpose(0, 4))
show("narrow_range", lambda: img.narrow(2, 2, 3))
show("split_sizes", lambda: torch.randn(5, 2).split([2, 2]))
show("chunk_zero", lambda: torch.randn(5, 2).chunk(0))

# --- broadcasting and arithmetic ----------------------------------------------------------------------------
show("add", lambda: torch.randn(3, 4) + torch.randn(4, 3))
show("add_batch", lambda: torch.randn(8, 10) + torch.randn(10, 10))
show("mul_leading", lambda: torch.randn(2, 3, 4) * torch.randn(3, 2, 4))
show("sub_vec", lambda: torch.randn(5, 3) - torch.randn(5))
show("sub_vec_fix", lambda: torch.randn(5, 3) - torch.randn(5)[:, None])
show("div_vec", lambda: torch.randn(5, 3) / torch.randn(5, 1))
show("where_shapes", lambda: torch.where(torch.rand(3) > 0.5, torch.randn(4), torch.randn(3)))
show("iadd_grow", lambda: torch.zeros(3).add_(torch.ones(2, 3)))
show("mul_out_grow", lambda: torch.zeros(3, 1).mul_(torch.ones(3, 4)))
show("broadcast_tensors", lambda: torch.broadcast_tensors(torch.randn(2, 3), torch.randn(3, 2)))
show("broadcast_shapes", lambda: torch.broadcast_shapes((2, 3), (4, 3)))
show("broadcast_shapes_ok", lambda: torch.broadcast_shapes((2, 1), (1, 3), (5, 1, 1)))
show("broadcast_to", lambda: torch.randn(3, 2).broadcast_to(2, 3))
show("mse_shapes", lambda: F.mse_loss(torch.randn(4, 1), torch.randn(4)))
show("l1_shapes", lambda: F.l1_loss(torch.randn(4, 2), torch.randn(4, 3)))
show("cosine_sim", lambda: F.cosine_similarity(torch.randn(4, 3), torch.randn(4, 5)))
show("pairwise_dist", lambda: F.pairwise_distance(torch.randn(4, 3), torch.randn(2, 3)))
show("cdist_feat", lambda: torch.cdist(torch.randn(4, 3), torch.randn(2, 5)))
show("cdist_ok", lambda: torch.cdist(torch.randn(4, 3), torch.randn(2, 3)))
