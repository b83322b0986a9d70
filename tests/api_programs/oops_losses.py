"""Loss-function mistakes from forum threads: CrossEntropyLoss with one-hot or float targets, a class index past
the last logit, targets of the wrong batch size, NLLLoss on raw scores, BCE with a missing unsqueeze, MSELoss
broadcasting (its UserWarning lands on stderr), KLDiv without log inputs, CTC and margin losses with bad shapes,
and what each fixed call returns."""

import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def oops(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        shown = round(out.item(), 4) if out.numel() == 1 else out.detach().round(decimals=4).tolist()
        print(f"{name}: ok {tuple(out.shape)} {shown}")
    else:
        print(f"{name}: ok {out}")


logits = T(4, 3)
labels = torch.tensor([0, 2, 1, 2])
ce = nn.CrossEntropyLoss()

# cross entropy
oops("ce_fix", lambda: ce(logits, labels))
oops("ce_one_hot_long", lambda: ce(logits, F.one_hot(labels, 3)))
oops("ce_one_hot_float", lambda: ce(logits, F.one_hot(labels, 3).float()))
oops("ce_target_int32", lambda: ce(logits, labels.int()))
oops("ce_target_float", lambda: ce(logits, labels.float()))
oops("ce_target_double", lambda: ce(logits, labels.double()))
oops("ce_target_column", lambda: ce(logits, labels.unsqueeze(1)))
oops("ce_class_4", lambda: ce(logits, torch.tensor([0, 3, 1, 2])))
oops("ce_negative", lambda: ce(logits, torch.tensor([0, -1, 1, 2])))
oops("ce_ignore_neg", lambda: nn.CrossEntropyLoss(ignore_index=-1)(logits, torch.tensor([0, -1, 1, 2])))
oops("ce_batch", lambda: ce(logits, torch.tensor([0, 1])))
oops("ce_swapped", lambda: ce(labels, logits))
oops("ce_1d_logits", lambda: ce(T(3), torch.tensor(1)))
oops("ce_seq_layout", lambda: ce(T(2, 5, 3), torch.zeros(2, 5, dtype=torch.long)))
oops("ce_seq_fix", lambda: ce(T(2, 5, 3).transpose(1, 2), torch.zeros(2, 5, dtype=torch.long)))
oops("ce_weight_size", lambda: nn.CrossEntropyLoss(weight=torch.ones(4))(logits, labels))
oops("ce_weight_int", lambda: nn.CrossEntropyLoss(weight=torch.ones(3, dtype=torch.long))(logits, labels))
oops("ce_label_smoothing", lambda: nn.CrossEntropyLoss(label_smoothing=1.5)(logits, labels))
oops("ce_smooth_fix", lambda: nn.CrossEntropyLoss(label_smoothing=0.1)(logits, labels))
oops("ce_reduction", lambda: nn.CrossEntropyLoss(reduction="avg")(logits, labels))
oops("ce_int_logits", lambda: ce(torch.ones(4, 3, dtype=torch.long), labels))
oops("ce_soft_shape", lambda: ce(logits, torch.full((4, 2), 0.5)))

# negative log likelihood
oops("nll_class_3", lambda: F.nll_loss(F.log_softmax(logits, 1), torch.tensor([0, 3, 1, 2])))
oops("nll_float_target", lambda: F.nll_loss(F.log_softmax(logits, 1), labels.float()))
oops("nll_raw_scores", lambda: F.nll_loss(logits, labels))
oops("nll_3d_target", lambda: F.nll_loss(F.log_softmax(T(2, 3, 4), 1), torch.zeros(2, 5, dtype=torch.long)))
oops("nll_4d", lambda: F.nll_loss(F.log_softmax(T(2, 3, 2, 2), 1), torch.zeros(2, 2, 2, dtype=torch.long)))
oops("nll_4d_target", lambda: F.nll_loss(F.log_softmax(T(2, 3, 2, 2), 1), torch.zeros(2, 2, dtype=torch.long)))

# binary cross entropy
probs = torch.sigmoid(T(4, 1))
oops("bce_squeeze", lambda: F.binary_cross_entropy(probs, torch.tensor([1.0, 0.0, 1.0, 0.0])))
oops("bce_fix", lambda: F.binary_cross_entropy(probs, torch.tensor([1.0, 0.0, 1.0, 0.0]).unsqueeze(1)))
oops("bce_logits_shape", lambda: F.binary_cross_entropy_with_logits(T(4, 1), torch.ones(4)))
oops("bce_logits_int", lambda: F.binary_cross_entropy_with_logits(T(4), torch.ones(4, dtype=torch.long)))
oops("bce_out_of_range", lambda: F.binary_cross_entropy(T(4), torch.ones(4)))
oops("bce_target_range", lambda: F.binary_cross_entropy(torch.full((2,), 0.5), torch.tensor([2.0, 0.0])))
oops("bce_pos_weight", lambda: nn.BCEWithLogitsLoss(pos_weight=torch.ones(3))(T(4, 2), torch.ones(4, 2)))
oops("bce_weight_fix", lambda: nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 1.0]))(T(4, 2), torch.ones(4, 2)))

# regression losses and the broadcasting warning
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    pred = T(4, 1)
    oops("mse_broadcast", lambda: F.mse_loss(pred, torch.ones(4)).shape)
    oops("l1_broadcast", lambda: nn.L1Loss()(pred, torch.ones(4)).shape)
    oops("smooth_l1_broadcast", lambda: F.smooth_l1_loss(pred, torch.ones(4)).shape)
for w in caught:
    print(w.category.__name__, str(w.message))
oops("mse_incompatible", lambda: F.mse_loss(T(4, 2), T(3)))
oops("mse_int", lambda: F.mse_loss(torch.ones(3, dtype=torch.long), torch.zeros(3, dtype=torch.long)))
oops("mse_fix", lambda: F.mse_loss(torch.ones(3), torch.zeros(3)))
oops("mse_dtype", lambda: F.mse_loss(torch.ones(3), torch.zeros(3, dtype=torch.float64)))
oops("huber_delta", lambda: F.huber_loss(T(3), T(3), delta=-1.0))
oops("mse_reduction", lambda: F.mse_loss(T(3), T(3), reduction="none").shape)
oops("mse_bad_reduction", lambda: F.mse_loss(T(3), T(3), reduction="avg"))

# distribution losses
p = F.softmax(T(2, 3), 1)
q = F.softmax(T(2, 3), 1)
oops("kl_batchmean", lambda: F.kl_div(q.log(), p, reduction="batchmean"))
oops("kl_shape", lambda: F.kl_div(q.log(), p[:, :2], reduction="batchmean"))
oops("gauss_nll_var", lambda: F.gaussian_nll_loss(T(3, 2), T(3, 2), torch.ones(3, 3)))
oops("gauss_nll_negative", lambda: F.gaussian_nll_loss(T(3, 2), T(3, 2), -torch.ones(3, 2)))
oops("poisson_fix", lambda: F.poisson_nll_loss(T(3), torch.ones(3)))

# margin and embedding losses
oops("margin_rank_shape", lambda: F.margin_ranking_loss(T(3), T(4), torch.ones(3)))
oops("triplet_dims", lambda: F.triplet_margin_loss(T(3, 4), T(3, 4), T(3, 5)))
oops("cosine_emb_target", lambda: F.cosine_embedding_loss(T(3, 4), T(3, 4), torch.ones(2)))
oops("multimargin_target", lambda: F.multi_margin_loss(T(3, 4), torch.tensor([0, 1, 5])))
oops("hinge_fix", lambda: F.hinge_embedding_loss(T(3), torch.tensor([1.0, -1.0, 1.0])))

# CTC
lp = F.log_softmax(T(6, 2, 4), 2)
tg = torch.tensor([[1, 2], [1, 3]])
oops("ctc_lengths", lambda: F.ctc_loss(lp, tg, torch.tensor([6, 6]), torch.tensor([2, 3])))
oops("ctc_input_len", lambda: F.ctc_loss(lp, tg, torch.tensor([7, 6]), torch.tensor([2, 2])))
oops("ctc_fix", lambda: F.ctc_loss(lp, tg, torch.tensor([6, 6]), torch.tensor([2, 2])))

# a loss that is not a scalar
loss = F.mse_loss(T(3, 2).requires_grad_(), torch.zeros(3, 2), reduction="none")
oops("backward_vector_loss", lambda: loss.backward())
oops("backward_mean_fix", lambda: loss.mean().backward())
oops("loss_item_vector", lambda: loss.item())
