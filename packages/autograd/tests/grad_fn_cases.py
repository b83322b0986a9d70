"""Expressions whose result's `grad_fn` users print: run the same code against any torch-like module.

`run(torch)` evaluates every case and returns {label: (type name, .name(), first-level next_functions
names)}; `python grad_fn_cases.py` prints the comparison of ember.torch against the installed torch.
"""

from __future__ import annotations

CASES = [
    # arithmetic
    ("add", "x + y"), ("add_scalar", "x + 1"), ("radd", "1 + x"), ("sub", "x - y"), ("sub_scalar", "x - 1"),
    ("rsub", "1 - x"), ("mul", "x * y"), ("mul_scalar", "x * 2"), ("div", "x / y"), ("div_scalar", "x / 2"),
    ("rdiv", "1 / x"), ("neg", "-x"), ("pow", "x ** 2"), ("pow_tensor", "x.abs() ** y"), ("rpow", "2 ** x"),
    ("torch_add_alpha", "torch.add(x, y, alpha=2)"),
    ("exp", "x.exp()"), ("log", "x.abs().log()"), ("sqrt", "x.abs().sqrt()"), ("abs", "x.abs()"),
    ("sin", "x.sin()"), ("cos", "x.cos()"), ("rsqrt", "x.abs().rsqrt()"), ("reciprocal", "x.reciprocal()"),
    ("clamp", "x.clamp(-0.5, 0.5)"), ("clamp_min", "x.clamp(min=0)"), ("clamp_tensor", "x.clamp(min=y)"),
    ("where", "torch.where(x > 0, x, y)"), ("masked_fill", "x.masked_fill(x > 0, 0.0)"),
    ("lerp", "torch.lerp(x, y, 0.5)"), ("maximum", "torch.maximum(x, y)"), ("minimum", "torch.minimum(x, y)"),
    ("addcmul", "torch.addcmul(x, x, y)"), ("square", "x.square()"), ("log1p", "x.abs().log1p()"),
    ("expm1", "x.expm1()"), ("sign", "x.sign()"), ("floor", "x.floor()"), ("round", "x.round()"),
    ("fmod", "torch.fmod(x, 2)"), ("remainder", "torch.remainder(x, 2)"), ("atan2", "torch.atan2(x, y)"),
    ("mul_", "x.clone().mul_(2)"), ("add_", "x.clone().add_(y)"), ("clone", "x.clone()"),
    ("contiguous_t", "x.t().contiguous()"), ("to_double", "x.double()"), ("detach_mul", "x.detach() * y"),
    # reductions
    ("sum", "x.sum()"), ("sum_dim", "x.sum(0)"), ("sum_dim_keep", "x.sum(1, keepdim=True)"),
    ("mean", "x.mean()"), ("mean_dim", "x.mean(0)"), ("mean_dims", "x.mean((0, 1))"),
    ("prod", "x.prod()"), ("prod_dim", "x.prod(0)"), ("max", "x.max()"), ("min", "x.min()"),
    ("max_dim", "x.max(0)[0]"), ("min_dim", "x.min(1).values"), ("amax", "x.amax(0)"), ("amin", "x.amin()"),
    ("var", "x.var()"), ("var_dim", "x.var(0)"), ("std", "x.std()"), ("std_dim", "x.std(1)"),
    ("norm", "x.norm()"), ("norm_dim", "x.norm(dim=1)"), ("norm_p1", "x.norm(p=1)"),
    ("linalg_norm", "torch.linalg.norm(x)"), ("logsumexp", "x.logsumexp(0)"),
    ("cumsum", "x.cumsum(0)"), ("cumprod", "x.cumprod(1)"), ("sort", "x.sort(1)[0]"), ("topk", "x.topk(2)[0]"),
    ("median", "x.median()"), ("kthvalue", "x.kthvalue(2, 1)[0]"),
    ("argmax_gather", "x.gather(1, x.argmax(1, keepdim=True))"),
    # views
    ("view", "x.view(12)"), ("view_m1", "x.view(-1)"), ("reshape", "x.reshape(4, 3)"),
    ("reshape_t", "x.t().reshape(12)"), ("flatten", "x.flatten()"), ("permute", "x.permute(1, 0)"),
    ("transpose", "x.transpose(0, 1)"), ("t", "x.t()"), ("T", "x.T"), ("mT", "x.mT"),
    ("squeeze", "x.unsqueeze(0).squeeze()"), ("squeeze_dim", "x.unsqueeze(0).squeeze(0)"),
    ("unsqueeze", "x.unsqueeze(0)"), ("expand", "x.unsqueeze(0).expand(2, 3, 4)"),
    ("expand_as", "x[:1].expand_as(x)"), ("narrow", "x.narrow(1, 0, 2)"), ("select", "x.select(0, 1)"),
    ("index0", "x[0]"), ("slice", "x[:, 1:]"), ("slice_rows", "x[1:]"), ("index_tensor", "x[idx]"),
    ("index_bool", "x[x > 0]"), ("index_none", "x[None]"), ("index_ellipsis", "x[..., 0]"),
    ("unbind", "x.unbind(0)[0]"), ("diagonal", "x.diagonal()"), ("unfold", "x.unfold(1, 2, 1)"),
    ("view_as", "x.view_as(y)"), ("movedim", "x.movedim(0, 1)"), ("as_strided", "x.as_strided((2, 2), (1, 1))"),
    # joining and splitting
    ("cat", "torch.cat([x, y])"), ("cat_dim1", "torch.cat([x, y], 1)"), ("stack", "torch.stack([x, y])"),
    ("hstack", "torch.hstack([x, y])"), ("split", "x.split(2, 1)[0]"), ("split_sizes", "x.split([1, 3], 1)[1]"),
    ("chunk", "x.chunk(2, 1)[1]"), ("tensor_split", "x.tensor_split(2, 1)[0]"),
    ("repeat", "x.repeat(2, 1)"), ("flip", "x.flip(0)"), ("roll", "x.roll(1, 0)"), ("tril", "x.tril()"),
    ("index_select", "x.index_select(0, idx)"), ("gather", "x.gather(1, gidx)"),
    ("scatter", "x.scatter(1, gidx, y)"), ("scatter_add", "x.scatter_add(1, gidx, y)"),
    ("index_add", "x.index_add(0, idx, x[:2])"), ("repeat_interleave", "x.repeat_interleave(2, 0)"),
    ("masked_select", "x.masked_select(x > 0)"), ("take", "x.take(idx)"),
    # linear algebra
    ("matmul", "x @ y.t()"), ("matmul_vec", "x @ v"), ("mm", "torch.mm(x, y.t())"), ("mv", "torch.mv(x, v)"),
    ("dot", "torch.dot(v, v)"), ("bmm", "torch.bmm(b, b.transpose(1, 2))"), ("matmul_3d", "b @ b.transpose(1, 2)"),
    ("addmm", "torch.addmm(v[:3], x, y.t())"), ("einsum", "torch.einsum('ij,kj->ik', x, y)"),
    ("outer", "torch.outer(v, v)"), ("linear", "F.linear(x, y)"), ("linear_bias", "F.linear(x, y, v[:3])"),
    ("Linear", "nn.Linear(4, 2)(x)"), ("Linear_nobias", "nn.Linear(4, 2, bias=False)(x)"),
    ("Linear_3d", "nn.Linear(4, 2)(b)"), ("baddbmm", "torch.baddbmm(b[:, :, :3], b, b.transpose(1, 2))"),
    # nn functional
    ("relu", "F.relu(x)"), ("relu_m", "x.relu()"), ("gelu", "F.gelu(x)"),
    ("gelu_tanh", "F.gelu(x, approximate='tanh')"),
    ("silu", "F.silu(x)"), ("sigmoid", "x.sigmoid()"), ("tanh", "x.tanh()"), ("leaky_relu", "F.leaky_relu(x)"),
    ("elu", "F.elu(x)"), ("softplus", "F.softplus(x)"), ("hardtanh", "F.hardtanh(x)"), ("relu6", "F.relu6(x)"),
    ("mish", "F.mish(x)"), ("softmax", "x.softmax(1)"), ("log_softmax", "F.log_softmax(x, 1)"),
    ("dropout", "F.dropout(x, 0.5, training=True)"), ("dropout_eval", "F.dropout(x, 0.5, training=False)"),
    ("normalize", "F.normalize(x)"), ("cosine_similarity", "F.cosine_similarity(x, y)"),
    ("mse", "F.mse_loss(x, y)"), ("mse_none", "F.mse_loss(x, y, reduction='none')"),
    ("cross_entropy", "F.cross_entropy(x, tgt)"), ("cross_entropy_probs", "F.cross_entropy(x, y.softmax(1))"),
    ("nll", "F.nll_loss(x, tgt)"), ("bce", "F.binary_cross_entropy(x.sigmoid(), y.sigmoid())"),
    ("bce_logits", "F.binary_cross_entropy_with_logits(x, y.sigmoid())"), ("l1", "F.l1_loss(x, y)"),
    ("smooth_l1", "F.smooth_l1_loss(x, y)"), ("huber", "F.huber_loss(x, y)"),
    ("kl_div", "F.kl_div(x, y, reduction='batchmean')"),
    ("conv2d", "F.conv2d(img, w)"), ("Conv2d", "nn.Conv2d(2, 3, 3)(img)"), ("conv1d", "F.conv1d(img[0], w[:, :, 0])"),
    ("max_pool2d", "F.max_pool2d(img, 2)"), ("avg_pool2d", "F.avg_pool2d(img, 2)"),
    ("adaptive_avg_pool2d", "F.adaptive_avg_pool2d(img, 1)"),
    ("batch_norm", "F.batch_norm(img, None, None, training=True)"), ("BatchNorm2d", "nn.BatchNorm2d(2)(img)"),
    ("BatchNorm2d_eval", "nn.BatchNorm2d(2).eval()(img)"), ("layer_norm", "F.layer_norm(x, (4,))"),
    ("LayerNorm", "nn.LayerNorm(4)(x)"), ("group_norm", "F.group_norm(img, 1)"),
    ("embedding", "F.embedding(idx, x)"), ("Embedding", "nn.Embedding(5, 3)(idx)"),
    ("pad", "F.pad(x, (1, 1))"), ("pad_reflect", "F.pad(img, (1, 1), mode='reflect')"),
    ("interpolate", "F.interpolate(img, scale_factor=2)"),
    ("interpolate_bilinear", "F.interpolate(img, scale_factor=2, mode='bilinear')"),
    ("RNN", "nn.RNN(4, 3)(x.unsqueeze(1))[0]"), ("LSTM", "nn.LSTM(4, 3)(x.unsqueeze(1))[0]"),
    ("GRU", "nn.GRU(4, 3)(x.unsqueeze(1))[0]"), ("Flatten", "nn.Flatten()(img)"),
    ("MultiheadAttention", "nn.MultiheadAttention(4, 2)(x, x, x)[0]"),
    ("sdpa", "F.scaled_dot_product_attention(b, b, b)"), ("one_hot_mul", "F.one_hot(tgt, 4) * x"),
]


def inputs(torch) -> dict:
    """The shared inputs: x, y (3x4 leaves requiring grad), v (4), b (2x3x4), img (1x2x4x4), w, index tensors."""
    import numpy as np

    rng = np.random.default_rng(0)

    def leaf(*shape):
        return torch.tensor(rng.standard_normal(shape).astype(np.float32)).requires_grad_()

    return {"x": leaf(3, 4), "y": leaf(3, 4), "v": leaf(4), "b": leaf(2, 3, 4), "img": leaf(1, 2, 4, 4),
            "w": leaf(3, 2, 3, 3), "idx": torch.tensor([0, 2]), "gidx": torch.tensor([[0, 1], [1, 2], [3, 0]]),
            "tgt": torch.tensor([0, 3, 1])}


def describe(fn) -> tuple:
    """(type name, .name(), names of the first level of next_functions) of a grad_fn."""
    if fn is None:
        return (None, None, ())
    nxt = tuple(type(f).__name__ if f is not None else None for f, _ in fn.next_functions)
    return (type(fn).__name__, fn.name(), nxt)


def run(torch) -> dict:
    import torch.nn as _unused  # noqa: F401  (makes sure `torch.nn` resolves for the real torch)
    return _run(torch)


def _run(torch) -> dict:
    nn, F = torch.nn, torch.nn.functional
    out = {}
    for label, code in CASES:
        torch.manual_seed(0)
        ns = {"torch": torch, "nn": nn, "F": F, **inputs(torch)}
        try:
            r = eval(code, ns)
            out[label] = describe(r.grad_fn)
        except Exception as e:  # a case ember does not run yet is reported, not fatal
            out[label] = (f"error: {type(e).__name__}: {e}"[:80], None, ())
    return out


def main() -> None:
    import importlib

    import torch as real
    ember = importlib.import_module("ember.torch")
    want, got = _run(real), _run(ember)
    same_type = same_name = same_next = 0
    for label, code in CASES:
        w, g = want[label], got[label]
        same_type += w[0] == g[0]
        same_name += w[1] == g[1]
        same_next += w[2] == g[2]
        if w != g:
            print(f"{label:22} {code:45} torch={w}\n{'':68} ember={g}")
    leaf = real.zeros(1, requires_grad=True)
    acc_t = (leaf * 1).grad_fn.next_functions[0][0].name()
    eleaf = ember.zeros(1, requires_grad=True)
    acc_e = (eleaf * 1).grad_fn.next_functions[0][0].name()
    print(f"AccumulateGrad.name(): torch={acc_t!r} ember={acc_e!r}")
    print(f"{len(CASES)} cases: type name {same_type}, .name() {same_name}, next_functions {same_next}")


if __name__ == "__main__":
    main()
