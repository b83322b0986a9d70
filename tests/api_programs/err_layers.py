"""Layer-input mistakes in a small vision and sequence model, printed as type(e).__name__ and the whole message:
convolutions with the wrong channel count or rank, kernels larger than the padded input, bad groups, pooling
outputs that shrink to nothing, interpolate/pad arguments, RNN hidden states of the wrong shape, attention with
mismatched embed dims and masks, norm layers with the wrong normalized shape, and the corrected calls."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(8)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} mean={out.float().mean().item():.4f}")
    elif isinstance(out, tuple) and all(isinstance(o, torch.Tensor) for o in out):
        print(f"{name}: ok {[tuple(o.shape) for o in out]}")
    else:
        print(f"{name}: ok {out}")
    return out


img = torch.randn(2, 3, 8, 8)
gray = torch.randn(2, 1, 8, 8)

# --- convolutions ------------------------------------------------------------------------------------
conv = nn.Conv2d(3, 6, 3, padding=1)
show("conv_ok", lambda: conv(img))
show("conv_gray", lambda: conv(gray))
show("conv_channels_last_by_hand", lambda: conv(img.permute(0, 2, 3, 1)))
show("conv_5d", lambda: conv(img.unsqueeze(0)))
show("conv_2d_input", lambda: conv(img[0, 0]))
show("conv_unbatched_ok", lambda: conv(img[0]))
show("conv_kernel_too_big", lambda: nn.Conv2d(3, 4, 11)(img))
show("conv_kernel_padded_ok", lambda: nn.Conv2d(3, 4, 11, padding=2)(img))
show("conv_groups_in", lambda: nn.Conv2d(3, 6, 3, groups=2))
show("conv_groups_out", lambda: nn.Conv2d(4, 6, 3, groups=4))
show("conv_groups_zero", lambda: nn.Conv2d(4, 4, 3, groups=0))
show("conv_same_strided", lambda: nn.Conv2d(3, 4, 3, stride=2, padding="same"))
show("conv_same_ok", lambda: nn.Conv2d(3, 4, 4, padding="same")(img))
show("conv_negative_padding", lambda: F.conv2d(img, torch.randn(4, 3, 3, 3), padding=-1))
show("conv_stride_zero", lambda: F.conv2d(img, torch.randn(4, 3, 3, 3), stride=0))
show("conv_weight_rank", lambda: F.conv2d(img, torch.randn(4, 3, 3)))
show("conv_bias_size", lambda: F.conv2d(img, torch.randn(4, 3, 3, 3), torch.randn(3)))
show("conv1d_on_image", lambda: nn.Conv1d(3, 4, 3)(img))
show("conv1d_channels", lambda: nn.Conv1d(16, 8, 3)(torch.randn(4, 50, 16)))
show("conv1d_fixed", lambda: nn.Conv1d(16, 8, 3)(torch.randn(4, 50, 16).transpose(1, 2)))
show("conv3d_on_image", lambda: nn.Conv3d(3, 4, 3)(img))
show("convT_channels", lambda: nn.ConvTranspose2d(6, 3, 2, stride=2)(img))
show("convT_output_padding", lambda: nn.ConvTranspose2d(3, 3, 3, stride=2, output_padding=2)(img))
show("convT_output_size_ok", lambda: nn.ConvTranspose2d(3, 3, 3, stride=2, padding=1)(img, output_size=[16, 16]))
show("convT_output_size_bad", lambda: nn.ConvTranspose2d(3, 3, 3, stride=2, padding=1)(img, output_size=[20, 20]))

# --- pooling and resizing ---------------------------------------------------------------------------------
show("maxpool_too_small", lambda: F.max_pool2d(torch.randn(1, 1, 2, 2), 3))
show("maxpool_padding_half", lambda: F.max_pool2d(img, 2, padding=2))
show("avgpool_too_small", lambda: F.avg_pool2d(torch.randn(1, 1, 2, 2), 3))
show("pool_chain_shrinks", lambda: nn.Sequential(*[nn.MaxPool2d(2)] * 4)(img))
show("adaptive_ok", lambda: F.adaptive_avg_pool2d(img, (3, 5)))
show("adaptive_rank", lambda: F.adaptive_avg_pool2d(img[0, 0, 0], 2))
show("maxpool1d_rank", lambda: F.max_pool1d(img, 2))
show("interp_size_and_scale", lambda: F.interpolate(img, size=4, scale_factor=2))
show("interp_neither", lambda: F.interpolate(img))
show("interp_mode", lambda: F.interpolate(img, scale_factor=2, mode="cubic"))
show("interp_bilinear_3d", lambda: F.interpolate(img[0], scale_factor=2, mode="bilinear"))
show("interp_size_len", lambda: F.interpolate(img, size=(4, 4, 4)))
show("interp_align_nearest", lambda: F.interpolate(img, scale_factor=2, mode="nearest", align_corners=True))
show("interp_ok", lambda: F.interpolate(img, scale_factor=0.5, mode="bilinear", align_corners=False))
show("pad_odd", lambda: F.pad(img, (1, 2, 3)))
show("pad_too_long", lambda: F.pad(img[0, 0, 0], (1, 1, 1, 1)))
show("pad_reflect_too_big", lambda: F.pad(img, (8, 8, 0, 0), mode="reflect"))
show("pad_mode", lambda: F.pad(img, (1, 1), mode="mirror"))
show("pad_negative_ok", lambda: F.pad(img, (-1, -1, -2, 0)))
show("pixel_shuffle", lambda: F.pixel_shuffle(img, 2))
show("pixel_shuffle_ok", lambda: F.pixel_shuffle(torch.randn(1, 12, 4, 4), 2))
show("unfold_kernel", lambda: F.unfold(img, kernel_size=9))
show("fold_blocks", lambda: F.fold(torch.randn(1, 12, 10), output_size=(4, 4), kernel_size=2))

# --- recurrent layers ----------------------------------------------------------------------------------------
lstm = nn.LSTM(4, 6, num_layers=2, batch_first=True)
seq = torch.randn(3, 5, 4)
show("lstm_ok", lambda: lstm(seq)[0])
show("lstm_features", lambda: lstm(torch.randn(3, 5, 7)))
show("lstm_h0_layers", lambda: lstm(seq, (torch.zeros(1, 3, 6), torch.zeros(1, 3, 6))))
show("lstm_h0_batch", lambda: lstm(seq, (torch.zeros(2, 5, 6), torch.zeros(2, 5, 6))))
show("lstm_h0_not_tuple", lambda: lstm(seq, torch.zeros(2, 3, 6)))
show("lstm_c0_size", lambda: lstm(seq, (torch.zeros(2, 3, 6), torch.zeros(2, 3, 5))))
show("gru_tuple_hidden", lambda: nn.GRU(4, 6)(seq, (torch.zeros(1, 5, 6), torch.zeros(1, 5, 6))))
show("gru_h0_ok", lambda: nn.GRU(4, 6)(seq, torch.zeros(1, 5, 6))[1])
show("rnn_nonlinearity", lambda: nn.RNN(4, 6, nonlinearity="sigmoid"))
show("rnn_dropout", lambda: nn.RNN(4, 6, dropout=1.5))
show("lstm_proj", lambda: nn.LSTM(4, 6, proj_size=6))
show("lstmcell_batch", lambda: nn.LSTMCell(4, 6)(torch.randn(3, 4), (torch.zeros(2, 6), torch.zeros(2, 6))))
show("grucell_input", lambda: nn.GRUCell(4, 6)(torch.randn(3, 5)))
show("rnncell_3d", lambda: nn.RNNCell(4, 6)(seq))

# --- attention and transformer -------------------------------------------------------------------------------------
show("mha_heads", lambda: nn.MultiheadAttention(10, 3))
mha = nn.MultiheadAttention(8, 2, batch_first=True)
x = torch.randn(2, 5, 8)
show("mha_ok", lambda: mha(x, x, x)[0])
show("mha_embed", lambda: mha(torch.randn(2, 5, 6), x, x))
show("mha_kv_len", lambda: mha(x, torch.randn(2, 4, 8), torch.randn(2, 5, 8)))
show("mha_mask_shape", lambda: mha(x, x, x, attn_mask=torch.zeros(4, 5, dtype=torch.bool)))
show("mha_mask_3d", lambda: mha(x, x, x, attn_mask=torch.zeros(3, 5, 5, dtype=torch.bool)))
show("mha_kpm_shape", lambda: mha(x, x, x, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool)))
show("mha_mask_float_ok", lambda: mha(x, x, x, attn_mask=torch.zeros(5, 5))[1])
show("mha_unbatched_ok", lambda: mha(x[0], x[0], x[0])[0])
show("sdpa_dims", lambda: F.scaled_dot_product_attention(torch.randn(2, 5, 8), torch.randn(2, 5, 6),
                                                         torch.randn(2, 5, 8)))
show("sdpa_ok", lambda: F.scaled_dot_product_attention(torch.randn(2, 5, 8), torch.randn(2, 7, 8),
                                                       torch.randn(2, 7, 4)))
show("encoder_layer_heads", lambda: nn.TransformerEncoderLayer(10, 4))
enc = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True, dropout=0.0)
show("encoder_ok", lambda: enc(x))
show("encoder_wrong_d", lambda: enc(torch.randn(2, 5, 6)))
show("encoder_mask_shape", lambda: enc(x, src_mask=torch.zeros(4, 4)))
show("causal_mask_ok", lambda: nn.Transformer.generate_square_subsequent_mask(3))

# --- normalization -------------------------------------------------------------------------------------------------
show("layernorm_shape", lambda: nn.LayerNorm(6)(x))
show("layernorm_tuple", lambda: nn.LayerNorm((5, 6))(x))
show("layernorm_ok", lambda: nn.LayerNorm((5, 8))(x))
show("groupnorm_groups", lambda: nn.GroupNorm(4, 6))
show("groupnorm_channels", lambda: nn.GroupNorm(2, 4)(img))
show("bn2d_rank", lambda: nn.BatchNorm2d(3)(img[0]))
show("bn1d_rank", lambda: nn.BatchNorm1d(3)(img))
show("bn_single_value", lambda: nn.BatchNorm1d(3)(torch.randn(1, 3)))
show("bn_eval_single_ok", lambda: nn.BatchNorm1d(3).eval()(torch.randn(1, 3)))
show("instancenorm_rank", lambda: nn.InstanceNorm2d(3)(img[0, 0]))
show("instancenorm_single", lambda: F.instance_norm(torch.randn(1, 3, 1)))
show("localresponse_rank", lambda: F.local_response_norm(torch.randn(3, 4), 2))
show("rmsnorm_shape", lambda: nn.RMSNorm(6)(x))
show("dropout_p", lambda: nn.Dropout(p=-0.1))
show("dropout2d_warnless_ok", lambda: nn.Dropout2d(0.5).eval()(img))
show("flatten_unflatten", lambda: nn.Unflatten(1, (2, 5))(torch.randn(2, 8)))
show("embedding_max_norm_ok", lambda: nn.Embedding(5, 3, max_norm=1.0)(torch.tensor([1, 2])).norm(dim=1))
