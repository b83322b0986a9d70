"""The loss and padding questions that top the forums: CrossEntropyLoss target shapes and dtypes (and the
messages of the usual mistakes), ignore_index on padded tokens, class weights, label smoothing, soft targets,
BCEWithLogits pos_weight, reduction='none' with a mask, pad_sequence and pack_padded_sequence (sorted or not),
and taking the last valid RNN step per sequence."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

rng = np.random.default_rng(7)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def R(t):
    return round(t.item(), 4) if t.ndim == 0 else t.round(decimals=4).tolist()


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", R(out) if isinstance(out, torch.Tensor) else out)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


logits = T(4, 3)
target = torch.tensor([0, 2, 1, 2])
ce = nn.CrossEntropyLoss()
print("ce", R(ce(logits, target)), R(F.nll_loss(F.log_softmax(logits, 1), target)))
print("ce_none", R(F.cross_entropy(logits, target, reduction="none")),
      R(F.cross_entropy(logits, target, reduction="sum")))
print("ce_weight", R(F.cross_entropy(logits, target, weight=torch.tensor([1.0, 2.0, 0.5]))))
print("ce_smooth", R(F.cross_entropy(logits, target, label_smoothing=0.1)))
soft = F.softmax(T(4, 3), 1)
print("ce_soft", R(F.cross_entropy(logits, soft)), R(-(soft * logits.log_softmax(1)).sum(1).mean()))
print("ce_ignore", R(F.cross_entropy(logits, torch.tensor([0, -100, 1, -100]))),
      R(F.cross_entropy(logits, torch.tensor([0, 1, 1, 1]), ignore_index=1)))
print("ce_all_ignored", F.cross_entropy(logits[:1], torch.tensor([-100])).item())
catch("ce_float_target", lambda: ce(logits, target.float()))
catch("ce_onehot_long", lambda: ce(logits, F.one_hot(target, 3)))
catch("ce_int_target", lambda: ce(logits, target.int()))
catch("ce_shape", lambda: ce(logits, target[:3]))
catch("ce_2d_target", lambda: ce(logits, target[:, None]))
catch("ce_oob", lambda: ce(logits, torch.tensor([0, 3, 1, 2])))
catch("nll_1d", lambda: F.nll_loss(logits[0], target[0]))
catch("ce_double", lambda: ce(logits.double(), target))

# sequence (N, C, L) losses with padding
seq_logits = T(2, 5, 4)  # batch, vocab, time
seq_tgt = torch.tensor([[1, 4, 2, 0], [3, 3, 0, 0]])
print("seq_ce", R(F.cross_entropy(seq_logits, seq_tgt, ignore_index=0)))
flat = F.cross_entropy(seq_logits.transpose(1, 2).reshape(-1, 5), seq_tgt.reshape(-1), ignore_index=0)
print("seq_flat", R(flat))
per = F.cross_entropy(seq_logits, seq_tgt, reduction="none")
mask = (seq_tgt != 0).float()
print("seq_mask", per.shape, R((per * mask).sum() / mask.sum()))
catch("seq_wrong_layout", lambda: F.cross_entropy(seq_logits.transpose(1, 2), seq_tgt))

# binary
z = T(4)
yb = torch.tensor([1.0, 0.0, 1.0, 1.0])
print("bce", R(F.binary_cross_entropy_with_logits(z, yb)), R(F.binary_cross_entropy(torch.sigmoid(z), yb)))
print("bce_pos", R(F.binary_cross_entropy_with_logits(z, yb, pos_weight=torch.tensor(3.0))),
      R(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))(z[:, None], yb[:, None])))
print("bce_w", R(F.binary_cross_entropy_with_logits(z, yb, weight=torch.tensor([1.0, 0.0, 1.0, 0.5]),
                                                    reduction="none")))
catch("bce_long", lambda: F.binary_cross_entropy_with_logits(z, yb.long()))
catch("bce_shape", lambda: F.binary_cross_entropy_with_logits(z, yb[:, None]))
catch("bce_range", lambda: F.binary_cross_entropy(z, yb))
catch("mse_shape_warn", lambda: F.mse_loss(z[:, None], yb).shape)
print("kl", R(F.kl_div(F.log_softmax(logits, 1), soft, reduction="batchmean")),
      R(F.kl_div(F.log_softmax(logits, 1), soft.log(), reduction="sum", log_target=True)))

# padding and packing
seqs = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0]), torch.tensor([5.0, 6.0])]
lens = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True)
print("pad", padded.tolist(), pad_sequence(seqs).shape, pad_sequence(seqs, True, -1.0)[1].tolist())
print("pad_left", pad_sequence(seqs, batch_first=True, padding_side="left").tolist())
catch("pack_unsorted", lambda: pack_padded_sequence(padded[..., None], lens, batch_first=True))
packed = pack_padded_sequence(padded[..., None], lens, batch_first=True, enforce_sorted=False)
print("packed", packed.data.squeeze(1).tolist(), packed.batch_sizes.tolist(), packed.sorted_indices.tolist(),
      packed.unsorted_indices.tolist())
rnn = nn.GRU(1, 2, batch_first=True)
with torch.no_grad():
    for name, p in rnn.named_parameters():
        p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape))
out, h = rnn(packed)
unpacked, out_lens = pad_packed_sequence(out, batch_first=True)
print("unpacked", unpacked.shape, out_lens.tolist(), R(unpacked[1]))
last = unpacked[torch.arange(3), lens - 1]
print("last", R(last), torch.allclose(last, h[0], atol=1e-6))
last2 = unpacked.gather(1, (lens - 1).view(-1, 1, 1).expand(-1, 1, 2)).squeeze(1)
print("last_gather", torch.equal(last, last2))
catch("pack_cuda_lengths", lambda: pack_padded_sequence(padded[..., None], lens.float(), batch_first=True,
                                                        enforce_sorted=False).batch_sizes)
catch("pack_zero_len", lambda: pack_padded_sequence(padded[..., None], torch.tensor([3, 0, 2]), batch_first=True,
                                                    enforce_sorted=False))
catch("pad_dims", lambda: pad_sequence([torch.ones(2, 3), torch.ones(2, 4)]))
