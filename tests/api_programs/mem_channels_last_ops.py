"""channels_last and channels_last_3d as library authors track them: which ops keep the layout (conv2d with and
without bias, batch_norm in train and eval, relu/gelu/add/mul, max_pool2d with indices, avg_pool2d, adaptive
pools, interpolate over its modes, cat along each dim, pad, dropout), printed as output strides and per-format
contiguity flags, and the 3-D variants through conv3d, batch_norm3d and max_pool3d."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)
CL, CL3 = torch.channels_last, torch.channels_last_3d


def flags(t):
    if t.dim() == 4:
        return f"c={t.is_contiguous()} cl={t.is_contiguous(memory_format=CL)}"
    if t.dim() == 5:
        return f"c={t.is_contiguous()} cl3d={t.is_contiguous(memory_format=CL3)}"
    return f"c={t.is_contiguous()}"


def show(name, t):
    print(f"{name:28s} {tuple(t.shape)} {t.stride()} {flags(t)}")


x = torch.randn(2, 3, 6, 6)
xc = x.contiguous(memory_format=CL)
show("input nchw", x)
show("input nhwc", xc)
print("values equal:", torch.equal(x, xc), "same storage:", x.data_ptr() == xc.data_ptr())

conv = nn.Conv2d(3, 4, 3, padding=1)
conv_nb = nn.Conv2d(3, 4, 3, bias=False)
show("conv2d(nhwc)", conv(xc))
show("conv2d(nchw)", conv(x))
show("conv2d no bias", conv_nb(xc))
print("conv agrees:", torch.allclose(conv(xc), conv(x), atol=1e-5))
conv_cl = nn.Conv2d(3, 4, 3, padding=1).to(memory_format=CL)
show("weight cl", conv_cl.weight)
show("conv2d(cl weight, nchw x)", conv_cl(x))
show("F.conv2d stride 2", F.conv2d(xc, conv.weight, stride=2))
show("F.conv2d groups", F.conv2d(xc, torch.randn(3, 1, 3, 3), groups=3))

bn = nn.BatchNorm2d(3)
show("batch_norm train", bn(xc))
bn.eval()
show("batch_norm eval", bn(xc))
print("running_mean:", bn.running_mean)
show("F.batch_norm", F.batch_norm(xc, torch.zeros(3), torch.ones(3), training=True))
show("group_norm", F.group_norm(xc, 3))
show("instance_norm", F.instance_norm(xc))

show("relu", F.relu(xc))
show("relu_ in place", F.relu(xc.clone(), inplace=True))
show("gelu", F.gelu(xc))
show("sigmoid", torch.sigmoid(xc))
show("add nhwc+nhwc", xc + xc)
show("add nhwc+nchw", xc + x)
show("add nchw+nhwc", x + xc)
show("mul scalar", xc * 2.0)
show("add bias (1,C,1,1)", xc + torch.ones(1, 3, 1, 1))
show("where", torch.where(xc > 0, xc, torch.zeros(())))
show("dropout eval", F.dropout(xc, 0.5, training=False))
show("dropout train", F.dropout(xc, 0.5, training=True))

out, idx = F.max_pool2d(xc, 2, return_indices=True)
show("max_pool2d", out)
show("max_pool2d indices", idx)
print("indices[0, 0]:", idx[0, 0].tolist())
show("max_pool2d k3 s2 p1", F.max_pool2d(xc, 3, 2, 1))
show("avg_pool2d", F.avg_pool2d(xc, 2))
show("adaptive_avg_pool2d 1", F.adaptive_avg_pool2d(xc, 1))
show("adaptive_avg_pool2d 3", F.adaptive_avg_pool2d(xc, 3))
show("adaptive_max_pool2d 2", F.adaptive_max_pool2d(xc, 2))

for mode in ["nearest", "bilinear", "bicubic"]:
    kw = {} if mode == "nearest" else {"align_corners": False}
    y = F.interpolate(xc, scale_factor=2, mode=mode, **kw)
    show(f"interpolate {mode}", y)
    print(f"  agrees with nchw: {torch.allclose(y, F.interpolate(x, scale_factor=2, mode=mode, **kw), atol=1e-5)}")
show("interpolate size=(3,4)", F.interpolate(xc, size=(3, 4), mode="bilinear", align_corners=True))

for d in range(4):
    show(f"cat dim={d}", torch.cat([xc, xc], d))
show("cat mixed", torch.cat([xc, x], 1))
show("cat nchw first", torch.cat([x, xc], 1))
show("stack", torch.stack([xc, xc]))
show("pad", F.pad(xc, (1, 1, 1, 1)))
show("pad reflect", F.pad(xc, (1, 1, 1, 1), mode="reflect"))
show("flatten(1)", xc.flatten(1))
show("mean(1, keepdim)", xc.mean(1, keepdim=True))
show("softmax(1)", xc.softmax(1))

# 3-D
v = torch.randn(1, 2, 4, 4, 4)
vc = v.contiguous(memory_format=CL3)
show("vol ncdhw", v)
show("vol ndhwc", vc)
conv3 = nn.Conv3d(2, 3, 3, padding=1)
show("conv3d", conv3(vc))
print("conv3d agrees:", torch.allclose(conv3(vc), conv3(v), atol=1e-5))
show("batch_norm3d", nn.BatchNorm3d(2)(vc))
show("max_pool3d", F.max_pool3d(vc, 2))
show("avg_pool3d", F.avg_pool3d(vc, 2))
show("relu 3d", torch.relu(vc))
show("interpolate trilinear", F.interpolate(vc, scale_factor=2, mode="trilinear"))
show("cat 3d dim 1", torch.cat([vc, vc], 1))

# a small network keeps the layout end to end
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(8, 8, 3, padding=1), nn.ReLU()).to(memory_format=CL)
h = xc
for i, m in enumerate(net):
    h = m(h)
    show(f"net[{i}] {type(m).__name__}", h)
print("net sum:", round(h.sum().item(), 4))
loss = h.square().mean()
loss.backward()
show("conv0 weight grad", net[0].weight.grad)
print("grad norm:", round(net[0].weight.grad.norm().item(), 4))
