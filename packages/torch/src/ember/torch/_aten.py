"""PyTorch's top-level spellings of functional ops (`torch.cosine_similarity`, `torch.kl_div` ...), which
take ATen's signatures: positional `train` flags and integer `reduction` codes (0 none, 1 mean, 2 sum)
instead of `nn.functional`'s keywords, and, called from Python, no reduction by default; plus the eager
meaning of `torch.cond`/`torch.while_loop` and a few autograd switches under their old names.
"""

from __future__ import annotations

import numpy as np

import ember.autograd as _ag
import ember.nn.functional as F
from ember.autograd.anomaly import is_anomaly_check_nan_enabled
from ember.core.cuda.interop import to_dlpack

__all__ = ["cosine_similarity", "pairwise_distance", "bilinear", "rms_norm", "channel_shuffle",
           "native_channel_shuffle", "celu_", "selu_", "threshold_", "dropout_", "feature_dropout_", "kl_div",
           "margin_ranking_loss", "hinge_embedding_loss", "poisson_nll_loss", "triplet_margin_loss",
           "cosine_embedding_loss", "binary_cross_entropy_with_logits", "constant_pad_nd", "max_pool1d_with_indices",
           "native_layer_norm", "native_group_norm", "native_batch_norm", "native_dropout", "convolution", "conv_tbc",
           "detach_", "lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell",
           "rnn_relu_cell", "to_dlpack", "get_device_module", "cond", "while_loop", "set_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_autocast_cpu_enabled", "set_autocast_cpu_dtype",
           "set_autocast_gpu_dtype", "autocast_increment_nesting", "autocast_decrement_nesting", "alpha_dropout",
           "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "rrelu_", "_standard_gamma",
           "_sample_dirichlet", "embedding", "embedding_bag", "_standard_gamma_grad", "_dirichlet_grad"]

_REDUCTIONS = ("none", "mean", "sum")

cosine_similarity, pairwise_distance, bilinear = F.cosine_similarity, F.pairwise_distance, F.bilinear
rms_norm, channel_shuffle, native_channel_shuffle = F.rms_norm, F.channel_shuffle, F.channel_shuffle
celu_, selu_, threshold_ = F.celu_, F.selu_, F.threshold_


def _reduction(code) -> str:
    """ATen's integer reduction (or a name, passed through)."""
    if isinstance(code, str):
        return code
    if code not in (0, 1, 2):
        raise ValueError(f"{code} is not a valid value for reduction")
    return _REDUCTIONS[code]


def embedding(weight, indices, padding_idx: int = -1, scale_grad_by_freq: bool = False, sparse: bool = False):
    """`torch.embedding`: ATen's order (weight first); a negative or out-of-range `padding_idx` pads nothing."""
    pad = padding_idx if 0 <= padding_idx < weight.shape[0] else None
    return F.embedding(indices, weight, padding_idx=pad, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(weight, indices, offsets, scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False, padding_idx: int | None = None):
    """`torch.embedding_bag`: ATen's op, `(output, offset2bag, bag_size, max_indices)` with an integer `mode`.

    The three index tensors are the CPU kernel's bookkeeping: offset2bag is empty on its float32 sum fast path
    (no padding); sum mode reports zeros of the offsets' length; mean the bag sizes twice; max the argmax ids."""
    if mode not in (0, 1, 2):
        raise ValueError("mode has to be one of sum, mean or max")
    pad = padding_idx
    if pad is not None:
        n = weight.shape[0]
        if not -n <= pad < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-n} through {n - 1}, but got "
                               f"{pad}")
        pad = pad % n
    out = F.embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq, mode=_BAG_MODES[mode],
                          sparse=sparse, per_sample_weights=per_sample_weights,
                          include_last_offset=include_last_offset, padding_idx=pad)
    idx = indices.cpu().numpy().astype(np.int64)
    offs = offsets.cpu().numpy().astype(np.int64)
    itype = indices.dtype if indices.dtype == offsets.dtype else _ag.int64
    nbags = len(offs) - 1 if include_last_offset else len(offs)
    # the last bag runs to the end of the indices, as the CPU kernel's offset2bag does
    bag_of = np.zeros(len(idx), dtype=np.int64)
    np.add.at(bag_of, offs[1:nbags][offs[1:nbags] < len(idx)], 1)
    bag_of = np.cumsum(bag_of)
    live = idx != pad if pad is not None else np.ones(len(idx), dtype=bool)

    def tensor(a, shape=None):
        return _ag.tensor(np.asarray(a, dtype=np.int64).reshape(shape if shape else (-1,)), dtype=itype,
                          device=weight.device)

    if mode == 0:
        fast = weight.dtype == _ag.float32 and pad is None
        zeros = tensor(np.zeros(len(offs)))
        return out, tensor([] if fast else bag_of), zeros, zeros.clone()
    sizes = np.bincount(bag_of[live], minlength=nbags)[:nbags]
    if mode == 1:
        return out, tensor(bag_of), tensor(sizes), tensor(sizes)
    w = weight.detach().cpu().numpy()
    arg = np.zeros((nbags, w.shape[1]), dtype=np.int64)
    best = np.full((nbags, w.shape[1]), -np.inf)
    for k in np.flatnonzero(live):
        b = bag_of[k]
        row = w[idx[k]]
        better = row > best[b]
        best[b] = np.where(better, row, best[b])
        arg[b] = np.where(better, idx[k], arg[b])
    return out, tensor(bag_of), tensor(sizes), tensor(arg, (nbags, w.shape[1]))


def _standard_gamma(input, generator=None):
    """`torch._standard_gamma`: Gamma(input, 1) samples, the draw behind `Gamma.rsample` (differentiable in
    `input`), on PyTorch's stream or `generator`'s."""
    from ember.torch.distributions._special import standard_gamma

    return standard_gamma(input, generator)


def _sample_dirichlet(input, generator=None):
    """`torch._sample_dirichlet`: Dirichlet(input) samples along the last dim, PyTorch's way (gamma draws in
    float64, normalised, then cast to `input`'s dtype)."""
    from ember.torch.distributions._special import check_sampler_dtype, standard_gamma

    check_sampler_dtype(input, "dirichlet")
    with _ag.no_grad():
        g = standard_gamma(input.double(), generator)
        r = (g / g.sum(-1, keepdim=True)).to(input.dtype)
        # PyTorch clamps each component into [smallest normal, the float just below 1] (NaN to the former)
        tiny = float(np.finfo(input.dtype.np).tiny)
        return r.nan_to_num(nan=tiny).clamp(tiny, float(np.nextafter(input.dtype.np.type(1), 0)))


def _standard_gamma_grad(input, output):
    """`torch._standard_gamma_grad(self, output)`: d output / d input of `_standard_gamma` samples `output`."""
    from ember.torch.distributions._special import standard_gamma_grad

    return standard_gamma_grad(input, output)


def _dirichlet_grad(x, alpha, total):
    """`torch._dirichlet_grad(x, alpha, total)`: the derivative of Dirichlet components `x` in their concentrations
    `alpha` with their sum `total` held fixed (the backward of `Dirichlet.rsample`)."""
    from ember.torch.distributions._special import dirichlet_grad

    return dirichlet_grad(x, alpha, total)


def dropout_(input, p: float, train: bool):
    """In-place `dropout` with ATen's positional `train`."""
    return F.dropout(input, p, train, inplace=True)


def feature_dropout_(input, p: float, train: bool):
    """In-place channel dropout (whole feature maps, dim 1), ATen's `feature_dropout_`."""
    return F.dropout2d(input, p, train, inplace=True)


def kl_div(input, target, reduction=0, *, log_target: bool = False):
    """`torch.kl_div`: `F.kl_div` with ATen's integer reduction (no reduction by default, as torch.kl_div)."""
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, reduction=0):
    """`torch.margin_ranking_loss`: ATen's signature of `F.margin_ranking_loss`."""
    return F.margin_ranking_loss(input1, input2, target, margin=margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin: float = 1.0, reduction=0):
    """`torch.hinge_embedding_loss`: ATen's signature of `F.hinge_embedding_loss`."""
    return F.hinge_embedding_loss(input, target, margin=margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input: bool, full: bool, eps: float, reduction):
    """`torch.poisson_nll_loss`: every argument positional, as ATen's."""
    return F.poisson_nll_loss(input, target, log_input=log_input, full=full, eps=eps,
                              reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, reduction=0):
    """`torch.triplet_margin_loss`: ATen's signature of `F.triplet_margin_loss`."""
    return F.triplet_margin_loss(anchor, positive, negative, margin=margin, p=p, eps=eps, swap=swap,
                                 reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction=0):
    """`torch.cosine_embedding_loss`: ATen's signature of `F.cosine_embedding_loss`."""
    return F.cosine_embedding_loss(input1, input2, target, margin=margin, reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """`torch.binary_cross_entropy_with_logits`: ATen's signature of the functional."""
    return F.binary_cross_entropy_with_logits(input, target, weight=weight, pos_weight=pos_weight,
                                              reduction=_reduction(reduction))


def constant_pad_nd(input, pad, value=0):
    """`torch.constant_pad_nd`: `F.pad` in constant mode."""
    return F.pad(input, list(pad), "constant", value)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False):
    """`torch.max_pool1d_with_indices`: `(output, indices)` of `F.max_pool1d`."""
    return F.max_pool1d(input, kernel_size, stride if stride else None, padding, dilation, ceil_mode=ceil_mode,
                        return_indices=True)


def get_device_module(device=None):
    """The `torch.<device type>` module of `device` (torch.cuda for "cuda"; the current accelerator's, or
    torch.cpu, when None)."""
    import ember.torch as torch

    if device is None:
        acc = torch.accelerator.current_accelerator()
        kind = acc.type if acc is not None else "cpu"
    else:
        kind = device if isinstance(device, str) else device.type
        kind = kind.split(":")[0]
    if kind not in ("cpu", "cuda", "mps", "xpu"):
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'.")
    return getattr(torch, kind)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step, ATen's `lstm_cell`: `(h', c')` from input (N, I), hx = (h, c) (N, H) and the weights
    (4H, I), (4H, H) in PyTorch's gate order i, f, g, o."""
    h, c = hx
    i, f, g, o = (F.linear(input, w_ih, b_ih) + F.linear(h, w_hh, b_hh)).chunk(4, 1)
    c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c2.tanh(), c2


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step, ATen's `gru_cell`, gates in PyTorch's order r, z, n."""
    ir, iz, in_ = F.linear(input, w_ih, b_ih).chunk(3, 1)
    hr, hz, hn = F.linear(hx, w_hh, b_hh).chunk(3, 1)
    r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
    n = (in_ + r * hn).tanh()
    return (1 - z) * n + z * hx


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step with tanh, ATen's `rnn_tanh_cell`."""
    return (F.linear(input, w_ih, b_ih) + F.linear(hx, w_hh, b_hh)).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step with relu, ATen's `rnn_relu_cell`."""
    return (F.linear(input, w_ih, b_ih) + F.linear(hx, w_hh, b_hh)).relu()


def native_layer_norm(input, normalized_shape, weight, bias, eps: float):
    """ATen's `native_layer_norm`: `(output, mean, rstd)`, the statistics kept as size-1 trailing dims."""
    dims = tuple(range(input.ndim - len(tuple(normalized_shape)), input.ndim))
    mean = input.mean(dims, keepdim=True)
    rstd = (input.var(dims, unbiased=False, keepdim=True) + eps).rsqrt()
    return F.layer_norm(input, tuple(normalized_shape), weight, bias, eps), mean, rstd


def native_group_norm(input, weight, bias, N: int, C: int, HxW: int, group: int, eps: float):
    """ATen's `native_group_norm`: `(output, mean, rstd)`, statistics (N, group)."""
    x = input.reshape(N, group, -1)
    mean = x.mean(-1)
    rstd = (x.var(-1, unbiased=False) + eps).rsqrt()
    return F.group_norm(input, group, weight, bias, eps), mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training: bool, momentum: float, eps: float):
    """ATen's `native_batch_norm`: `(output, save_mean, save_invstd)`; the saved statistics are the batch's
    (per channel) when training, empty otherwise. Running statistics update as in `F.batch_norm`."""
    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = input.new_zeros(0)
        return out, empty, empty
    dims = (0,) + tuple(range(2, input.ndim))
    return out, input.mean(dims), (input.var(dims, unbiased=False) + eps).rsqrt()


def native_dropout(input, p: float, train: bool | None):
    """ATen's `native_dropout`: `(output, mask)`; the kept elements scaled by 1 / (1 - p) when training."""
    if not train or p == 0:
        return input.clone(), _ag.ones_like(input, dtype=_ag.bool)
    # ATen's CPU kernel: a bool mask drawn by bernoulli_(1 - p), then `input.mul(mask).mul_(1 / (1 - p))`
    mask = _ag.empty_like(input, dtype=_ag.bool).bernoulli_(1.0 - p)
    return (input * mask).mul_(1.0 / (1.0 - p) if p < 1 else 0.0), mask


def convolution(input, weight, bias, stride, padding, dilation, transposed: bool, output_padding, groups: int):
    """ATen's `convolution`: the 1-, 2- or 3-D (transposed) convolution that input's rank asks for."""
    n = input.ndim - 2
    if transposed:
        fn = getattr(F, f"conv_transpose{n}d", None)
        args = (input, weight, bias, stride, padding, output_padding, groups, dilation)
    else:
        fn = getattr(F, f"conv{n}d", None)
        args = (input, weight, bias, stride, padding, dilation, groups)
    if fn is None:
        raise RuntimeError(f"convolution: expected a 3-D, 4-D or 5-D input; got {input.ndim}-D")
    return fn(*args)


def conv_tbc(input, weight, bias, pad: int = 0):
    """ATen's `conv_tbc`: a 1-D convolution over input (time, batch, channels) with weight (k, in, out)."""
    return F.conv_tbc(input, weight, bias, pad)


def _run_layers(step, input, states, params, has_biases: bool, num_layers: int, dropout: float, train: bool,
                bidirectional: bool, batch_first: bool):
    """ATen's multi-layer (bi)directional recurrence over input (T, N, I) or (N, T, I): `step(x_t, state,
    weights) -> state`, the output of a step being the state's first tensor. `states[k]` is the initial
    state of layer/direction k; returns (output, final states)."""
    x = input.transpose(0, 1) if batch_first else input
    dirs = 2 if bidirectional else 1
    per = 4 if has_biases else 2
    if len(params) != num_layers * dirs * per:
        raise RuntimeError(f"expected {num_layers * dirs * per} parameter tensors, got {len(params)}")
    finals = []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = params[k * per:(k + 1) * per]
            weights = (w[0], w[1], w[2], w[3]) if has_biases else (w[0], w[1], None, None)
            state = states[k]
            seq = []
            for t in (range(x.shape[0] - 1, -1, -1) if d == 1 else range(x.shape[0])):
                state = step(x[t], state, weights)
                seq.append(state[0])
            if d == 1:
                seq.reverse()
            outs.append(_ag.stack(seq))
            finals.append(state)
        x = _ag.cat(outs, -1) if dirs == 2 else outs[0]
        if dropout and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    return (x.transpose(0, 1) if batch_first else x), finals


def lstm(input, hx, params, has_biases: bool, num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool):
    """ATen's `lstm` over a padded sequence: `(output, h_n, c_n)` from hx = (h_0, c_0) and the flat weights
    (w_ih, w_hh[, b_ih, b_hh]) of every layer and direction, as `nn.LSTM` holds them."""
    h0, c0 = hx
    out, finals = _run_layers(lambda x, st, w: lstm_cell(x, st, *w), input, list(zip(h0.unbind(0), c0.unbind(0),
                                                                                         strict=True)),
                              params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
    return out, _ag.stack([f[0] for f in finals]), _ag.stack([f[1] for f in finals])


def _single_state(cell):
    def run(input, hx, params, has_biases: bool, num_layers: int, dropout: float, train: bool, bidirectional: bool,
            batch_first: bool):
        out, finals = _run_layers(lambda x, st, w: (cell(x, st[0], *w),), input, [(h,) for h in hx.unbind(0)],
                                  params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
        return out, _ag.stack([f[0] for f in finals])
    run.__name__ = cell.__name__.replace("_cell", "")
    run.__doc__ = f"ATen's `{run.__name__}` over a padded sequence: `(output, h_n)` (see `lstm`)."
    return run


gru, rnn_tanh, rnn_relu = _single_state(gru_cell), _single_state(rnn_tanh_cell), _single_state(rnn_relu_cell)


def detach_(input):
    """`torch.detach_(x)`: `x.detach_()`."""
    return input.detach_()


def cond(pred, true_fn, false_fn, operands=()):
    """`torch.cond` run eagerly: `true_fn(*operands)` if `pred` (a bool or a one-element tensor), else
    `false_fn(*operands)`. Under torch.compile PyTorch traces both branches; ember never compiles."""
    if isinstance(pred, _ag.Tensor) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    return (true_fn if bool(pred) else false_fn)(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """`torch.while_loop` run eagerly: apply `body_fn` to the carried values while `cond_fn` holds."""
    vals = tuple(carried_inputs)
    while bool(cond_fn(*vals)):
        out = body_fn(*vals)
        vals = tuple(out) if isinstance(out, tuple | list) else (out,)
    return vals


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """The old name of `autograd.set_detect_anomaly`."""
    _ag.set_detect_anomaly(enabled, check_nan)


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated PyTorch spelling of `set_autocast_enabled("cpu", enabled)`."""
    _ag.set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype) -> None:
    """Deprecated PyTorch spelling of `set_autocast_dtype("cpu", dtype)`."""
    _ag.set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype) -> None:
    """Deprecated PyTorch spelling of `set_autocast_dtype("cuda", dtype)`."""
    _ag.set_autocast_dtype("cuda", dtype)


_nesting = 0


def autocast_increment_nesting() -> int:
    """Count one more nested autocast region (what `autocast.__enter__` does in PyTorch); the new depth."""
    global _nesting
    _nesting += 1
    return _nesting


def autocast_decrement_nesting() -> int:
    """Leave one nested autocast region; the new depth."""
    global _nesting
    _nesting = max(_nesting - 1, 0)
    return _nesting


def alpha_dropout(input, p: float, train: bool):
    """`torch.alpha_dropout`: `F.alpha_dropout` with ATen's positional `train`."""
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p: float, train: bool):
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p: float, train: bool):
    """`torch.feature_alpha_dropout`: `F.feature_alpha_dropout` with ATen's positional `train`."""
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p: float, train: bool):
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, generator=None):
    """`torch.rrelu_`: in-place randomized leaky ReLU."""
    return F.rrelu_(input, lower, upper, training)
