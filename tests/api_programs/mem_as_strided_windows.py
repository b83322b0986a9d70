"""as_strided as library authors use it for zero-copy windows: 1-D frames with hop, 2-D patches (im2col by hand on
NCHW and on channels_last inputs, checked against conv2d and F.unfold), max/avg pooling from a window view,
a strided convolution, a banded matrix, gradients through as_strided (overlapping windows accumulate), as_strided_
in place, and the storage offset/extent arithmetic printed for each view."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def geom(name, t):
    extent = t.storage_offset() + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) + 1
    print(f"{name}: shape={tuple(t.shape)} stride={t.stride()} off={t.storage_offset()} extent={extent} "
          f"contig={t.is_contiguous()}")


# 1-D framing
sig = torch.randn(16)
n_fft, hop = 6, 2
n_frames = 1 + (sig.numel() - n_fft) // hop
frames = sig.as_strided((n_frames, n_fft), (hop, 1))
geom("frames", frames)
print("frames == unfold:", torch.equal(frames, sig.unfold(0, n_fft, hop)))
print("frame energy:", frames.pow(2).sum(1))
sub = sig[3:]
fr2 = sub.as_strided((3, 4), (4, 1), sub.storage_offset())
geom("frames of a slice (explicit offset)", fr2)
print("first frame:", fr2[0])
fr3 = sub.as_strided((3, 4), (4, 1))
geom("as_strided without offset keeps the view's", fr3)
print("same as explicit:", torch.equal(fr2, fr3))

# im2col by hand, NCHW
x = torch.randn(2, 3, 6, 6)
w = torch.randn(4, 3, 3, 3)
N, C, H, W = x.shape
kh = kw = 3
oh, ow = H - kh + 1, W - kw + 1
sN, sC, sH, sW = x.stride()
patches = x.as_strided((N, C, oh, ow, kh, kw), (sN, sC, sH, sW, sH, sW))
geom("patches nchw", patches)
out = torch.einsum("ncijkl,ockl->noij", patches, w)
print("im2col conv agrees:", torch.allclose(out, F.conv2d(x, w), atol=1e-5))
cols = patches.permute(0, 1, 4, 5, 2, 3).reshape(N, C * kh * kw, oh * ow)
print("F.unfold agrees:", torch.allclose(cols, F.unfold(x, 3)))
print("cols is a copy:", cols.data_ptr() != x.data_ptr())

# channels_last input: the same patches from NHWC strides
xc = x.contiguous(memory_format=torch.channels_last)
sN, sC, sH, sW = xc.stride()
print("nhwc strides:", xc.stride())
patches_cl = xc.as_strided((N, C, oh, ow, kh, kw), (sN, sC, sH, sW, sH, sW))
geom("patches nhwc", patches_cl)
print("patches equal:", torch.equal(patches, patches_cl))

# strided convolution (stride 2, padding 1) from a padded view
xp = F.pad(x, (1, 1, 1, 1))
s = 2
oh2 = (xp.shape[2] - kh) // s + 1
sN, sC, sH, sW = xp.stride()
p2 = xp.as_strided((N, C, oh2, oh2, kh, kw), (sN, sC, sH * s, sW * s, sH, sW))
out2 = torch.einsum("ncijkl,ockl->noij", p2, w)
print("stride-2 conv agrees:", torch.allclose(out2, F.conv2d(x, w, stride=2, padding=1), atol=1e-5))
print("out2[0, 0]:\n", out2[0, 0])

# pooling from windows
pool_in = torch.arange(32.0).view(1, 2, 4, 4)
sN, sC, sH, sW = pool_in.stride()
win = pool_in.as_strided((1, 2, 2, 2, 2, 2), (sN, sC, 2 * sH, 2 * sW, sH, sW))
print("max pool:", torch.equal(win.amax((-1, -2)), F.max_pool2d(pool_in, 2)))
print("avg pool:", torch.equal(win.mean((-1, -2)), F.avg_pool2d(pool_in, 2)))
win3 = pool_in.as_strided((1, 2, 3, 3, 2, 2), (sN, sC, sH, sW, sH, sW))
print("overlapping max pool k2 s1:", torch.equal(win3.amax((-1, -2)), F.max_pool2d(pool_in, 2, 1)))
print(win3.amax((-1, -2))[0, 1])

# banded / Toeplitz matrices from one buffer
v = torch.arange(1.0, 8.0)
toe = v.as_strided((4, 4), (1, 1))
print("hankel-like:\n", toe)
band = torch.zeros(5, 5)
band.as_strided((4,), (6,), 1).fill_(-1.0)  # superdiagonal
band.as_strided((5,), (6,)).fill_(2.0)      # diagonal
band.as_strided((4,), (6,), 5).fill_(-1.0)  # subdiagonal
print("tridiagonal:\n", band)
print("eigvalsh:", torch.linalg.eigvalsh(band))

# gradients through as_strided: overlapping windows accumulate
a = torch.arange(6.0, requires_grad=True)
wins = a.as_strided((3, 4), (1, 1))
print("grad_fn:", type(wins.grad_fn).__name__)
wins.sum().backward()
print("window counts as grad:", a.grad)
b = torch.randn(8, requires_grad=True)
fr = b.as_strided((3, 4), (2, 1))
(fr * torch.arange(4.0)).sum().backward()
print("weighted grad:", b.grad)

# as_strided_ in place and bounds
c = torch.arange(10.0)
c.as_strided_((2, 3), (4, 2), 1)
geom("as_strided_", c)
print(c)
for args in [((3, 4), (4, 1), 0), ((2, 2), (1, 1), 9), ((2,), (1,), -1)]:
    try:
        torch.arange(10.0).as_strided(*args)
        print(args, "ok")
    except Exception as e:
        print(args, type(e).__name__, e)
