"""Stride tricks as signal, vision and numerics code writes them: sliding windows with unfold and as_strided
(moving averages, framing with hop), im2col for a convolution checked against conv2d, Toeplitz and Hankel matrices
from one buffer, a broadcast outer product via stride-0 expand, a zero-copy circular buffer read, block views of a
matrix, diagonals written through as_strided, and the storage geometry (stride, offset, data_ptr distance) of each
view; plus the errors for windows larger than the input and views outside the storage."""

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def geom(name, t, base):
    print(f"{name}: shape={tuple(t.shape)} stride={t.stride()} off={t.storage_offset()} "
          f"dist={(t.data_ptr() - base.data_ptr()) // t.element_size()}")


# sliding windows: unfold vs as_strided
sig = torch.randn(12)
win = sig.unfold(0, 4, 2)
geom("unfold(0, 4, 2)", win, sig)
strided = sig.as_strided((5, 4), (2, 1))
print("same windows:", torch.equal(win, strided))
print("moving average (size 3):", sig.unfold(0, 3, 1).mean(-1))
print("conv1d agrees:", torch.allclose(sig.unfold(0, 3, 1).mean(-1),
                                       F.conv1d(sig.view(1, 1, -1), torch.full((1, 1, 3), 1 / 3)).flatten(),
                                       atol=1e-6))
frames = F.pad(sig, (2, 2)).unfold(0, 6, 3)
geom("padded frames", frames, frames)
print("frames:\n", frames)
batch = torch.randn(2, 3, 10)
bw = batch.unfold(-1, 5, 5)
geom("batched unfold", bw, batch)
print("window energy:\n", bw.pow(2).sum(-1))

# im2col by hand against conv2d
img = torch.randn(1, 2, 5, 5)
weight = torch.randn(3, 2, 3, 3)
cols = img.unfold(2, 3, 1).unfold(3, 3, 1)
geom("im2col view", cols, img)
out = torch.einsum("bchwij,ocij->bohw", cols, weight)
print("im2col conv agrees:", torch.allclose(out, F.conv2d(img, weight), atol=1e-5))
fcols = F.unfold(img, 3)
print("F.unfold agrees:", torch.allclose(fcols, cols.permute(0, 1, 4, 5, 2, 3).reshape(1, 18, 9)))

# Toeplitz and Hankel from one buffer (negative strides are not allowed: build from a reversed copy)
c = torch.arange(1.0, 8.0)
toe = c.flip(0).as_strided((4, 4), (1, 1)).flip(0)
hank = c.as_strided((4, 4), (1, 1))
print("hankel:\n", hank)
print("toeplitz:\n", toe)
geom("hankel", hank, c)
print("hankel is symmetric:", torch.equal(hank, hank.t()))

# stride-0 broadcasting
row = torch.arange(4.0)
outer = row[:, None].expand(4, 5) * torch.arange(5.0).expand(4, 5)
geom("expand rows", row[:, None].expand(4, 5), row)
print("outer agrees:", torch.equal(outer, torch.outer(row, torch.arange(5.0))))
print("expanded is not contiguous:", row.expand(3, 4).is_contiguous(), row.expand(3, 4).contiguous().stride())

# circular buffer: write at a moving head, read in time order with roll or a doubled buffer view
cap = 5
buf = torch.zeros(2 * cap)
head = 0
for step in range(8):
    val = float(step * step)
    buf[head] = val
    buf[head + cap] = val
    head = (head + 1) % cap
ordered = buf.as_strided((cap,), (1,), head)
geom("ring view", ordered, buf)
print("ring in time order:", ordered)

# block views of a matrix
m = torch.arange(36.0).reshape(6, 6)
blocks = m.unfold(0, 2, 2).unfold(1, 3, 3)
geom("2x3 blocks", blocks, m)
print("block (1, 1):\n", blocks[1, 1])
print("block sums:\n", blocks.sum((-1, -2)))
alt = m.view(3, 2, 2, 3).permute(0, 2, 1, 3)
print("reshape-permute blocks agree:", torch.equal(alt, blocks))

# diagonal writes through as_strided and diagonal()
z = torch.zeros(4, 4)
z.as_strided((4,), (5,)).fill_(1.0)
z.as_strided((3,), (5,), 1).fill_(2.0)
z.diagonal(-1).copy_(torch.tensor([-1.0, -2.0, -3.0]))
print("banded:\n", z)
print("tridiagonal solve check:", torch.allclose(z @ torch.linalg.solve(z, torch.ones(4)), torch.ones(4), atol=1e-5))

# gradients through overlapping windows accumulate
s = torch.ones(8, requires_grad=True)
s.unfold(0, 3, 1).sum().backward()
print("window-count gradient:", s.grad)
s2 = torch.ones(6, requires_grad=True)
s2.as_strided((3, 3), (1, 1)).sum().backward()
print("as_strided gradient:", s2.grad)

# errors
for name, fn in [("window too big", lambda: sig.unfold(0, 13, 1)),
                 ("zero step", lambda: sig.unfold(0, 2, 0)),
                 ("outside storage", lambda: sig.as_strided((5, 4), (3, 1))),
                 ("negative stride", lambda: sig.as_strided((3,), (-1,))),
                 ("bad dim", lambda: sig.unfold(1, 2, 1)),
                 ("stride count", lambda: sig.as_strided((2, 2), (1,)))]:
    try:
        fn()
        print(f"{name}: ok")
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
