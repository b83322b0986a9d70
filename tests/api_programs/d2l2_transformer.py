"""d2l.ai chapter 11 continued, as the book writes it: multi-head attention by hand (transpose_qkv and
transpose_output), self-attention with sinusoidal positional encoding, the position-wise FFN and AddNorm, the
Transformer encoder and decoder blocks from scratch with a step-by-step decoding state, and ViT's patch embedding."""

import math
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(23)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def init_(m, scale=0.2):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy((scale * rng.standard_normal(tuple(p.shape))).astype(np.float32)))


def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return nn.functional.softmax(X.reshape(shape), dim=-1)


class DotProductAttention(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


def transpose_qkv(X, num_heads):
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    X = X.permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


class MultiHeadAttention(nn.Module):
    def __init__(self, num_hiddens, num_heads, dropout, bias=False, **kwargs):
        super().__init__()
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_k = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_v = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_o = nn.LazyLinear(num_hiddens, bias=bias)

    def forward(self, queries, keys, values, valid_lens):
        queries = transpose_qkv(self.W_q(queries), self.num_heads)
        keys = transpose_qkv(self.W_k(keys), self.num_heads)
        values = transpose_qkv(self.W_v(values), self.num_heads)
        if valid_lens is not None:
            valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
        output = self.attention(queries, keys, values, valid_lens)
        return self.W_o(transpose_output(output, self.num_heads))


num_hiddens, num_heads = 20, 5
attention = MultiHeadAttention(num_hiddens, num_heads, 0.5)
batch_size, num_queries, num_kvpairs = 2, 4, 6
valid_lens = torch.tensor([3, 2])
X, Y = T(batch_size, num_queries, num_hiddens), T(batch_size, num_kvpairs, num_hiddens)
print(attention.W_q.weight, attention.W_q, attention.W_q.has_uninitialized_params())
for init_fn in (nn.init.xavier_uniform_, nn.init.zeros_, lambda w: w.numel(), lambda w: w + 1):
    try:
        init_fn(attention.W_q.weight)
    except ValueError as e:
        print("ValueError", str(e).split(". This")[0])
attention(X, Y, Y, valid_lens)
init_(attention)
attention.eval()
out = attention(X, Y, Y, valid_lens)
print("mha", out.shape, r(out[1, 2], 5), attention.attention.attention_weights.shape)
print("tqkv", transpose_qkv(X, 5).shape, torch.equal(transpose_output(transpose_qkv(X, 5), 5), X),
      transpose_qkv(X, 5).is_contiguous())
# same numbers through nn.MultiheadAttention with the hand weights
ref = nn.MultiheadAttention(num_hiddens, num_heads, bias=False, batch_first=True)
with torch.no_grad():
    ref.in_proj_weight.copy_(torch.cat([attention.W_q.weight, attention.W_k.weight, attention.W_v.weight]))
    ref.out_proj.weight.copy_(attention.W_o.weight)
kpm = torch.arange(num_kvpairs)[None, :] >= valid_lens[:, None]
ref_out, ref_w = ref(X, Y, Y, key_padding_mask=kpm)
print("vs_nn_mha", torch.allclose(out, ref_out, atol=1e-5), ref_w.shape, r(ref_w[0, 0], 6))


class PositionalEncoding(nn.Module):
    def __init__(self, num_hiddens, dropout, max_len=1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        X = X + self.P[:, :X.shape[1], :].to(X.device)
        return self.dropout(X)


encoding_dim, num_steps = 32, 60
pos_encoding = PositionalEncoding(encoding_dim, 0)
X = pos_encoding(torch.zeros((1, num_steps, encoding_dim)))
P = pos_encoding.P[:, :X.shape[1], :]
print("pe", P.shape, r(P[0, 10], 6), r(P[0, :, 6:10].sum(0), 4))
for i in range(8):
    print(f"{i} in binary is {i:>03b}", end="; " if i < 7 else "\n")
print("pe_dot", r(P[0, :6] @ P[0, 5], 6))


class PositionWiseFFN(nn.Module):
    def __init__(self, ffn_num_hiddens, ffn_num_outputs):
        super().__init__()
        self.dense1 = nn.LazyLinear(ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.LazyLinear(ffn_num_outputs)

    def forward(self, X):
        return self.dense2(self.relu(self.dense1(X)))


ffn = PositionWiseFFN(4, 8)
ffn.eval()
print("ffn", ffn(torch.ones((2, 3, 4)))[0].shape, ffn.dense1)
ln = nn.LayerNorm(2)
bn = nn.LazyBatchNorm1d()
X = torch.tensor([[1, 2], [2, 3]], dtype=torch.float32)
print("layer norm:", ln(X), "\nbatch norm:", bn(X))


class AddNorm(nn.Module):
    def __init__(self, norm_shape, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(norm_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


add_norm = AddNorm(4, 0.5)
print("addnorm", add_norm(torch.ones((2, 3, 4)), torch.ones((2, 3, 4))).shape)


class TransformerEncoderBlock(nn.Module):
    def __init__(self, num_hiddens, ffn_num_hiddens, num_heads, dropout, use_bias=False):
        super().__init__()
        self.attention = MultiHeadAttention(num_hiddens, num_heads, dropout, use_bias)
        self.addnorm1 = AddNorm(num_hiddens, dropout)
        self.ffn = PositionWiseFFN(ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(num_hiddens, dropout)

    def forward(self, X, valid_lens):
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


class TransformerDecoderBlock(nn.Module):
    def __init__(self, num_hiddens, ffn_num_hiddens, num_heads, dropout, i):
        super().__init__()
        self.i = i
        self.attention1 = MultiHeadAttention(num_hiddens, num_heads, dropout)
        self.addnorm1 = AddNorm(num_hiddens, dropout)
        self.attention2 = MultiHeadAttention(num_hiddens, num_heads, dropout)
        self.addnorm2 = AddNorm(num_hiddens, dropout)
        self.ffn = PositionWiseFFN(ffn_num_hiddens, num_hiddens)
        self.addnorm3 = AddNorm(num_hiddens, dropout)

    def forward(self, X, state):
        enc_outputs, enc_valid_lens = state[0], state[1]
        if state[2][self.i] is None:
            key_values = X
        else:
            key_values = torch.cat((state[2][self.i], X), dim=1)
        state[2][self.i] = key_values
        if self.training:
            batch_size, num_steps, _ = X.shape
            dec_valid_lens = torch.arange(1, num_steps + 1, device=X.device).repeat(batch_size, 1)
        else:
            dec_valid_lens = None
        X2 = self.attention1(X, key_values, key_values, dec_valid_lens)
        Y = self.addnorm1(X, X2)
        Y2 = self.attention2(Y, enc_outputs, enc_outputs, enc_valid_lens)
        Z = self.addnorm2(Y, Y2)
        return self.addnorm3(Z, self.ffn(Z)), state


X = T(2, 10, 24)
valid_lens = torch.tensor([3, 2])
encoder_blk = TransformerEncoderBlock(24, 48, 8, 0.5)
encoder_blk.eval()
encoder_blk(X, valid_lens)
init_(encoder_blk)
enc_out = encoder_blk(X, valid_lens)
print("enc_blk", enc_out.shape, r(enc_out[0, 0], 5), round(enc_out.mean(-1).abs().max().item(), 4))
decoder_blk = TransformerDecoderBlock(24, 48, 8, 0.5, 0)
state = [enc_out, valid_lens, [None]]
decoder_blk.train()
decoder_blk(X, state)
init_(decoder_blk)
decoder_blk.train(False)
full, _ = decoder_blk(X[:, :4], [enc_out, valid_lens, [None]])
# incremental decoding with the key-value cache gives the causal result
decoder_blk.eval()
state = [enc_out, valid_lens, [None]]
steps = []
for t in range(4):
    y, state = decoder_blk(X[:, t:t + 1], state)
    steps.append(y)
inc = torch.cat(steps, 1)
decoder_blk.train()
for m in decoder_blk.modules():
    if isinstance(m, nn.Dropout):
        m.p = 0.0
causal, _ = decoder_blk(X[:, :4], [enc_out, valid_lens, [None]])
print("dec_blk", inc.shape, state[2][0].shape, torch.allclose(inc, causal, atol=1e-5),
      torch.allclose(full, causal, atol=1e-5), r(inc[1, 3], 5))
print(sum(p.numel() for p in decoder_blk.parameters()), [n for n, _ in decoder_blk.named_children()])
loss = causal.pow(2).mean()
loss.backward()
print("grads", round(decoder_blk.attention1.W_q.weight.grad.norm().item(), 4),
      round(decoder_blk.ffn.dense1.bias.grad.abs().sum().item(), 4))


# ViT patch embedding
class PatchEmbedding(nn.Module):
    def __init__(self, img_size=96, patch_size=16, num_hiddens=512):
        super().__init__()

        def _make_tuple(x):
            if not isinstance(x, (list, tuple)):
                return (x, x)
            return x
        img_size, patch_size = _make_tuple(img_size), _make_tuple(patch_size)
        self.num_patches = (img_size[0] // patch_size[0]) * (img_size[1] // patch_size[1])
        self.conv = nn.LazyConv2d(num_hiddens, kernel_size=patch_size, stride=patch_size)

    def forward(self, X):
        return self.conv(X).flatten(2).transpose(1, 2)


img_size, patch_size, num_hiddens, batch_size = 16, 4, 12, 2
patch_emb = PatchEmbedding(img_size, patch_size, num_hiddens)
X = T(batch_size, 3, img_size, img_size)
patch_emb(X)
init_(patch_emb)
P = patch_emb(X)
print("patches", patch_emb.num_patches, P.shape, r(P[1, 5], 5), patch_emb.conv)
manual = X.unfold(2, 4, 4).unfold(3, 4, 4).permute(0, 2, 3, 1, 4, 5).reshape(2, 16, 48)
manual = manual @ patch_emb.conv.weight.reshape(12, 48).T + patch_emb.conv.bias
print("unfold_patches", torch.allclose(manual, P, atol=1e-5))
cls_token = nn.Parameter(torch.zeros(1, 1, num_hiddens))
pos_embedding = nn.Parameter(torch.zeros(1, patch_emb.num_patches + 1, num_hiddens))
Z = torch.cat((cls_token.expand(P.shape[0], -1, -1), P), 1) + pos_embedding
print("vit_in", Z.shape, Z.requires_grad, Z.grad_fn.name())
