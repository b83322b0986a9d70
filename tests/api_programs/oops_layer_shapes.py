"""Shape mistakes fed to layers, as forum posts quote them: nn.Linear with the wrong in_features, Conv2d with
channels-last images or missing batch dims, BatchNorm on the wrong axis, LSTM with batch_first forgotten or a
wrong hidden state, MultiheadAttention with a bad embed_dim or mask, Embedding with floats or ids out of range,
each followed by the fix that works."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(21)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def oops(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} {out.dtype}")
    elif isinstance(out, tuple):
        print(f"{name}: ok", [tuple(o.shape) if isinstance(o, torch.Tensor) else type(o).__name__ for o in out])
    else:
        print(f"{name}: ok {out}")


# nn.Linear
fc = nn.Linear(20, 5)
oops("linear_in", lambda: fc(T(4, 30)))
oops("linear_in_fix", lambda: nn.Linear(30, 5)(T(4, 30)))
oops("linear_image", lambda: fc(T(2, 4, 5)))
oops("linear_flatten", lambda: fc(T(2, 4, 5).flatten(1)))
oops("linear_transposed", lambda: F.linear(T(3, 20), fc.weight.t()))
oops("linear_bias", lambda: F.linear(T(3, 20), fc.weight, torch.zeros(4)))
oops("linear_1d_weight", lambda: F.linear(T(3, 20), torch.ones(20)))
oops("linear_zero_dim", lambda: nn.Linear(0, 3)(T(2, 0)))
oops("bilinear", lambda: nn.Bilinear(3, 4, 2)(T(5, 3), T(5, 3)))
oops("bilinear_batch", lambda: nn.Bilinear(3, 4, 2)(T(5, 3), T(6, 4)))
oops("bilinear_fix", lambda: nn.Bilinear(3, 4, 2)(T(5, 3), T(5, 4)))

# convolutions
conv = nn.Conv2d(3, 8, 3, padding=1)
oops("conv_channels_last", lambda: conv(T(2, 16, 16, 3)))
oops("conv_permute", lambda: conv(T(2, 16, 16, 3).permute(0, 3, 1, 2)))
oops("conv_gray", lambda: conv(T(2, 1, 16, 16)))
oops("conv_gray_fix", lambda: conv(T(2, 1, 16, 16).expand(-1, 3, -1, -1)))
oops("conv_5d", lambda: conv(T(1, 2, 3, 8, 8)))
oops("conv_too_small", lambda: nn.Conv2d(3, 4, 5)(T(1, 3, 3, 3)))
oops("conv_groups", lambda: nn.Conv2d(6, 4, 3, groups=4))
oops("conv_groups_input", lambda: F.conv2d(T(1, 6, 5, 5), T(4, 2, 3, 3), groups=2))
oops("conv_padding_same_stride", lambda: nn.Conv2d(3, 4, 3, stride=2, padding="same"))
oops("conv1d_len", lambda: nn.Conv1d(4, 2, 3)(T(2, 10, 4)))
oops("conv1d_fix", lambda: nn.Conv1d(4, 2, 3)(T(2, 10, 4).transpose(1, 2)))
oops("convT_channels", lambda: nn.ConvTranspose2d(4, 2, 2, stride=2)(T(1, 2, 3, 3)))
oops("maxpool_big", lambda: nn.MaxPool2d(4)(T(1, 1, 3, 3)))
oops("maxpool_pad", lambda: nn.MaxPool2d(2, padding=2)(T(1, 1, 4, 4)))
oops("avgpool_rank", lambda: nn.AvgPool2d(2)(T(4, 4)))
oops("adaptive_fix", lambda: nn.AdaptiveAvgPool2d((1, 1))(T(2, 3, 5, 7)).flatten(1))

# batch norm and friends
oops("bn1d_rank", lambda: nn.BatchNorm1d(4)(T(2, 3, 4, 5)))
oops("bn1d_axis", lambda: nn.BatchNorm1d(4)(T(2, 7, 4).transpose(1, 2).transpose(1, 2)))
oops("bn1d_axis_fix", lambda: nn.BatchNorm1d(4)(T(2, 7, 4).transpose(1, 2)))
oops("bn2d_rank", lambda: nn.BatchNorm2d(3)(T(2, 3)))
oops("bn3d_rank", lambda: nn.BatchNorm3d(3)(T(2, 3, 4, 4)))
oops("bn_one_sample", lambda: nn.BatchNorm1d(3)(T(1, 3)))
oops("bn_one_sample_eval", lambda: nn.BatchNorm1d(3).eval()(T(1, 3)))
oops("layernorm_shape", lambda: nn.LayerNorm(6)(T(2, 6, 4)))
oops("layernorm_fix", lambda: nn.LayerNorm([6, 4])(T(2, 6, 4)))
oops("groupnorm_divide", lambda: nn.GroupNorm(4, 6))
oops("groupnorm_channels", lambda: nn.GroupNorm(2, 6)(T(2, 4, 3)))
oops("instnorm_channels", lambda: nn.InstanceNorm1d(3, affine=True)(T(2, 5, 4)))

# recurrent layers
lstm = nn.LSTM(10, 16)
oops("lstm_features", lambda: lstm(T(5, 3, 12)))
oops("lstm_batch_first_forgot", lambda: nn.LSTM(10, 16, batch_first=True)(T(5, 10, 3)))
oops("lstm_h0_shape", lambda: lstm(T(5, 3, 10), (torch.zeros(3, 16), torch.zeros(3, 16))))
oops("lstm_h0_tensor", lambda: lstm(T(5, 3, 10), torch.zeros(1, 3, 16)))
oops("lstm_h0_batch", lambda: lstm(T(5, 3, 10), (torch.zeros(1, 4, 16), torch.zeros(1, 4, 16))))
oops("lstm_c0_size", lambda: lstm(T(5, 3, 10), (torch.zeros(1, 3, 16), torch.zeros(1, 3, 8))))
oops("lstm_fix", lambda: lstm(T(5, 3, 10), (torch.zeros(1, 3, 16), torch.zeros(1, 3, 16))))
oops("gru_h0_layers", lambda: nn.GRU(4, 6, num_layers=2)(T(3, 2, 4), torch.zeros(1, 2, 6)))
oops("gru_unbatched_h0", lambda: nn.GRU(4, 6)(T(3, 4), torch.zeros(1, 2, 6)))
oops("lstm_proj", lambda: nn.LSTM(4, 6, proj_size=6))
oops("lstmcell_h", lambda: nn.LSTMCell(4, 6)(T(2, 4), (torch.zeros(2, 5), torch.zeros(2, 6))))
oops("rnncell_input", lambda: nn.RNNCell(4, 6)(T(2, 5)))
oops("rnn_dropout", lambda: nn.RNN(4, 6, dropout=0.5).dropout)
oops("rnn_nonlin", lambda: nn.RNN(4, 6, nonlinearity="gelu"))

# attention
oops("mha_divisible", lambda: nn.MultiheadAttention(10, 3))
mha = nn.MultiheadAttention(8, 2, batch_first=True)
oops("mha_embed", lambda: mha(T(2, 5, 6), T(2, 5, 6), T(2, 5, 6)))
oops("mha_kv_len", lambda: mha(T(2, 5, 8), T(2, 4, 8), T(2, 3, 8)))
oops("mha_mask_shape", lambda: mha(T(2, 5, 8), T(2, 5, 8), T(2, 5, 8), attn_mask=torch.zeros(4, 4))[0])
oops("mha_mask_3d", lambda: mha(T(2, 5, 8), T(2, 5, 8), T(2, 5, 8), attn_mask=torch.zeros(2, 5, 5))[0])
oops("mha_mask_3d_fix", lambda: mha(T(2, 5, 8), T(2, 5, 8), T(2, 5, 8), attn_mask=torch.zeros(4, 5, 5)))
oops("mha_kpm_shape", lambda: mha(T(2, 5, 8), T(2, 5, 8), T(2, 5, 8),
                                   key_padding_mask=torch.zeros(5, 2, dtype=torch.bool))[0])
oops("mha_mask_int", lambda: mha(T(2, 5, 8), T(2, 5, 8), T(2, 5, 8), attn_mask=torch.zeros(5, 5, dtype=torch.long)))
oops("sdpa_heads", lambda: F.scaled_dot_product_attention(T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 7)))
oops("sdpa_dims", lambda: F.scaled_dot_product_attention(T(2, 4, 5, 8), T(2, 4, 6, 6), T(2, 4, 6, 8)))
oops("encoder_layer", lambda: nn.TransformerEncoderLayer(8, 3))

# embeddings
emb = nn.Embedding(10, 4)
oops("emb_float", lambda: emb(torch.tensor([1.0, 2.0])))
oops("emb_range", lambda: emb(torch.tensor([3, 10])))
oops("emb_negative", lambda: emb(torch.tensor([-1, 2])))
oops("emb_fix", lambda: emb(torch.tensor([[3, 9], [0, 1]])))
oops("emb_padding_idx", lambda: nn.Embedding(10, 4, padding_idx=10))
oops("embbag_offsets", lambda: nn.EmbeddingBag(10, 4)(torch.tensor([1, 2, 3]), torch.tensor([1, 2])))
oops("embbag_2d_offsets", lambda: nn.EmbeddingBag(10, 4)(torch.tensor([[1, 2], [3, 4]]), torch.tensor([0, 1])))
oops("embbag_fix", lambda: nn.EmbeddingBag(10, 4)(torch.tensor([1, 2, 3]), torch.tensor([0, 2])))
oops("one_hot_classes", lambda: F.one_hot(torch.tensor([0, 3]), num_classes=3))
oops("one_hot_float", lambda: F.one_hot(torch.tensor([0.0, 1.0])))
oops("one_hot_fix", lambda: F.one_hot(torch.tensor([0, 2]), num_classes=3).tolist())
