"""A research-code Transformer built from torch.nn.modules.transformer's helpers, as DETR- and fairseq-style
repositories write it: _get_clones for the layer stacks, _get_activation_fn, _detect_is_causal_mask and
_generate_square_subsequent_mask, a post-norm decoder returning intermediate outputs, learned positional
embeddings, a subclassed TransformerEncoderLayer overriding _sa_block to keep attention maps, and the
encoder fast path's behaviour on padded batches."""

import warnings

import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.modules.transformer import (
    _detect_is_causal_mask,
    _generate_square_subsequent_mask,
    _get_activation_fn,
    _get_clones,
    _get_seq_len,
)

warnings.filterwarnings("ignore")
torch.manual_seed(0)
torch.set_printoptions(precision=4)

V, D, H, T = 11, 8, 2, 6


class DecoderLayer(nn.Module):
    def __init__(self, d, nhead, ff, activation="relu"):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, nhead, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(d, nhead, batch_first=True)
        self.lin1, self.lin2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.norms = _get_clones(nn.LayerNorm(d), 3)
        self.activation = _get_activation_fn(activation)

    def forward(self, x, mem, mask, mem_pad):
        x = self.norms[0](x + self.self_attn(x, x, x, attn_mask=mask, need_weights=False)[0])
        ctx, w = self.cross_attn(x, mem, mem, key_padding_mask=mem_pad)
        x = self.norms[1](x + ctx)
        return self.norms[2](x + self.lin2(self.activation(self.lin1(x)))), w


class Decoder(nn.Module):
    def __init__(self, layer, n, return_intermediate=True):
        super().__init__()
        self.layers = _get_clones(layer, n)
        self.return_intermediate = return_intermediate

    def forward(self, x, mem, mask=None, mem_pad=None):
        inter, maps = [], []
        for layer in self.layers:
            x, w = layer(x, mem, mask, mem_pad)
            inter.append(x)
            maps.append(w)
        return (torch.stack(inter) if self.return_intermediate else x), torch.stack(maps)


class KeepAttn(nn.TransformerEncoderLayer):
    """Stores the attention map by overriding the private block, as probing code does."""

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        out, w = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=True,
                                is_causal=is_causal)
        self.last_attn = w.detach()
        return self.dropout1(out)


layer = DecoderLayer(D, H, 16)
dec = Decoder(layer, 3)
print("clones", len(dec.layers), dec.layers[0].lin1.weight is dec.layers[1].lin1.weight,
      torch.equal(dec.layers[0].lin1.weight, dec.layers[2].lin1.weight))
print("activation", _get_activation_fn("gelu").__name__, dec.layers[0].activation.__name__)
try:
    _get_activation_fn("swish")
except RuntimeError as err:
    print("RuntimeError", err)

mask = _generate_square_subsequent_mask(T)
print(mask)
print("detect", _detect_is_causal_mask(mask), _detect_is_causal_mask(mask, size=T + 1),
      _detect_is_causal_mask(torch.zeros(T, T)), _detect_is_causal_mask(None, is_causal=True))
bool_causal = torch.ones(T, T, dtype=torch.bool).triu(1)
print("bool causal detected", _detect_is_causal_mask(bool_causal))

tok_emb = nn.Embedding(V, D)
pos_emb = nn.Embedding(16, D)
tgt_ids = torch.randint(1, V, (2, T))
mem = torch.randn(2, 4, D)
mem_pad = torch.tensor([[False, False, False, True], [False, False, False, False]])
x = tok_emb(tgt_ids) + pos_emb(torch.arange(T))[None]
print("seq len", _get_seq_len(x, batch_first=True), _get_seq_len(x.transpose(0, 1), batch_first=False),
      _get_seq_len(x[0], batch_first=True))
hs, maps = dec(x, mem, mask, mem_pad)
print("intermediate", tuple(hs.shape), "maps", tuple(maps.shape))
print("cross-attn on padded memory", maps[:, 0, :, 3].abs().sum().item())
print(hs[-1, 0, :2])
targets = tgt_ids.roll(-1, 1).reshape(-1)
aux = sum(F.cross_entropy((h @ tok_emb.weight.T).reshape(-1, V), targets) for h in hs)
print("deep-supervision loss", round(aux.item(), 4))
aux.backward()
print("grad reaches every layer", [round(lay.lin2.weight.grad.norm().item(), 4) for lay in dec.layers])

# prefix invariance under the causal mask
hs2, _ = dec(x[:, :3], mem, mask[:3, :3], mem_pad)
print("causal prefix", torch.allclose(hs2[-1], hs[-1, :, :3], atol=1e-5))

# an encoder layer subclass keeping its attention map
torch.manual_seed(1)
keep = KeepAttn(D, H, 16, dropout=0.0, batch_first=True)
enc = nn.TransformerEncoder(keep, 2, enable_nested_tensor=False)
src = torch.randn(2, 5, D)
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
out = enc(src, src_key_padding_mask=pad)
print("kept maps", [tuple(m.last_attn.shape) for m in enc.layers])
print(enc.layers[1].last_attn[1])

# the stock encoder's inference fast path on padded batches
torch.manual_seed(2)
stock = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, H, 16, 0.0, batch_first=True), 2)
stock.eval()
with torch.no_grad():
    y = stock(src, src_key_padding_mask=pad)
    print("fast path pads zero", y[1, 3:].abs().sum().item(), "valid", round(y[1, :3].abs().sum().item(), 4))
    one = torch.tensor([[True] * 5, [False] * 5])
    print("fully padded row", stock(src, src_key_padding_mask=one)[0].abs().sum().item())
    try:
        stock(src, src_key_padding_mask=torch.ones(2, 5, dtype=torch.bool))
    except RuntimeError as err:
        print("RuntimeError", err)
y_grad = stock(src, src_key_padding_mask=pad)
print("grad-mode valid rows agree", torch.allclose(y_grad[~pad], y[~pad], atol=1e-5))
