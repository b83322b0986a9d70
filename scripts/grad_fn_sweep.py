"""Which grad_fn nodes differ from PyTorch's: ~200 functional expressions run on PyTorch and on ember.torch,
comparing `type(out.grad_fn).__name__` and the names in `next_functions` ((None, 0) slots included).

Run where PyTorch is installed: `python scripts/grad_fn_sweep.py`; prints each difference and their count.
tests/test_grad_fn_names.py pins the names that agree.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np


def cases(torch, F):
    g = lambda *s: torch.tensor(np.random.default_rng(sum(s)).standard_normal(s).astype(np.float32), requires_grad=True)
    p = lambda *s: torch.tensor(
        np.random.default_rng(sum(s)).random(s).astype(np.float32) * 0.8 + 0.1, requires_grad=True
    )
    idx = torch.tensor([1, 0, 2])
    c = {
        "relu": lambda: F.relu(g(3, 4)),
        "relu6": lambda: F.relu6(g(3, 4)),
        "elu": lambda: F.elu(g(3, 4)),
        "selu": lambda: F.selu(g(3, 4)),
        "celu": lambda: F.celu(g(3, 4)),
        "gelu": lambda: F.gelu(g(3, 4)),
        "gelu_tanh": lambda: F.gelu(g(3, 4), approximate="tanh"),
        "silu": lambda: F.silu(g(3, 4)),
        "mish": lambda: F.mish(g(3, 4)),
        "leaky_relu": lambda: F.leaky_relu(g(3, 4)),
        "prelu": lambda: F.prelu(g(3, 4), g(1)),
        "rrelu_eval": lambda: F.rrelu(g(3, 4)),
        "hardtanh": lambda: F.hardtanh(g(3, 4)),
        "hardswish": lambda: F.hardswish(g(3, 4)),
        "hardsigmoid": lambda: F.hardsigmoid(g(3, 4)),
        "logsigmoid": lambda: F.logsigmoid(g(3, 4)),
        "softplus": lambda: F.softplus(g(3, 4)),
        "softshrink": lambda: F.softshrink(g(3, 4)),
        "hardshrink": lambda: F.hardshrink(g(3, 4)),
        "tanhshrink": lambda: F.tanhshrink(g(3, 4)),
        "softsign": lambda: F.softsign(g(3, 4)),
        "threshold": lambda: F.threshold(g(3, 4), 0.1, 0.0),
        "glu": lambda: F.glu(g(3, 4)),
        "sigmoid": lambda: F.sigmoid(g(3, 4)),
        "tanh": lambda: F.tanh(g(3, 4)),
        "softmax": lambda: F.softmax(g(3, 4), 1),
        "log_softmax": lambda: F.log_softmax(g(3, 4), 1),
        "softmin": lambda: F.softmin(g(3, 4), 1),
        "normalize": lambda: F.normalize(g(3, 4)),
        "linear": lambda: F.linear(g(3, 4), g(5, 4), g(5)),
        "linear_nobias": lambda: F.linear(g(3, 4), g(5, 4)),
        "linear3d": lambda: F.linear(g(2, 3, 4), g(5, 4), g(5)),
        "bilinear": lambda: F.bilinear(g(3, 4), g(3, 2), g(5, 4, 2), g(5)),
        "conv1d": lambda: F.conv1d(g(1, 2, 8), g(3, 2, 3)),
        "conv2d": lambda: F.conv2d(g(1, 2, 6, 6), g(3, 2, 3, 3), g(3)),
        "conv3d": lambda: F.conv3d(g(1, 2, 5, 5, 5), g(3, 2, 3, 3, 3)),
        "conv_transpose1d": lambda: F.conv_transpose1d(g(1, 2, 5), g(2, 3, 3)),
        "conv_transpose2d": lambda: F.conv_transpose2d(g(1, 2, 5, 5), g(2, 3, 3, 3)),
        "conv_transpose3d": lambda: F.conv_transpose3d(g(1, 2, 4, 4, 4), g(2, 3, 3, 3, 3)),
        "max_pool1d": lambda: F.max_pool1d(g(1, 2, 8), 2),
        "max_pool2d": lambda: F.max_pool2d(g(1, 2, 6, 6), 2),
        "max_pool3d": lambda: F.max_pool3d(g(1, 1, 4, 4, 4), 2),
        "avg_pool1d": lambda: F.avg_pool1d(g(1, 2, 8), 2),
        "avg_pool2d": lambda: F.avg_pool2d(g(1, 2, 6, 6), 2),
        "avg_pool3d": lambda: F.avg_pool3d(g(1, 1, 4, 4, 4), 2),
        "adaptive_avg_pool1d": lambda: F.adaptive_avg_pool1d(g(1, 2, 8), 3),
        "adaptive_avg_pool2d": lambda: F.adaptive_avg_pool2d(g(1, 2, 6, 6), 3),
        "adaptive_avg_pool3d": lambda: F.adaptive_avg_pool3d(g(1, 1, 4, 4, 4), 2),
        "adaptive_max_pool1d": lambda: F.adaptive_max_pool1d(g(1, 2, 8), 3),
        "adaptive_max_pool2d": lambda: F.adaptive_max_pool2d(g(1, 2, 6, 6), 3),
        "adaptive_max_pool3d": lambda: F.adaptive_max_pool3d(g(1, 1, 4, 4, 4), 2),
        "lp_pool1d": lambda: F.lp_pool1d(g(1, 2, 8), 2, 2),
        "lp_pool2d": lambda: F.lp_pool2d(g(1, 2, 6, 6), 2, 2),
        "batch_norm": lambda: F.batch_norm(g(4, 3), torch.zeros(3), torch.ones(3), g(3), g(3), training=True),
        "batch_norm_eval": lambda: F.batch_norm(g(4, 3), torch.zeros(3), torch.ones(3), g(3), g(3)),
        "instance_norm": lambda: F.instance_norm(g(2, 3, 5)),
        "instance_norm_affine": lambda: F.instance_norm(g(2, 3, 5), weight=g(3), bias=g(3)),
        "layer_norm": lambda: F.layer_norm(g(3, 4), (4,), g(4), g(4)),
        "group_norm": lambda: F.group_norm(g(2, 4, 3), 2, g(4), g(4)),
        "local_response_norm": lambda: F.local_response_norm(g(1, 4, 3, 3), 2),
        "rms_norm": lambda: F.rms_norm(g(3, 4), (4,), g(4)),
        "embedding": lambda: F.embedding(idx, g(4, 3)),
        "embedding_bag": lambda: F.embedding_bag(idx, g(4, 3), torch.tensor([0, 2])),
        "pad_const": lambda: F.pad(g(2, 3), (1, 1)),
        "pad_reflect": lambda: F.pad(g(1, 2, 5), (1, 1), mode="reflect"),
        "pad_replicate": lambda: F.pad(g(1, 2, 5), (1, 1), mode="replicate"),
        "pad_circular": lambda: F.pad(g(1, 2, 5), (1, 1), mode="circular"),
        "pad_reflect2d": lambda: F.pad(g(1, 2, 5, 5), (1, 1, 1, 1), mode="reflect"),
        "pad_replicate3d": lambda: F.pad(g(1, 1, 3, 3, 3), (1,) * 6, mode="replicate"),
        "interp_nearest": lambda: F.interpolate(g(1, 2, 4, 4), scale_factor=2),
        "interp_bilinear": lambda: F.interpolate(g(1, 2, 4, 4), scale_factor=2, mode="bilinear"),
        "interp_bicubic": lambda: F.interpolate(g(1, 2, 4, 4), scale_factor=2, mode="bicubic"),
        "interp_linear": lambda: F.interpolate(g(1, 2, 4), scale_factor=2, mode="linear"),
        "interp_trilinear": lambda: F.interpolate(g(1, 1, 3, 3, 3), scale_factor=2, mode="trilinear"),
        "interp_area": lambda: F.interpolate(g(1, 2, 4, 4), size=2, mode="area"),
        "interp_nearest_exact": lambda: F.interpolate(g(1, 2, 4, 4), scale_factor=2, mode="nearest-exact"),
        "interp_nearest3d": lambda: F.interpolate(g(1, 1, 2, 2, 2), scale_factor=2),
        "grid_sample": lambda: F.grid_sample(g(1, 2, 4, 4), p(1, 3, 3, 2), align_corners=False),
        "grid_sample5d": lambda: F.grid_sample(g(1, 1, 3, 3, 3), p(1, 2, 2, 2, 3), align_corners=False),
        "affine_grid": lambda: F.affine_grid(g(1, 2, 3), [1, 1, 3, 3], align_corners=False),
        "pixel_shuffle": lambda: F.pixel_shuffle(g(1, 4, 2, 2), 2),
        "pixel_unshuffle": lambda: F.pixel_unshuffle(g(1, 1, 4, 4), 2),
        "unfold": lambda: F.unfold(g(1, 2, 4, 4), 2),
        "fold": lambda: F.fold(g(1, 8, 9), (4, 4), 2),
        "dropout_eval": lambda: F.dropout(g(3, 4), training=False),
        "cosine_similarity": lambda: F.cosine_similarity(g(3, 4), g(3, 4)),
        "pairwise_distance": lambda: F.pairwise_distance(g(3, 4), g(3, 4)),
        "pdist": lambda: F.pdist(g(3, 4)),
        "mse_loss": lambda: F.mse_loss(g(3, 4), g(3, 4)),
        "l1_loss": lambda: F.l1_loss(g(3, 4), g(3, 4)),
        "smooth_l1": lambda: F.smooth_l1_loss(g(3, 4), g(3, 4)),
        "huber": lambda: F.huber_loss(g(3, 4), g(3, 4)),
        "mse_none": lambda: F.mse_loss(g(3, 4), g(3, 4), reduction="none"),
        "cross_entropy": lambda: F.cross_entropy(g(3, 4), idx),
        "cross_entropy_ls": lambda: F.cross_entropy(g(3, 4), idx, label_smoothing=0.1),
        "cross_entropy_soft": lambda: F.cross_entropy(g(3, 4), p(3, 4)),
        "cross_entropy_w": lambda: F.cross_entropy(g(3, 4), idx, weight=p(4)),
        "nll_loss": lambda: F.nll_loss(g(3, 4), idx),
        "nll_loss2d": lambda: F.nll_loss(g(2, 4, 3, 3), torch.zeros(2, 3, 3, dtype=torch.long)),
        "bce": lambda: F.binary_cross_entropy(p(3, 4), p(3, 4)),
        "bce_logits": lambda: F.binary_cross_entropy_with_logits(g(3, 4), p(3, 4)),
        "kl_div": lambda: F.kl_div(g(3, 4), p(3, 4), reduction="batchmean"),
        "poisson_nll": lambda: F.poisson_nll_loss(g(3, 4), p(3, 4)),
        "gaussian_nll": lambda: F.gaussian_nll_loss(g(3, 4), g(3, 4), p(3, 4)),
        "hinge_embedding": lambda: F.hinge_embedding_loss(g(3, 4), torch.ones(3, 4)),
        "margin_ranking": lambda: F.margin_ranking_loss(g(3), g(3), torch.ones(3)),
        "soft_margin": lambda: F.soft_margin_loss(g(3, 4), torch.ones(3, 4)),
        "multilabel_soft_margin": lambda: F.multilabel_soft_margin_loss(g(3, 4), torch.ones(3, 4)),
        "multi_margin": lambda: F.multi_margin_loss(g(3, 4), idx),
        "multilabel_margin": lambda: F.multilabel_margin_loss(g(3, 4), torch.tensor([[1, -1, 0, 0]] * 3)),
        "cosine_embedding": lambda: F.cosine_embedding_loss(g(3, 4), g(3, 4), torch.ones(3)),
        "triplet": lambda: F.triplet_margin_loss(g(3, 4), g(3, 4), g(3, 4)),
        "ctc": lambda: F.ctc_loss(
            g(5, 2, 4).log_softmax(2), torch.tensor([[1, 2], [1, 1]]), torch.tensor([5, 5]), torch.tensor([2, 2])
        ),
        "sdpa": lambda: F.scaled_dot_product_attention(g(1, 2, 3, 4), g(1, 2, 3, 4), g(1, 2, 3, 4)),
        "mul_scalar": lambda: g(3) * 2,
        "add_scalar": lambda: g(3) + 2,
        "sub_scalar": lambda: g(3) - 2,
        "div_scalar": lambda: g(3) / 2,
        "rsub": lambda: 2 - g(3),
        "rdiv": lambda: 2 / g(3),
        "pow_scalar": lambda: g(3) ** 2,
        "rpow": lambda: 2 ** g(3),
        "clamp": lambda: g(3).clamp(0, 1),
        "where": lambda: torch.where(g(3) > 0, g(3), 0.0),
        "masked_fill": lambda: g(3).masked_fill(torch.tensor([True, False, True]), 0.0),
        "lerp": lambda: torch.lerp(g(3), g(3), 0.5),
        "addcmul": lambda: torch.addcmul(g(3), g(3), g(3)),
        "cumsum": lambda: g(3).cumsum(0),
        "logsumexp": lambda: g(3, 4).logsumexp(1),
        "norm": lambda: g(3, 4).norm(),
        "std": lambda: g(3, 4).std(1),
        "var": lambda: g(3, 4).var(),
        "max_dim": lambda: g(3, 4).max(1)[0],
        "topk": lambda: g(3, 4).topk(2)[0],
        "sort": lambda: g(3, 4).sort()[0],
        "sort_stable": lambda: torch.sort(g(3, 4), stable=True)[0],
        "index_select": lambda: g(3, 4).index_select(0, idx),
        "gather": lambda: g(3, 4).gather(1, idx[:, None]),
        "einsum": lambda: torch.einsum("ij,jk->ik", g(3, 4), g(4, 2)),
        "matmul3d": lambda: g(2, 3, 4) @ g(4, 5),
        "bmm": lambda: torch.bmm(g(2, 3, 4), g(2, 4, 5)),
        "outer": lambda: torch.outer(g(3), g(4)),
        "cdist": lambda: torch.cdist(g(3, 4), g(2, 4)),
        "diag": lambda: torch.diag(g(3)),
        "trace": lambda: torch.trace(g(3, 3)),
        "tril": lambda: g(3, 3).tril(),
        "roll": lambda: g(3).roll(1),
        "flip": lambda: g(3).flip(0),
        "repeat": lambda: g(3).repeat(2),
        "expand": lambda: g(3, 1).expand(3, 4),
        "narrow": lambda: g(4).narrow(0, 1, 2),
        "unbind": lambda: g(3, 4).unbind()[0],
        "chunk": lambda: g(4).chunk(2)[0],
        "split": lambda: g(4).split(2)[1],
        "stack": lambda: torch.stack([g(3), g(3)]),
        "cat": lambda: torch.cat([g(3), g(3)]),
        "squeeze": lambda: g(3, 1).squeeze(1),
        "flatten": lambda: g(3, 4).flatten(),
        "mean": lambda: g(3, 4).mean(),
        "prod": lambda: g(3, 4).prod(),
        "amax": lambda: g(3, 4).amax(1),
        "cummax": lambda: g(3).cummax(0)[0],
        "abs": lambda: g(3).abs(),
        "sqrt": lambda: p(3).sqrt(),
        "rsqrt": lambda: p(3).rsqrt(),
        "reciprocal": lambda: g(3).reciprocal(),
        "sign": lambda: g(3).sign(),
        "atan2": lambda: torch.atan2(g(3), g(3)),
        "hypot": lambda: torch.hypot(g(3), g(3)),
        "xlogy": lambda: torch.xlogy(p(3), p(3)),
        "erf": lambda: g(3).erf(),
        "baddbmm": lambda: torch.baddbmm(g(2, 3, 5), g(2, 3, 4), g(2, 4, 5)),
        "addmv": lambda: torch.addmv(g(3), g(3, 4), g(4)),
        "mv": lambda: g(3, 4) @ g(4),
        "dot": lambda: g(3) @ g(3),
        "kron": lambda: torch.kron(g(2, 2), g(2, 2)),
        "det": lambda: torch.det(g(3, 3)),
        "inverse": lambda: torch.inverse(g(3, 3)),
        "clone": lambda: g(3).clone(),
        "to_double": lambda: g(3).double(),
        "contiguous_t": lambda: g(3, 4).t().contiguous(),
        "max_pool2d_idx": lambda: F.max_pool2d(g(1, 2, 6, 6), 2, return_indices=True)[0],
        "max_unpool2d": lambda: F.max_unpool2d(*F.max_pool2d(g(1, 1, 4, 4), 2, return_indices=True), 2),
        "channel_shuffle": lambda: F.channel_shuffle(g(1, 4, 2, 2), 2),
        "alpha_dropout_eval": lambda: F.alpha_dropout(g(3, 4)),
        "logit": lambda: p(3).logit(),
        "nan_to_num": lambda: g(3).nan_to_num(),
        "frac": lambda: g(3).frac(),
        "trunc": lambda: g(3).trunc(),
        "minimum": lambda: torch.minimum(g(3), g(3)),
        "fmax": lambda: torch.fmax(g(3), g(3)),
        "dist": lambda: torch.dist(g(3), g(3)),
        "renorm": lambda: g(3, 4).renorm(2, 0, 1.0),
        "cov": lambda: torch.cov(g(3, 4)),
        "diff": lambda: torch.diff(g(4)),
        "take": lambda: g(3, 4).take(idx),
        "index_put": lambda: g(3).index_put((idx[:2],), g(2)),
        "scatter_add": lambda: g(3, 4).scatter_add(0, idx[:1, None].expand(1, 4), g(1, 4)),
        "masked_select": lambda: g(3).masked_select(torch.tensor([True, False, True])),
        "slice": lambda: g(4)[1:3],
        "select": lambda: g(4)[1],
        "adv_index": lambda: g(4)[idx],
    }
    return c


def describe(out):
    fn = out.grad_fn
    if fn is None:
        return "None"
    nf = [(type(f).__name__ if f is not None else None, i) for f, i in fn.next_functions]
    return f"{type(fn).__name__} {nf}"


def _names(which: str) -> dict:
    if which == "torch":
        import torch
        import torch.nn.functional as F
    else:
        import ember.torch as torch
        import ember.torch.nn.functional as F
    res = {}
    for k, f in cases(torch, F).items():
        try:
            res[k] = describe(f())
        except Exception as e:  # noqa: BLE001 - a case that fails is a difference to print
            res[k] = f"ERR {type(e).__name__}: {str(e)[:80]}"
    return res


def main() -> None:
    if len(sys.argv) > 1:  # one library per process: ember.torch and torch each own `torch`-named state
        print(json.dumps(_names(sys.argv[1])))
        return
    t, e = (
        {k: v for k, v in json.loads(subprocess.check_output([sys.executable, __file__, w])).items()}
        for w in ("torch", "ember")
    )
    for k in t:
        if t[k] != e[k]:
            print(f"{k}\n   torch: {t[k][:150]}\n   ember: {e[k][:150]}")
    print(sum(t[k] != e[k] for k in t), "of", len(t), "differ")


if __name__ == "__main__":
    main()
