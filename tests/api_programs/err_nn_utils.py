"""torch.nn.utils mistakes from sequence models and model-compression code, printed as type(e).__name__ and the
whole message: pack_padded_sequence with unsorted or too-long lengths, pad_sequence of mismatched trailing dims,
parametrizations that change the shape or are removed twice, pruning amounts out of range, spectral and weight
norm on missing parameters, and the packed/padded round trips that work."""

import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
import torch.nn.utils.prune as prune
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(14)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    print(f"{name}: ok {out}")
    return out


# --- packing ----------------------------------------------------------------------------------------------
batch = torch.randn(3, 5, 2)
show("pack_unsorted", lambda: pack_padded_sequence(batch, [3, 5, 2], batch_first=True))
show("pack_unsorted_ok", lambda: pack_padded_sequence(batch, [3, 5, 2], batch_first=True,
                                                      enforce_sorted=False).batch_sizes)
show("pack_zero_length", lambda: pack_padded_sequence(batch, [5, 3, 0], batch_first=True))
show("pack_count", lambda: pack_padded_sequence(batch, [5, 3], batch_first=True))
show("pack_lengths_tensor_ok", lambda: pack_padded_sequence(batch, torch.tensor([5, 3, 2]), batch_first=True)
     .batch_sizes)
show("pack_lengths_2d", lambda: pack_padded_sequence(batch, torch.tensor([[5, 3, 2]]), batch_first=True))
show("pack_sequence_unsorted", lambda: pack_sequence([torch.ones(2), torch.ones(3)]))
show("pack_sequence_ok", lambda: pack_sequence([torch.ones(2), torch.ones(3)], enforce_sorted=False).batch_sizes)
show("pad_sequence_dims", lambda: pad_sequence([torch.ones(2, 3), torch.ones(4, 2)]))
show("pad_sequence_ok", lambda: pad_sequence([torch.ones(2, 3), torch.ones(4, 3)], batch_first=True,
                                             padding_value=-1.0).sum())
show("pad_sequence_side", lambda: pad_sequence([torch.ones(2), torch.ones(3)], padding_side="middle"))
show("pad_sequence_empty", lambda: pad_sequence([]))
packed = pack_padded_sequence(batch, [5, 3, 2], batch_first=True)
show("pad_packed_short_total", lambda: pad_packed_sequence(packed, batch_first=True, total_length=4))
out, lengths = pad_packed_sequence(packed, batch_first=True, total_length=6)
print("padded", tuple(out.shape), lengths.tolist(), out[2, 2:].abs().sum().item())
lstm = nn.LSTM(2, 3, batch_first=True)
show("lstm_packed_ok", lambda: lstm(packed)[1][0].shape)
show("lstm_packed_hidden_batch", lambda: lstm(packed, (torch.zeros(1, 2, 3), torch.zeros(1, 2, 3))))
show("packed_as_tensor", lambda: packed.sum())

# --- parametrizations ------------------------------------------------------------------------------------------


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class Shrink(nn.Module):
    def forward(self, x):
        return x[:-1]


class ToInt(nn.Module):
    def forward(self, x):
        return x.long()


lin = nn.Linear(3, 3)
show("register_symmetric_ok", lambda: type(P.register_parametrization(lin, "weight", Symmetric())).__name__)
show("is_symmetric", lambda: torch.equal(lin.weight, lin.weight.T))
show("register_missing", lambda: P.register_parametrization(nn.Linear(2, 2), "gain", Symmetric()))
show("register_shape_change", lambda: P.register_parametrization(nn.Linear(2, 2), "weight", Shrink()))
show("register_dtype_change", lambda: P.register_parametrization(nn.Linear(2, 2), "weight", ToInt()))
show("remove_missing", lambda: P.remove_parametrizations(nn.Linear(2, 2), "weight"))
show("remove_ok", lambda: P.remove_parametrizations(lin, "weight") or P.is_parametrized(lin))
show("remove_twice", lambda: P.remove_parametrizations(lin, "weight"))
show("cached_outside", lambda: P.cached().__enter__() and None)
show("orthogonal_1d", lambda: nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), "bias"))
show("weight_norm_missing", lambda: nn.utils.parametrizations.weight_norm(nn.Linear(2, 2), "gain"))
show("spectral_norm_missing", lambda: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), "gain"))
show("spectral_norm_ok", lambda: sorted(n for n, _ in nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2))
                                        .named_parameters()))

# --- pruning ---------------------------------------------------------------------------------------------------------
show("prune_amount_big", lambda: prune.l1_unstructured(nn.Linear(4, 2), "weight", amount=9))
show("prune_amount_fraction", lambda: prune.l1_unstructured(nn.Linear(4, 2), "weight", amount=1.5))
show("prune_amount_negative", lambda: prune.random_unstructured(nn.Linear(4, 2), "weight", amount=-0.1))
show("prune_missing", lambda: prune.l1_unstructured(nn.Linear(4, 2), "gain", amount=0.5))
show("prune_remove_unpruned", lambda: prune.remove(nn.Linear(4, 2), "weight"))
show("prune_ln_dim", lambda: prune.ln_structured(nn.Linear(4, 2), "weight", amount=0.5, n=2, dim=2))
m = prune.l1_unstructured(nn.Linear(4, 2), "weight", amount=3)
show("prune_ok", lambda: (int((m.weight == 0).sum()), sorted(n for n, _ in m.named_buffers())))
show("prune_global_bad_amount", lambda: prune.global_unstructured([(m, "bias")], prune.L1Unstructured, amount=5))
show("prune_is_pruned", lambda: (prune.is_pruned(m), prune.is_pruned(nn.Linear(1, 1))))

# --- other utils -----------------------------------------------------------------------------------------------------
show("fuse_conv_bn_train", lambda: torch.nn.utils.fusion.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1)))
show("skip_init_ok", lambda: nn.utils.skip_init(nn.Linear, 2, 3).weight.shape)
show("stateless_missing", lambda: torch.func.functional_call(nn.Linear(2, 2), {"gain": torch.ones(2)},
                                                             (torch.ones(1, 2),)))
show("stateless_strict", lambda: torch.func.functional_call(nn.Linear(2, 2), {"weight": torch.ones(2, 2)},
                                                            (torch.ones(1, 2),), strict=True))
params = {"weight": torch.eye(2), "bias": torch.ones(2)}
show("stateless_ok", lambda: torch.func.functional_call(nn.Linear(2, 2), params, (torch.ones(1, 2),)))
