"""`MultiheadAttention`, `TransformerEncoderLayer`, `TransformerEncoder`."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops._util import NESTED_PROTOTYPE, warn_once
from ember.nn import functional as F
from ember.nn import init
from ember.nn.functional._attention import _canonical_mask, _none_or_dtype
from ember.nn.modules.activation import GELU, ReLU
from ember.nn.modules.container import ModuleList
from ember.nn.modules.dropout import Dropout
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import LayerNorm
from ember.nn.parameter import Parameter

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection of `MultiheadAttention` (PyTorch's name, kept for identical reprs)."""


class MultiheadAttention(Module):
    """softmax(Q K^T / sqrt(d)) V over `num_heads` heads of `embed_dim / num_heads` each.

    Inputs are (L, N, E) ((N, L, E) with `batch_first`); returns `(output, weights)`, weights
    averaged over heads unless `average_attn_weights=False`, None when `need_weights=False`.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(ea.empty((embed_dim, embed_dim), device=device, dtype=dtype))
            self.k_proj_weight = Parameter(ea.empty((embed_dim, self.kdim), device=device, dtype=dtype))
            self.v_proj_weight = Parameter(ea.empty((embed_dim, self.vdim), device=device, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(ea.empty((3 * embed_dim, embed_dim), device=device, dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(ea.empty(3 * embed_dim, device=device, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(ea.empty((1, 1, embed_dim), device=device, dtype=dtype))
            self.bias_v = Parameter(ea.empty((1, 1, embed_dim), device=device, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def merge_masks(self, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                    query: Tensor) -> tuple[Tensor | None, int | None]:
        """One mask and its type: the key-padding mask (N, S) alone is type 1; with an attention mask both
        expand to (N, num_heads, L, L) and add, type 2."""
        mask_type, merged = None, None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                merged = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged = merged + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
        return merged, mask_type

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        if query.is_nested:
            raise AssertionError("MultiheadAttention does not support NestedTensor outside of its fast path. The fast "
                                 f"path was not hit because {self._why_not_fast_path(query, key, value)}")
        fast = self._takes_fast_path(query, key, value, attn_mask, key_padding_mask)
        if fast and (attn_mask is not None or key_padding_mask is not None):
            attn_mask, key_padding_mask = self._fast_path_masks(query, attn_mask, key_padding_mask)
        batched = query.dim() == 3
        if self.batch_first and batched:
            if query is key and key is value:  # self-attention: one transposed view, so the forward sees one input
                query = key = value = query.transpose(0, 1)
            else:
                query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal and not fast)
        if self.batch_first and batched:
            out = out.transpose(0, 1)
        return out, weights

    def _why_not_fast_path(self, query: Tensor, key: Tensor, value: Tensor) -> str:
        """PyTorch's first reason its inference fast path (which ember does not have) is not taken; the one that
        remains for a nested query is its `__torch_function__`."""
        if query is not key or key is not value:
            return "non-self attention was used (query, key, and value are not the same Tensor)"
        if self.in_proj_weight is None:
            return "in projection weights are None"
        if self.training:
            return "training is enabled"
        if self.num_heads % 2:
            return "self.num_heads is not even"
        if not self.batch_first:
            return "batch_first was not True"
        return "some Tensor argument has_torch_function"

    def _takes_fast_path(self, query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                         key_padding_mask: Tensor | None) -> bool:
        """Whether PyTorch's inference fast path (MultiheadAttention.forward) would run this call: it drops the
        `is_causal` hint unread, where the other path raises for a hint without `attn_mask`, and checks its merged
        mask in its own words (`_fast_path_masks`). A floating-point mask keeps a call off it."""
        if any(m is not None and m.is_floating_point() for m in (attn_mask, key_padding_mask)):
            return False
        if not (ea.backends.mha.get_fastpath_enabled() and query.dim() == 3 and query is key and key is value) or \
                self.training or not self.batch_first or self.in_proj_weight is None or self.in_proj_bias is None or \
                query.dtype != self.in_proj_bias.dtype or query.dtype != self.in_proj_weight.dtype or \
                self.num_heads % 2 or self.bias_k is not None or self.bias_v is not None or self.add_zero_attn or \
                ea.is_autocast_enabled():
            return False
        params = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight, self.out_proj.bias)
        return not (ea.is_grad_enabled() and any(p is not None and p.requires_grad for p in params))

    def _fast_path_masks(self, query: Tensor, attn_mask: Tensor | None,
                         key_padding_mask: Tensor | None) -> tuple[Tensor | None, Tensor | None]:
        """The fast path's one merged mask (`merge_masks`), checked against the (N, num_heads, L, L) scores as its
        masked softmax does, returned as the (attn_mask, key_padding_mask) pair that gives the general path the
        same scores: a call errs, or runs, as it does on the fast path."""
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                           "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        merged, mask_type = self.merge_masks(attn_mask, key_padding_mask, query)
        batch_size, seq_len, _ = query.shape
        scores = (batch_size, self.num_heads, seq_len, seq_len)
        if merged.dim() != 2 or mask_type == 2:
            if tuple(merged.shape) != scores:
                raise RuntimeError("For mask_type == 2 mask shape should match input shape")
            return merged.reshape(batch_size * self.num_heads, seq_len, seq_len), None
        if tuple(merged.shape) != (batch_size, seq_len):
            raise RuntimeError("For mask_type == 1 mask shape should be (B, L)")
        return None, merged


def _activation_fn(activation: str | Callable) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if callable(activation):
        return activation
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with residual, dropout and LayerNorm
    (applied before the block with `norm_first`, after it otherwise)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation_fn(activation)
        # PyTorch's flag for its fused kernels (1 relu, 2 gelu, 0 another): one condition of the encoder's fast path
        act = self.activation
        self.activation_relu_or_gelu = 1 if act is F.relu or isinstance(act, ReLU) else \
            2 if act is F.gelu or isinstance(act, GELU) else 0

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype)
        fused = self._fused_under_cpu_autocast(src)
        x = src
        if self.norm_first:
            x = _residual(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal), fused)
            x = _residual(x, self._ff_block(self.norm2(x)), fused)
        else:
            x = self.norm1(_residual(x, self._sa_block(x, src_mask, src_key_padding_mask, is_causal), fused))
            x = self.norm2(_residual(x, self._ff_block(x), fused))
        return x

    def _fused_under_cpu_autocast(self, src: Tensor) -> bool:
        """Whether PyTorch would run this call through its fused inference kernel (`_transformer_encoder_layer_fwd`,
        TransformerEncoderLayer.forward's conditions) inside a CPU autocast region: that kernel adds each residual
        in place into the block's autocast-dtype output, so the layer returns the autocast dtype."""
        attn = self.self_attn
        if not ea.is_autocast_enabled("cpu") or ea.is_autocast_enabled() or src.device.type != "cpu" or \
                not ea.backends.mha.get_fastpath_enabled() or src.dim() != 3 or self.training or \
                not attn.batch_first or attn.in_proj_bias is None or not attn._qkv_same_embed_dim or \
                not self.activation_relu_or_gelu or self.norm1.eps != self.norm2.eps or attn.num_heads % 2 or \
                any(m._forward_hooks or m._forward_pre_hooks for m in self.modules()):
            return False
        params = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
                  self.norm1.weight, self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight,
                  self.linear1.bias, self.linear2.weight, self.linear2.bias)
        return not (ea.is_grad_enabled() and any(p is not None and p.requires_grad for p in params))


def _residual(x: Tensor, block: Tensor, in_place: bool) -> Tensor:
    """`x + block`; with `in_place`, in the block's dtype, as the fused kernel's `block.add_(x)`."""
    return (x + block).to(block.dtype) if in_place else x + block


class TransformerEncoder(Module):
    """`num_layers` copies of `encoder_layer`, then an optional final `norm`."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
        self.use_nested_tensor = enable_nested_tensor and not why_not

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        padding = src_key_padding_mask
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", _none_or_dtype(mask),
                                               "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype)
        nested = self._takes_fast_path(src, mask, src_key_padding_mask)
        if nested:  # PyTorch packs the tokens into a strided nested tensor here, which warns once
            warn_once(NESTED_PROTOTYPE)
        if nested and bool((src_key_padding_mask != 0).all()):  # the nested tensor holds no token to pad back
            raise RuntimeError("to_padded_tensor: at least one constituent tensor should have non-zero numel")
        out = src
        for mod in self.layers:
            out = mod(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        if nested:
            # NOTE [ Encoder fast path ]: PyTorch's inference path packs the unpadded tokens into a nested tensor
            # and pads the result back with zeros; the real tokens' values are the ones computed here
            drop = padding if padding.dtype == ea.bool else padding != 0
            out = out.masked_fill(drop.unsqueeze(-1), 0.0)
        if self.norm is not None:
            out = self.norm(out)
        return out

    def _takes_fast_path(self, src: Tensor, mask: Tensor | None, padding: Tensor | None) -> bool:
        """PyTorch's conditions for its nested-tensor inference path (TransformerEncoder.forward)."""
        first = self.layers[0]
        if not (ea.backends.mha.get_fastpath_enabled() and getattr(self, "use_nested_tensor", False)) or \
                first.training or src.dim() != 3 or padding is None or mask is not None or \
                ea.is_autocast_enabled():
            return False
        if self.mask_check:
            keep = padding == 0  # left-aligned: no kept token after a padded one in any row
            if bool((keep[:, 1:] & ~keep[:, :-1]).any()):
                return False
        attn = first.self_attn
        params = (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, first.norm1.weight,
                  first.norm1.bias, first.norm2.weight, first.norm2.bias, first.linear1.weight, first.linear1.bias,
                  first.linear2.weight, first.linear2.bias)
        return not (ea.is_grad_enabled() and (src.requires_grad or any(p is not None and p.requires_grad
                                                                        for p in params)))


def _why_no_nested_tensor(layer: Module) -> str:
    """Why PyTorch's TransformerEncoder turns its nested-tensor path off for this layer ("" when it does not)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention over `memory`, then a feed-forward block; each with residual,
    dropout and LayerNorm (before the block with `norm_first`, after it otherwise)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                                 **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation_fn(activation)

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask, key_padding_mask, is_causal: bool = False) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False, is_causal=is_causal)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x


class TransformerDecoder(Module):
    """`num_layers` copies of `decoder_layer`, then an optional final `norm`."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        out = tgt
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        if self.norm is not None:
            out = self.norm(out)
        return out


class Transformer(Module):
    """The encoder-decoder transformer of "Attention Is All You Need" (post- or pre-norm layers)."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: str | Callable = F.relu,
                 custom_encoder: Module | None = None, custom_decoder: Module | None = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        common = {"dim_feedforward": dim_feedforward, "dropout": dropout, "activation": activation,
                  "layer_norm_eps": layer_norm_eps, "batch_first": batch_first, "norm_first": norm_first,
                  "bias": bias, **kw}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(d_model, nhead, **common), num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(d_model, nhead, **common), num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """An additive (sz, sz) mask: 0 on and below the diagonal, -inf above it."""
        return ea.triu(ea.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


# PyTorch's module-level helpers, imported by code that builds its own layers from torch.nn.modules.transformer

def _generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    """The additive causal mask of `Transformer.generate_square_subsequent_mask`, as a function."""
    return Transformer.generate_square_subsequent_mask(sz, device=device, dtype=dtype)


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None = None, size: int | None = None) -> bool:
    """Whether `mask` equals the causal mask of `size` (else of its own rows) in its dtype; a given hint wins."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = _generate_square_subsequent_mask(size if size is not None else mask.shape[-2], device=mask.device,
                                              dtype=mask.dtype)
    return tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())


def _get_seq_len(src: Tensor, batch_first: bool) -> int | None:
    """The sequence length of a (S, E), (S, N, E) or batch-first (N, S, E) input; None for a nested one."""
    if getattr(src, "is_nested", False):
        return None
    if src.dim() == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _get_clones(module: Module, N: int) -> ModuleList:
    """`N` independent deep copies of `module`, as the encoder and decoder stacks make their layers."""
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation: str) -> Callable:
    """F.relu or F.gelu by name (no callables, unlike the layers' `activation` argument)."""
    if activation in ("relu", "gelu"):
        return _activation_fn(activation)
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")
