"""Index and label tensors' dtypes as data pipelines produce them: int32/uint8/bool indices, targets, one_hot."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def attempt(tag, fn):
    try:
        res = fn()
        if isinstance(res, torch.Tensor):
            vals = res.tolist()
            if res.is_floating_point():
                vals = [round(v, 4) for v in res.reshape(-1).tolist()]
            print(f"{tag:<30}", vals, str(res.dtype).replace("torch.", ""))
        else:
            print(f"{tag:<30}", res)
    except (RuntimeError, TypeError, IndexError, ValueError) as e:
        print(f"{tag:<30}", type(e).__name__ + ":", e)


x = torch.arange(10.0) * 1.5
idx64 = torch.tensor([0, 3, 9])
idx32 = idx64.int()
idx16 = idx64.short()
idxu8 = idx64.to(torch.uint8)
mask = x > 6

attempt("x[int64]", lambda: x[idx64])
attempt("x[int32]", lambda: x[idx32])
attempt("x[int16]", lambda: x[idx16])
attempt("x[uint8] (as mask?)", lambda: x[torch.tensor([1, 0, 0, 1, 0, 0, 0, 0, 0, 1], dtype=torch.uint8)])
attempt("x[bool]", lambda: x[mask])
attempt("x[float idx]", lambda: x[idx64.float()])
attempt("x[list of int]", lambda: x[[1, 2]])
attempt("x[list of bool]", lambda: x[[True, False] * 5])
attempt("x[0-dim int tensor]", lambda: x[torch.tensor(4)])
attempt("x[0-dim bool]", lambda: x[torch.tensor(True)].shape)
attempt("index_select int32", lambda: torch.index_select(x, 0, idx32))
attempt("index_select int16", lambda: torch.index_select(x, 0, idx16))
attempt("index_select float", lambda: torch.index_select(x, 0, idx64.float()))
attempt("gather int64", lambda: torch.gather(x.view(2, 5), 1, torch.tensor([[0, 4], [1, 1]])))
attempt("gather int32", lambda: torch.gather(x.view(2, 5), 1, torch.tensor([[0, 4], [1, 1]], dtype=torch.int32)))
attempt("take int32", lambda: torch.take(x, idx32))
attempt("scatter_ int32 idx", lambda: torch.zeros(5).scatter_(0, torch.tensor([1, 3], dtype=torch.int32), 1.0))
attempt("scatter_add_ int64", lambda: torch.zeros(3).scatter_add_(0, torch.tensor([0, 0, 2]), torch.ones(3)))
attempt("index_add_ int32", lambda: torch.zeros(3).index_add_(0, torch.tensor([2, 2], dtype=torch.int32),
                                                               torch.ones(2)))
attempt("index_put_ accumulate", lambda: torch.zeros(3).index_put_((torch.tensor([0, 0]),), torch.tensor(2.0),
                                                                   accumulate=True))
attempt("index_put_ int src cast", lambda: torch.zeros(3).index_put_((idx64[:2].clamp(max=2),),
                                                                     torch.tensor([7, 8])))
y = torch.zeros(4, dtype=torch.int32)
y[torch.tensor([1, 2])] = 5
attempt("setitem int32 <- 5", lambda: y)
y[torch.tensor([True, False, False, True])] = torch.tensor(9.9)
attempt("setitem bool mask <- 9.9", lambda: y)
attempt("masked_select", lambda: torch.masked_select(x, mask))
attempt("masked_fill u8 mask", lambda: x.masked_fill(mask.to(torch.uint8), 0.0))
attempt("where u8 cond", lambda: torch.where(mask.to(torch.uint8), x, 0.0))
attempt("nonzero dtype", lambda: torch.nonzero(mask).dtype)
attempt("argwhere", lambda: torch.argwhere(mask.view(2, 5)))
attempt("argsort dtype", lambda: torch.argsort(x, descending=True).dtype)
attempt("randperm dtype", lambda: torch.randperm(4))
attempt("randperm int32", lambda: torch.randperm(4, dtype=torch.int32))
attempt("randint dtype", lambda: torch.randint(0, 3, (3,), dtype=torch.int8))

# labels for losses
logits = torch.randn(4, 3)
tgt = torch.tensor([0, 2, 1, 2])
attempt("cross_entropy int64", lambda: F.cross_entropy(logits, tgt))
attempt("cross_entropy int32", lambda: F.cross_entropy(logits, tgt.int()))
attempt("cross_entropy uint8", lambda: F.cross_entropy(logits, tgt.to(torch.uint8)))
attempt("cross_entropy probs f32", lambda: F.cross_entropy(logits, F.one_hot(tgt, 3).float()))
attempt("cross_entropy probs int", lambda: F.cross_entropy(logits, F.one_hot(tgt, 3)))
attempt("nll_loss float target", lambda: F.nll_loss(logits.log_softmax(1), tgt.float()))
attempt("bce int target", lambda: F.binary_cross_entropy_with_logits(logits[:, 0], torch.tensor([1, 0, 1, 0])))
attempt("bce f64 target", lambda: F.binary_cross_entropy_with_logits(logits[:, 0], torch.tensor([1.0, 0, 1, 0],
                                                                                                 dtype=torch.float64)))
attempt("mse int target", lambda: F.mse_loss(logits[:, 0], torch.tensor([1, 0, 1, 0])))
attempt("mse f64 target", lambda: F.mse_loss(logits[:, 0], torch.zeros(4, dtype=torch.float64)))
attempt("one_hot int64", lambda: F.one_hot(torch.tensor([0, 2]), 3))
attempt("one_hot int32", lambda: F.one_hot(torch.tensor([0, 2], dtype=torch.int32), 3))
attempt("one_hot -1 classes", lambda: F.one_hot(torch.tensor([0, 4])))
attempt("one_hot out of range", lambda: F.one_hot(torch.tensor([0, 4]), 3))
emb = torch.nn.Embedding(5, 2)
attempt("embedding int32", lambda: emb(torch.tensor([1, 4], dtype=torch.int32)))
attempt("embedding uint8", lambda: emb(torch.tensor([1, 4], dtype=torch.uint8)))
attempt("embedding float", lambda: emb(torch.tensor([1.0])))
attempt("embedding oob", lambda: emb(torch.tensor([5])))
attempt("accuracy", lambda: (logits.argmax(1) == tgt).float().mean())
attempt("accuracy int32 tgt", lambda: (logits.argmax(1) == tgt.int()).sum())
attempt("confusion via bincount", lambda: torch.bincount(tgt * 3 + logits.argmax(1), minlength=9).view(3, 3))
attempt("bincount int32", lambda: torch.bincount(tgt.int()))
attempt("histogram counts", lambda: torch.histogram(x, bins=3).hist)
attempt("unique counts", lambda: torch.unique(tgt, return_counts=True)[1])
attempt("unique int32 inverse", lambda: torch.unique(tgt.int(), return_inverse=True)[1])
attempt("arange int32 step", lambda: torch.arange(0, 10, 3, dtype=torch.int32))
attempt("arange float step count", lambda: torch.arange(0, 1, 0.1).shape)
attempt("linspace int", lambda: torch.linspace(0, 10, 4, dtype=torch.int64))
attempt("repeat_interleave int32", lambda: torch.repeat_interleave(torch.tensor([2, 1], dtype=torch.int32)))
