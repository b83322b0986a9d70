"""Index and dimension mistakes in a token pipeline and a feature table: integer and tensor indices out of range,
too many indices, invalid dims for reductions/softmax/argmax/transpose, item() and bool() on many elements,
embedding ids past the vocabulary, gather/scatter/index_select/take out of range, topk/kthvalue beyond the size,
each printed as type(e).__name__ and the whole message."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(5)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} {out}")
    else:
        print(f"{name}: ok {out}")
    return out


table = torch.randn(4, 5)
tokens = torch.tensor([[3, 7, 1, 0], [2, 9, 4, 4]])

# --- plain indexing -----------------------------------------------------------------------------------------
show("row_4", lambda: table[4])
show("row_neg5", lambda: table[-5])
show("row_neg4_ok", lambda: table[-4])
show("col_5", lambda: table[:, 5])
show("too_many", lambda: table[0, 1, 2])
show("too_many_ellipsis", lambda: table[..., 0, 0, 0])
show("scalar_index", lambda: torch.tensor(3.0)[0])
show("slice_past_end_ok", lambda: table[2:10, 4:9])
show("step_zero", lambda: table[::0])
show("negative_step", lambda: table[::-1])
show("tensor_idx_range", lambda: table[torch.tensor([0, 4])])
show("tensor_idx_neg_range", lambda: table[torch.tensor([-5])])
show("list_idx_range", lambda: table[[1, 2, 7]])
show("adv_idx_shapes", lambda: table[torch.tensor([0, 1]), torch.tensor([0, 1, 2])])
show("adv_idx_bcast_ok", lambda: table[torch.tensor([[0], [1]]), torch.tensor([0, 1, 2])])
show("setitem_range", lambda: table.clone().__setitem__((5, 0), 1.0))
show("setitem_shape", lambda: table.clone().__setitem__(0, torch.ones(4)))
show("setitem_mask_values", lambda: table.clone().__setitem__(table > 0, torch.ones(3)))
show("setitem_float_idx", lambda: table.clone().__setitem__(torch.tensor([0.0]), 1.0))
show("none_index_ok", lambda: table[None, :, None, 0].shape)
show("string_index", lambda: table["a"])

# --- dims ---------------------------------------------------------------------------------------------------
show("sum_dim", lambda: table.sum(2))
show("sum_dim_neg", lambda: table.sum(-3))
show("sum_dims_repeat", lambda: table.sum((0, 0)))
show("mean_dim_tuple", lambda: table.mean((0, 2)))
show("softmax_dim", lambda: table.softmax(2))
show("log_softmax_dim", lambda: F.log_softmax(table, dim=-3))
show("argmax_dim", lambda: table.argmax(dim=2))
show("max_dim", lambda: table.max(dim=3))
show("cumsum_dim", lambda: table.cumsum(5))
show("unsqueeze_dim", lambda: table.unsqueeze(3))
show("unsqueeze_neg_ok", lambda: table.unsqueeze(-3).shape)
show("squeeze_dim", lambda: table.squeeze(2))
show("size_dim", lambda: table.size(2))
show("stride_dim", lambda: table.stride(-3))
show("select_dim", lambda: table.select(2, 0))
show("select_index", lambda: table.select(1, 5))
show("unbind_dim", lambda: table.unbind(2))
show("flip_dims", lambda: table.flip(2))
show("roll_dims", lambda: table.roll(1, dims=3))
show("roll_mismatch", lambda: table.roll((1, 2), dims=(0,)))
show("movedim_repeat", lambda: table.movedim((0, 1), (1, 1)))
show("norm_dim", lambda: table.norm(dim=2))
show("scalar_dim0_ok", lambda: torch.tensor(2.0).sum(0))
show("scalar_dim1", lambda: torch.tensor(2.0).sum(1))
show("scalar_softmax_ok", lambda: torch.tensor(2.0).softmax(-1))
show("diagonal_dims", lambda: table.diagonal(dim1=0, dim2=0))

# --- item / bool -----------------------------------------------------------------------------------------------
loss = F.mse_loss(table, torch.zeros(4, 5), reduction="none")
show("item_many", lambda: loss.item())
show("item_one_ok", lambda: round(loss.mean().item(), 4))
show("item_shape_1x1_ok", lambda: round(loss[:1, :1].item(), 4))
show("item_empty", lambda: torch.tensor([]).item())
show("float_many", lambda: float(loss))
show("int_many", lambda: int(tokens))
show("bool_many", lambda: bool(table > 0))
show("if_tensor", lambda: "yes" if table[0] > 0 else "no")
show("bool_empty", lambda: bool(torch.tensor([])))
show("index_many", lambda: [10, 20, 30][torch.tensor([1, 2])])
show("index_one_ok", lambda: [10, 20, 30][torch.tensor(2)])
show("index_float", lambda: [10, 20, 30][torch.tensor(1.0)])
show("range_tensor_ok", lambda: list(range(torch.tensor(3))))
show("len_scalar", lambda: len(torch.tensor(3.0)))
show("iter_scalar", lambda: list(torch.tensor(3.0)))
show("tolist_scalar_ok", lambda: torch.tensor(3.5).tolist())

# --- embeddings ---------------------------------------------------------------------------------------------
emb = nn.Embedding(8, 3)
show("embedding_past_vocab", lambda: emb(tokens))
show("embedding_negative", lambda: emb(torch.tensor([-1])))
show("embedding_ok", lambda: emb(tokens.clamp(max=7)).shape)
show("f_embedding_range", lambda: F.embedding(torch.tensor([[5]]), torch.randn(4, 2)))
show("embedding_padding_idx", lambda: nn.Embedding(8, 3, padding_idx=8))
show("embedding_padding_neg_ok", lambda: nn.Embedding(8, 3, padding_idx=-1).padding_idx)
show("embedding_padding_neg", lambda: nn.Embedding(8, 3, padding_idx=-9))
bag = nn.EmbeddingBag(8, 3, mode="sum")
show("bag_range", lambda: bag(torch.tensor([1, 8]), torch.tensor([0])))
show("bag_offsets_start", lambda: bag(torch.tensor([1, 2]), torch.tensor([1])))
show("bag_2d_offsets", lambda: bag(tokens.clamp(max=7), torch.tensor([0])))
show("one_hot_classes", lambda: F.one_hot(tokens, 8))
show("one_hot_negative", lambda: F.one_hot(torch.tensor([-1, 2])))

# --- gather / scatter / take / select ---------------------------------------------------------------------------------
show("gather_range", lambda: table.gather(1, torch.tensor([[5]] * 4)))
show("gather_rank", lambda: table.gather(1, torch.tensor([0, 1])))
show("gather_dim", lambda: table.gather(2, torch.zeros(4, 1, dtype=torch.long)))
show("scatter_range", lambda: torch.zeros(3).scatter(0, torch.tensor([3]), 1.0))
show("scatter_add_range", lambda: torch.zeros(2, 3).scatter_add(1, torch.tensor([[0, 4]]), torch.ones(1, 2)))
show("scatter_reduce_bad", lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([1]), torch.ones(1), reduce="avg"))
show("index_select_range", lambda: table.index_select(0, torch.tensor([4])))
show("index_select_2d", lambda: table.index_select(0, torch.tensor([[0]])))
show("index_add_range", lambda: torch.zeros(3).index_add(0, torch.tensor([3]), torch.ones(1)))
show("index_fill_range", lambda: torch.zeros(3).index_fill(0, torch.tensor([-4]), 1.0))
show("index_copy_range", lambda: torch.zeros(3).index_copy(0, torch.tensor([5]), torch.ones(1)))
show("take_range", lambda: table.take(torch.tensor([20])))
show("put_range", lambda: torch.zeros(3).put(torch.tensor([3]), torch.ones(1)))
show("narrow_start", lambda: table.narrow(0, 5, 1))
show("narrow_neg_ok", lambda: table.narrow(0, -2, 2).shape)

# --- sizes --------------------------------------------------------------------------------------------------
show("topk_k", lambda: table.topk(6))
show("topk_k_dim0", lambda: table.topk(5, dim=0))
show("topk_ok", lambda: table.topk(2).indices)
show("kthvalue_k", lambda: table.kthvalue(6))
show("kthvalue_zero", lambda: table.kthvalue(0))
show("multinomial_too_many", lambda: torch.multinomial(torch.ones(3), 4))
show("multinomial_negative", lambda: torch.multinomial(torch.tensor([0.5, -0.5]), 1))
show("multinomial_zero", lambda: torch.multinomial(torch.zeros(3), 1))
show("randint_range", lambda: torch.randint(5, 2, (3,)))
show("randperm_negative", lambda: torch.randperm(-1))
show("unfold_size", lambda: torch.arange(5).unfold(0, 6, 1))
show("unfold_step", lambda: torch.arange(5).unfold(0, 2, 0))
