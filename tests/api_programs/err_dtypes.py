"""Dtype mistakes from classifiers, regressors and data pipelines, printed as type(e).__name__ and the whole
message: Long @ Float, Half and Double mixes in matmul and linear, float and bool index tensors, cross_entropy and
nll_loss target dtypes and shapes, BCE targets, in-place type promotion (an int tensor add_ a float), out= casting,
integer division, and what the fixed code computes."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {out.dtype} {out}")
    else:
        print(f"{name}: ok {out}")
    return out


counts = torch.randint(0, 5, (3, 4))
weights = torch.randn(4, 2)
show("long_at_float", lambda: counts @ weights)
show("float_at_long", lambda: weights.T @ counts.T)
show("mm_long_float", lambda: torch.mm(counts, weights))
show("bmm_double_float", lambda: torch.bmm(torch.randn(1, 2, 2, dtype=torch.float64), torch.randn(1, 2, 2)))
show("matmul_half_float", lambda: torch.randn(2, 2).half() @ torch.randn(2, 2))
show("matmul_int32_int64", lambda: torch.ones(2, 2, dtype=torch.int32) @ torch.ones(2, 2, dtype=torch.int64))
show("mv_int_float", lambda: torch.mv(counts, torch.randn(4)))
show("dot_int_float", lambda: torch.dot(torch.arange(3), torch.randn(3)))
show("long_at_float_fixed", lambda: counts.float() @ weights)
lin = nn.Linear(4, 2)
show("linear_long", lambda: lin(counts))
show("linear_double", lambda: lin(counts.double()))
show("linear_half", lambda: lin(counts.half()))
show("linear_bf16_fixed", lambda: lin.to(torch.bfloat16)(counts.to(torch.bfloat16)).float().sum().round(decimals=1))
show("conv_double", lambda: nn.Conv1d(1, 1, 2)(torch.randn(1, 1, 4, dtype=torch.float64)))
show("conv_long", lambda: nn.Conv2d(1, 1, 2)(torch.ones(1, 1, 3, 3, dtype=torch.long)))
show("embedding_float_idx", lambda: nn.Embedding(5, 2)(torch.tensor([1.0, 2.0])))
show("embedding_int32_ok", lambda: nn.Embedding(5, 2)(torch.tensor([1, 2], dtype=torch.int32)).shape)
show("lstm_double", lambda: nn.LSTM(2, 3)(torch.randn(4, 1, 2, dtype=torch.float64)))
show("layernorm_long", lambda: nn.LayerNorm(4)(counts))
show("bn_long", lambda: nn.BatchNorm1d(4)(counts))

# --- index tensors ------------------------------------------------------------------------------------------
data = torch.arange(10.0)
show("float_index", lambda: data[torch.tensor([1.0, 2.0])])
show("float_index_2d", lambda: data.view(2, 5)[torch.tensor([0.0]), 1])
show("int32_index_ok", lambda: data[torch.tensor([1, 3], dtype=torch.int32)])
show("uint8_mask_ok", lambda: data[torch.tensor([1, 0] * 5, dtype=torch.uint8) == 1])
show("bool_mask_wrong_len", lambda: data[torch.ones(5, dtype=torch.bool)])
show("index_select_float", lambda: data.index_select(0, torch.tensor([1.0])))
show("index_select_int32_ok", lambda: data.index_select(0, torch.tensor([1], dtype=torch.int32)))
show("gather_int32", lambda: data.view(2, 5).gather(1, torch.tensor([[0], [1]], dtype=torch.int32)))
show("gather_float", lambda: data.view(2, 5).gather(1, torch.tensor([[0.0], [1.0]])))
show("scatter_int32", lambda: torch.zeros(5).scatter(0, torch.tensor([1], dtype=torch.int32), 1.0))
show("scatter_src_dtype", lambda: torch.zeros(5).scatter(0, torch.tensor([1]), torch.ones(1, dtype=torch.float64)))
show("scatter_add_ok", lambda: torch.zeros(5).scatter_add(0, torch.tensor([1, 1, 3]), torch.ones(3)))
show("index_add_dtype", lambda: torch.zeros(5).index_add(0, torch.tensor([1]), torch.ones(1, dtype=torch.float64)))
show("index_put_dtype", lambda: torch.zeros(5).index_put_((torch.tensor([1]),), torch.ones(1, dtype=torch.float64)))
show("masked_fill_mask_dtype", lambda: data.masked_fill(data > 4, 0.0).sum())
show("masked_fill_uint8", lambda: data.masked_fill(torch.ones(10, dtype=torch.uint8), 0.0))
show("masked_fill_float_mask", lambda: data.masked_fill(torch.ones(10), 0.0))
show("where_cond_float", lambda: torch.where(torch.ones(3), torch.ones(3), torch.zeros(3)))
show("one_hot_float", lambda: F.one_hot(torch.tensor([0.0, 1.0]), 3))
show("one_hot_ok", lambda: F.one_hot(torch.tensor([0, 2]), 3))
show("bincount_float", lambda: torch.bincount(torch.tensor([1.0, 2.0])))

# --- losses -------------------------------------------------------------------------------------------------
logits = torch.randn(4, 3)
show("ce_int32_target", lambda: F.cross_entropy(logits, torch.tensor([0, 1, 2, 1], dtype=torch.int32)))
show("ce_float_target_1d", lambda: F.cross_entropy(logits, torch.tensor([0.0, 1.0, 2.0, 1.0])))
show("ce_target_2d_long", lambda: F.cross_entropy(logits, torch.zeros(4, 3, dtype=torch.long)))
show("ce_soft_target_ok", lambda: F.cross_entropy(logits, F.softmax(torch.randn(4, 3), 1)).round(decimals=4))
show("ce_soft_target_shape", lambda: F.cross_entropy(logits, F.softmax(torch.randn(4, 2), 1)))
show("ce_target_range", lambda: F.cross_entropy(logits, torch.tensor([0, 1, 3, 1])))
show("ce_ignore_index_ok", lambda: F.cross_entropy(logits, torch.tensor([0, -100, 2, 1])).round(decimals=4))
show("ce_long_logits", lambda: F.cross_entropy(torch.ones(4, 3, dtype=torch.long), torch.tensor([0, 1, 2, 1])))
show("ce_seq_shape", lambda: F.cross_entropy(torch.randn(2, 5, 7), torch.randint(0, 7, (2, 5))))
show("ce_seq_fixed", lambda: F.cross_entropy(torch.randn(2, 5, 7).transpose(1, 2), torch.randint(0, 7, (2, 5))).shape)
show("ce_weight_dtype", lambda: F.cross_entropy(logits, torch.tensor([0, 1, 2, 1]), weight=torch.ones(3).double()))
show("ce_weight_len", lambda: F.cross_entropy(logits, torch.tensor([0, 1, 2, 1]), weight=torch.ones(4)))
show("nll_float_target", lambda: F.nll_loss(F.log_softmax(logits, 1), torch.tensor([0.0, 1.0, 2.0, 1.0])))
show("nll_batch", lambda: F.nll_loss(F.log_softmax(logits, 1), torch.tensor([0, 1])))
show("nll_1d_input", lambda: F.nll_loss(torch.randn(3), torch.tensor([0, 1, 2])))
show("nll_target_shape", lambda: F.nll_loss(torch.randn(2, 3, 4), torch.zeros(2, 5, dtype=torch.long)))
show("bce_long_target", lambda: F.binary_cross_entropy(torch.rand(4), torch.tensor([1, 0, 1, 0])))
show("bce_shape", lambda: F.binary_cross_entropy(torch.rand(4, 1), torch.rand(4)))
show("bce_out_of_range", lambda: F.binary_cross_entropy(torch.tensor([1.5, 0.5]), torch.tensor([1.0, 0.0])))
show("bcel_shape", lambda: F.binary_cross_entropy_with_logits(torch.randn(4, 1), torch.rand(4)))
show("bcel_bool_target", lambda: F.binary_cross_entropy_with_logits(torch.randn(4), torch.tensor([True, False] * 2)))
show("bcel_pos_weight", lambda: F.binary_cross_entropy_with_logits(torch.randn(4, 3), torch.rand(4, 3),
                                                                   pos_weight=torch.ones(2)))
show("mse_long", lambda: F.mse_loss(torch.randn(3), torch.tensor([1, 2, 3])))
show("mse_int_both", lambda: F.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 3])))
show("l1_bool", lambda: F.l1_loss(torch.randn(3), torch.tensor([True, False, True])))
show("kl_long", lambda: F.kl_div(torch.randn(3).log_softmax(0), torch.tensor([0, 1, 0]), reduction="batchmean"))
show("smooth_l1_double", lambda: F.smooth_l1_loss(torch.randn(3), torch.randn(3, dtype=torch.float64)).dtype)

# --- in-place promotion and casting -------------------------------------------------------------------------
ints = torch.tensor([1, 2, 3])
show("int_add_float_", lambda: ints.clone().add_(0.5))
show("int_add_float_tensor_", lambda: ints.clone().add_(torch.tensor([0.5, 0.5, 0.5])))
show("int_iadd_float", lambda: ints.clone().__iadd__(1.5))
show("int_mul_float_", lambda: ints.clone().mul_(torch.tensor(2.5)))
show("int_div_", lambda: ints.clone().div_(2))
show("int_div_floor_ok", lambda: ints.clone().div_(2, rounding_mode="floor"))
show("int_sqrt_", lambda: ints.clone().sqrt_())
show("int_exp_", lambda: ints.clone().exp_())
show("bool_add_", lambda: torch.tensor([True, False]).add_(1))
show("float_add_complex_", lambda: torch.ones(2).add_(torch.tensor([1j, 1j])))
show("float32_add_double_ok", lambda: torch.ones(2).add_(torch.ones(2, dtype=torch.float64)))
show("int_add_scalar_tensor_ok", lambda: ints.clone().add_(torch.tensor(2.5).long()))
show("out_int_for_float", lambda: torch.add(torch.ones(2), 0.5, out=torch.empty(2, dtype=torch.long)))
show("out_float_for_int_ok", lambda: torch.add(ints, 1, out=torch.empty(3)))
show("sum_out_int", lambda: torch.sum(torch.ones(3), 0, out=torch.empty((), dtype=torch.int64)))
show("copy_cast_ok", lambda: torch.empty(3, dtype=torch.int64).copy_(torch.tensor([1.7, -1.7, 2.5])))
show("masked_scatter_dtype", lambda: torch.zeros(3).masked_scatter_(torch.tensor([True, False, True]),
                                                                     torch.ones(2, dtype=torch.float64)))
show("clamp_int_float", lambda: ints.clone().clamp_(0.5, 2.5))
show("floor_divide_ok", lambda: torch.floor_divide(torch.tensor([7, -7]), 2))
show("true_div_int", lambda: torch.tensor([7, -7]) / 2)
show("bitwise_float", lambda: torch.ones(2) & torch.ones(2))
show("shift_float", lambda: torch.ones(2) << 1)
show("lerp_dtypes", lambda: torch.lerp(torch.zeros(2), torch.ones(2, dtype=torch.float64), 0.5))
show("cumsum_int_ok", lambda: torch.cumsum(torch.tensor([True, True, False]), 0))
show("mean_int", lambda: ints.mean())
show("mean_int_dtype_ok", lambda: ints.mean(dtype=torch.float32))
show("std_int", lambda: ints.std())
show("var_bool", lambda: torch.tensor([True, False]).var())
show("softmax_int", lambda: ints.softmax(0))
show("softmax_int_dtype_ok", lambda: ints.softmax(0, dtype=torch.float64))
show("norm_int", lambda: ints.norm())
show("quantile_int", lambda: torch.quantile(ints, 0.5))
