"""GitHub issues about strides and memory formats: empty_like/zeros_like/clone/contiguous with
preserve_format on channels_last, permuted and expanded inputs, to(memory_format=...), is_contiguous per
format, which ops keep channels_last (conv, pointwise, pooling), view vs reshape on non-contiguous tensors,
and as_strided/storage_offset."""

import numpy as np
import torch

rng = np.random.default_rng(3)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        cl = out.dim() == 4 and out.is_contiguous(memory_format=torch.channels_last)
        print(f"{name}: {tuple(out.shape)} {out.stride()} contig={out.is_contiguous()} cl={cl}")
    else:
        print(f"{name}: {out}")


x = torch.from_numpy(rng.standard_normal((2, 3, 4, 5)).astype(np.float32))
xc = x.to(memory_format=torch.channels_last)
show("nchw", lambda: x)
show("nhwc", lambda: xc)
show("same values", lambda: torch.equal(x, xc))
show("empty_like preserve", lambda: torch.empty_like(xc))
show("empty_like contiguous", lambda: torch.empty_like(xc, memory_format=torch.contiguous_format))
show("zeros_like", lambda: torch.zeros_like(xc))
show("ones_like cl from nchw", lambda: torch.ones_like(x, memory_format=torch.channels_last))
show("randn_like", lambda: torch.randn_like(xc))
show("full_like", lambda: torch.full_like(xc, 2.0))
show("clone", lambda: xc.clone())
show("clone contiguous", lambda: xc.clone(memory_format=torch.contiguous_format))
show("contiguous", lambda: xc.contiguous())
show("contiguous cl", lambda: x.contiguous(memory_format=torch.channels_last))
show("contiguous noop", lambda: x.contiguous() is x)
show("to cl noop", lambda: xc.to(memory_format=torch.channels_last) is xc)
show("pointwise", lambda: xc * 2 + 1)
show("pointwise mixed", lambda: xc + x)
show("pointwise mixed rev", lambda: x + xc)
show("relu", lambda: torch.relu(xc))
show("sigmoid_", lambda: xc.clone().sigmoid_())
show("sum keepdim", lambda: xc.sum(1, keepdim=True))
show("mean hw", lambda: xc.mean((2, 3)))
show("permute", lambda: x.permute(0, 2, 3, 1))
show("permute back", lambda: x.permute(0, 2, 3, 1).permute(0, 3, 1, 2))
show("permute empty_like", lambda: torch.empty_like(x.permute(0, 2, 3, 1)))
show("transpose clone", lambda: x.transpose(1, 3).clone())
show("transpose empty_like", lambda: torch.empty_like(x.transpose(1, 3)))
show("transpose contiguous", lambda: x.transpose(1, 3).contiguous())
show("expand empty_like", lambda: torch.empty_like(torch.zeros(3, 1).expand(3, 4)))
show("expand clone", lambda: torch.zeros(3, 1).expand(3, 4).clone())
show("slice empty_like", lambda: torch.empty_like(x[:, :, ::2]))
show("slice clone", lambda: x[:, :, ::2].clone())

# layers
conv = torch.nn.Conv2d(3, 4, 3, padding=1)
with torch.no_grad():
    conv.weight.copy_(torch.from_numpy(rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.2))
    conv.bias.zero_()
y_ref = conv(x)
conv_cl = conv.to(memory_format=torch.channels_last)
show("conv weight cl", lambda: conv_cl.weight)
y = conv_cl(xc)
show("conv cl", lambda: y)
show("conv same", lambda: torch.allclose(y, y_ref, atol=1e-5))
show("conv nchw input cl weight", lambda: conv_cl(x))
show("maxpool", lambda: torch.nn.functional.max_pool2d(xc, 2))
show("avgpool", lambda: torch.nn.functional.avg_pool2d(xc, 2))
show("adaptive avg", lambda: torch.nn.functional.adaptive_avg_pool2d(xc, 1))
show("batchnorm", lambda: torch.nn.BatchNorm2d(3)(xc))
show("interpolate", lambda: torch.nn.functional.interpolate(xc, scale_factor=2, mode="nearest"))
show("pad", lambda: torch.nn.functional.pad(xc, (1, 1)))
show("flatten", lambda: xc.flatten(1))
show("cat dim1", lambda: torch.cat([xc, xc], 1))

# view vs reshape
t = torch.arange(12.0).view(3, 4)
show("t view ok", lambda: t.t().contiguous().view(12))
show("t view", lambda: t.t().view(12))
show("t reshape", lambda: t.t().reshape(12))
show("reshape shares", lambda: t.reshape(4, 3).data_ptr() == t.data_ptr())
show("reshape copies", lambda: t.t().reshape(12).data_ptr() == t.data_ptr())
show("view -1", lambda: t.view(-1, 6))
show("view two -1", lambda: t.view(-1, -1))
show("view bad", lambda: t.view(5, -1))
show("cl view", lambda: xc.view(2, -1))
show("cl reshape", lambda: xc.reshape(2, -1))
show("narrow", lambda: t.narrow(1, 1, 2))
show("storage_offset", lambda: t[1:, 2:].storage_offset())
show("as_strided", lambda: torch.as_strided(t, (2, 2), (1, 4), 1))
show("as_strided values", lambda: torch.as_strided(t, (2, 2), (1, 4), 1).tolist())
show("unfold", lambda: torch.arange(6.0).unfold(0, 3, 1))
show("unfold values", lambda: torch.arange(6.0).unfold(0, 3, 2).tolist())
show("diagonal", lambda: t.diagonal())
show("is_set_to", lambda: t.view(4, 3).is_set_to(t))
show("untyped_storage nbytes", lambda: t.untyped_storage().nbytes())
show("element_size", lambda: (t.element_size(), t.nbytes, t.itemsize))
show("0-stride contiguous", lambda: torch.zeros(1, 3).expand(1, 3).is_contiguous())
show("size-1 dims contiguous", lambda: torch.zeros(3, 1).t().is_contiguous())
show("cl 1x1", lambda: torch.zeros(2, 3, 1, 1).is_contiguous(memory_format=torch.channels_last))
show("cl c=1", lambda: torch.zeros(2, 1, 4, 4).is_contiguous(memory_format=torch.channels_last))
show("cl bad rank", lambda: torch.zeros(2, 3, 4).to(memory_format=torch.channels_last))
show("cl3d", lambda: torch.zeros(1, 2, 3, 4, 5).to(memory_format=torch.channels_last_3d).stride())
show("preserve on 3d", lambda: torch.empty_like(torch.zeros(1, 2, 3, 4, 5).to(
    memory_format=torch.channels_last_3d)).stride())
show("new_empty", lambda: xc.new_empty(2, 3, 4, 5))
show("new_zeros strides", lambda: xc.new_zeros(xc.shape))
