"""torchmetrics-style metric classes written inline: an add_state registry with reduction functions (sum, cat,
mean, max), update/compute/reset with a compute cache, forward computing the batch value while accumulating,
multiclass Accuracy/F1/ConfusionMatrix from bincount, a binary AUROC from sorted thresholds, merging states of
several 'ranks', MetricCollection with prefixes and the errors of misuse."""

from copy import deepcopy

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

rng = np.random.default_rng(23)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def dim_zero_cat(x):
    x = x if isinstance(x, (list, tuple)) else [x]
    x = [y.unsqueeze(0) if y.numel() == 1 and y.ndim == 0 else y for y in x]
    if not x:
        raise ValueError("No samples to concatenate")
    return torch.cat(x, dim=0)


_REDUCE = {"sum": lambda x: torch.sum(x, dim=0), "mean": lambda x: torch.mean(x, dim=0),
           "max": lambda x: torch.max(x, dim=0).values, "cat": dim_zero_cat}


class Metric(nn.Module):
    full_state_update = False

    def __init__(self):
        super().__init__()
        self._defaults, self._reductions = {}, {}
        self._computed = None
        self._update_count = 0

    def add_state(self, name, default, dist_reduce_fx=None, persistent=False):
        if not isinstance(default, Tensor) and not (isinstance(default, list) and len(default) == 0):
            raise ValueError("state variable must be a tensor or any empty list (where you can append tensors)")
        if isinstance(dist_reduce_fx, str) and dist_reduce_fx not in _REDUCE:
            raise ValueError("`dist_reduce_fx` must be callable or one of ['mean', 'sum', 'cat', 'max', None]")
        if isinstance(default, Tensor):
            self.register_buffer(name, default.clone(), persistent=persistent)
        else:
            setattr(self, name, [])
        self._defaults[name] = deepcopy(default)
        self._reductions[name] = _REDUCE.get(dist_reduce_fx, dist_reduce_fx)

    def reset(self):
        self._update_count = 0
        self._computed = None
        for name, default in self._defaults.items():
            if isinstance(default, Tensor):
                setattr(self, name, default.detach().clone().to(getattr(self, name).device))
            else:
                setattr(self, name, [])

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args):
        cache = {k: getattr(self, k) for k in self._defaults}
        count = self._update_count
        self.reset()
        self.update(*args)
        batch_val = self.compute()
        for k in self._defaults:
            red = self._reductions[k]
            cur = getattr(self, k)
            if isinstance(cur, list):
                setattr(self, k, cache[k] + cur)
            else:
                setattr(self, k, red(torch.stack([cache[k], cur])))
        self._update_count = count + 1
        self._computed = None
        return batch_val

    def update(self, *args):
        self._computed = None
        self._update_count += 1
        self._update(*args)

    def compute(self):
        if self._update_count == 0:
            import warnings

            warnings.warn(f"The ``compute`` method of metric {type(self).__name__} was called before the ``update``",
                          UserWarning)
        if self._computed is None:
            self._computed = self._compute()
        return self._computed

    def merge_state(self, others):
        for k, red in self._reductions.items():
            vals = [getattr(m, k) for m in [self, *others]]
            if isinstance(vals[0], list):
                setattr(self, k, [t for v in vals for t in v])
            else:
                setattr(self, k, red(torch.stack(vals)))
        self._update_count += sum(m._update_count for m in others)
        self._computed = None


class MulticlassStats(Metric):
    def __init__(self, num_classes, average="macro"):
        super().__init__()
        self.num_classes, self.average = num_classes, average
        self.add_state("confmat", torch.zeros(num_classes, num_classes, dtype=torch.long), "sum", persistent=True)

    def _update(self, preds, target):
        if preds.is_floating_point():
            preds = preds.argmax(dim=1)
        if preds.shape != target.shape:
            raise ValueError(f"Expected `preds` and `target` to have the same shape, got {preds.shape} {target.shape}")
        idx = target.long() * self.num_classes + preds.long()
        self.confmat += torch.bincount(idx, minlength=self.num_classes**2).reshape(self.num_classes, -1)

    def _compute(self):
        cm = self.confmat
        tp = cm.diag()
        fp = cm.sum(0) - tp
        fn = cm.sum(1) - tp
        acc = tp.sum() / cm.sum()
        prec = torch.where(tp + fp > 0, tp / (tp + fp).clamp(min=1), torch.zeros_like(tp, dtype=torch.float))
        f1 = torch.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn).float(), torch.zeros(()))
        if self.average == "macro":
            f1 = f1.mean()
        elif self.average == "weighted":
            w = cm.sum(1).float()
            f1 = (f1 * w / w.sum()).sum()
        return {"acc": acc, "f1": f1, "precision": prec}


class BinaryAUROC(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("preds", [], "cat")
        self.add_state("target", [], "cat")

    def _update(self, preds, target):
        self.preds.append(preds.detach().flatten())
        self.target.append(target.detach().flatten())

    def _compute(self):
        preds, target = dim_zero_cat(self.preds), dim_zero_cat(self.target)
        order = torch.argsort(preds, descending=True, stable=True)
        preds, target = preds[order], target[order].float()
        distinct = torch.nonzero(preds[1:] - preds[:-1], as_tuple=True)[0]
        thr_idx = F.pad(distinct, [0, 1], value=target.numel() - 1)
        tps = torch.cumsum(target, dim=0)[thr_idx]
        fps = 1 + thr_idx - tps
        tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
        fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
        return torch.trapezoid(tpr, fpr)


class MeanMax(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("total", torch.tensor(0.0, dtype=torch.float64), "sum")
        self.add_state("count", torch.tensor(0), "sum")
        self.add_state("peak", torch.tensor(-float("inf")), "max")

    def _update(self, x):
        self.total += x.double().sum()
        self.count += x.numel()
        self.peak = torch.maximum(self.peak, x.max())

    def _compute(self):
        return self.total / self.count, self.peak


logits = torch.from_numpy(rng.standard_normal((30, 4)).astype(np.float32))
target = torch.from_numpy(rng.integers(0, 4, 30))
logits[target == 2, 2] += 1.5
stats = MulticlassStats(4)
batch = stats(logits[:10], target[:10])
print("batch acc", r(batch["acc"]), r(batch["f1"]), stats._update_count)
for i in range(10, 30, 10):
    stats.update(logits[i:i + 10], target[i:i + 10])
res = stats.compute()
print("confmat", stats.confmat.tolist(), stats.confmat.dtype)
print("acc f1", r(res["acc"]), r(res["f1"]), r(res["precision"]), res["acc"].dtype)
print("cache", stats.compute() is res, sorted(stats.state_dict()), stats.state_dict()["confmat"].sum().item())
w = MulticlassStats(4, average="weighted")
w.update(logits, target)
print("weighted", r(w.compute()["f1"]), r(F.one_hot(target[:5], 4).sum(0)))

shards = [MulticlassStats(4) for _ in range(3)]
for k, s in enumerate(shards):
    s.update(logits[k::3], target[k::3])
merged = deepcopy(shards[0])
merged.merge_state(shards[1:])
print("merged", torch.equal(merged.confmat, stats.confmat), merged._update_count, r(merged.compute()["acc"]))
stats.reset()
print("reset", stats.confmat.sum().item(), stats._computed, stats._update_count)
try:
    stats.update(logits[:4], target[:5])
except ValueError as e:
    print("ValueError", e)

auroc = BinaryAUROC()
scores = torch.from_numpy(np.round(rng.random(40), 1).astype(np.float32))
labels = torch.from_numpy((rng.random(40) < scores.numpy()).astype(np.int64))
for i in range(0, 40, 16):
    auroc.update(scores[i:i + 16], labels[i:i + 16])
print("auroc", r(auroc.compute()), len(auroc.preds), [t.shape[0] for t in auroc.preds])
pos, neg = scores[labels == 1], scores[labels == 0]
pairs = (pos[:, None] > neg[None, :]).float() + 0.5 * (pos[:, None] == neg[None, :]).float()
print("mann-whitney", r(pairs.mean()), pos.numel(), neg.numel())
other = BinaryAUROC()
other.update(torch.tensor([0.9, 0.1]), torch.tensor([1, 0]))
auroc.merge_state([other])
print("auroc merged", r(auroc.compute()), sum(t.numel() for t in auroc.preds))

mm = MeanMax()
vals = torch.from_numpy(rng.standard_normal(12).astype(np.float32))
print("batch", [r(v) for v in mm(vals[:5])])
mm.update(vals[5:])
mean, peak = mm.compute()
print("mean max", r(mean), mean.dtype, r(peak), r(vals.double().mean()), mm.count.item())
twin = MeanMax()
twin.update(torch.tensor([100.0]))
mm.merge_state([twin])
print("merged mm", [r(v) for v in mm.compute()], mm.total.dtype, mm.count.dtype)


class MetricCollection(nn.ModuleDict):
    def __init__(self, metrics, prefix=""):
        super().__init__()
        for name, m in metrics.items():
            self[name] = m
        self.prefix = prefix

    def update(self, *args):
        for m in self.values():
            m.update(*args)

    def compute(self):
        return {self.prefix + k: m.compute() for k, m in self.items()}


coll = MetricCollection({"stats": MulticlassStats(4), "stats_w": MulticlassStats(4, "weighted")}, prefix="val/")
coll.update(logits, target)
out = coll.compute()
print("collection", sorted(out), r(out["val/stats"]["f1"]), r(out["val/stats_w"]["f1"]))
print(coll)
import warnings  # noqa: E402

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    MeanMax().compute()
print("warned", [str(c.message)[:40] for c in caught], [c.category.__name__ for c in caught])
for bad in [(lambda: MeanMax().add_state("x", 3)), (lambda: MeanMax().add_state("x", [], dist_reduce_fx="min")),
            (lambda: dim_zero_cat([]))]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)
