"""Image arrays between numpy and torch as vision code converts them: HWC uint8 arrays to CHW float tensors
(permute vs np.transpose, the strides and contiguity each gives, /255 promotion), a batch from np.stack, the
channels_last memory format of a permuted from_numpy view, uint8 arithmetic that wraps, back to uint8 with
clamp/round/byte and .numpy(), integer division and mean on uint8, conv2d on a Fortran-ordered array, and
normalisation constants held as numpy arrays."""

import numpy as np
import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4)
rng = np.random.default_rng(8)

imgs = [rng.integers(0, 256, size=(4, 5, 3), dtype=np.uint8) for _ in range(3)]
hwc = imgs[0]
print("hwc", hwc.dtype, hwc.shape, hwc.strides, hwc[0, 0].tolist())

t = torch.from_numpy(hwc)
chw = t.permute(2, 0, 1)
print("permute view", tuple(chw.shape), chw.stride(), chw.is_contiguous(),
      chw.is_contiguous(memory_format=torch.channels_last) if chw.dim() == 4 else "-")
batch_view = chw.unsqueeze(0)
print("channels_last?", batch_view.is_contiguous(memory_format=torch.channels_last), batch_view.stride())
np_chw = np.transpose(hwc, (2, 0, 1))
t2 = torch.from_numpy(np_chw)
print("np.transpose then from_numpy", t2.stride(), t2.is_contiguous(), torch.equal(t2, chw))
t3 = torch.from_numpy(np.ascontiguousarray(np_chw))
print("ascontiguousarray", t3.stride(), t3.is_contiguous())

x = chw.float() / 255
print("float / 255", x.dtype, round(x.mean().item(), 4), round(x.max().item(), 4), x.is_contiguous())
y = chw / 255
print("uint8 / 255", y.dtype, round(y.sum().item(), 4))
z = chw.to(torch.float32).div(255.0).contiguous()
print("contiguous copy", z.stride(), torch.allclose(x, z))

print("-- batching")
batch_np = np.stack(imgs)  # N H W C
batch = torch.from_numpy(batch_np).permute(0, 3, 1, 2)
print("batch", tuple(batch.shape), batch.stride(), batch.is_contiguous(),
      batch.is_contiguous(memory_format=torch.channels_last))
bf = batch.float().div_(255)
print("float batch", bf.stride(), bf.is_contiguous(memory_format=torch.channels_last))
mean = np.array([0.485, 0.456, 0.406])
std = np.array([0.229, 0.224, 0.225])
normed = (bf - torch.from_numpy(mean).view(1, 3, 1, 1)) / torch.from_numpy(std).view(1, 3, 1, 1)
print("normalised with float64 stats", normed.dtype, [round(v, 4) for v in normed.mean(dim=(0, 2, 3)).tolist()])
normed32 = (bf - torch.tensor(mean, dtype=torch.float32).view(1, 3, 1, 1)) / torch.as_tensor(
    std, dtype=torch.float32).view(1, 3, 1, 1)
print("float32 stats", normed32.dtype, round(normed32.std().item(), 4))
mixed = bf * np.float32(2.0) - mean.astype(np.float32)[:, None, None]
print("numpy broadcasting result", type(mixed).__name__, mixed.dtype, tuple(mixed.shape))

print("-- uint8 arithmetic")
a = torch.from_numpy(np.array([250, 10, 128], dtype=np.uint8))
print("add wraps", (a + 10).tolist(), "numpy", (a.numpy() + np.uint8(10)).tolist())
print("sub wraps", (a - 20).tolist(), "neg", (-a).tolist())
print("true div", (a / 2).tolist(), "floor div", (a // 3).tolist(), (a // 3).dtype)
print("mult promotes?", (a * 2).dtype, (a * 2.0).dtype, (a * torch.tensor(2)).dtype)
try:
    a.float().mean().item()
    a.mean()
except RuntimeError as e:
    print("mean on uint8", str(e).splitlines()[0])
print("sum of uint8", a.sum().item(), a.sum().dtype, a.numpy().sum(), a.numpy().sum().dtype)

print("-- back to uint8 images")
out = (bf[0] * 255).round().clamp(0, 255).byte().permute(1, 2, 0).numpy()
print("round trip equal", out.dtype, out.shape, out.flags["C_CONTIGUOUS"], np.array_equal(out, imgs[0]))
over = torch.tensor([-5.0, 3.7, 255.9, 300.0])
print("byte() without clamp", over.byte().tolist(), "clamp first", over.clamp(0, 255).byte().tolist())
print("to(uint8) of negatives", torch.tensor([-1.0, -2.5]).to(torch.uint8).tolist())
gray = (bf[0] * torch.tensor([0.299, 0.587, 0.114]).view(3, 1, 1)).sum(0)
print("gray", tuple(gray.shape), [round(v, 4) for v in gray[0].tolist()])
gray_np = (gray.numpy() * 255).astype(np.uint8)
print("astype(uint8)", gray_np[0].tolist())

print("-- conv on numpy layouts")
torch.manual_seed(0)
conv = torch.nn.Conv2d(3, 2, kernel_size=3, padding=1)
fortran = np.asfortranarray(rng.normal(size=(1, 3, 6, 6)).astype(np.float32))
tf = torch.from_numpy(fortran)
print("fortran strides", tf.stride(), tf.is_contiguous())
r1 = conv(tf)
r2 = conv(tf.contiguous())
print("conv fortran == contiguous", torch.allclose(r1, r2, atol=1e-6), tuple(r1.shape))
print("conv output", [round(v, 4) for v in r1[0, 0, 0].tolist()])
pooled = F.adaptive_avg_pool2d(bf, 1).flatten(1)
print("pooled", [[round(v, 4) for v in row] for row in pooled.tolist()])
up = F.interpolate(torch.from_numpy(imgs[1]).permute(2, 0, 1)[None].float(), scale_factor=0.5, mode="bilinear",
                   align_corners=False)
print("interpolate", tuple(up.shape), [round(v, 4) for v in up[0, 0].flatten().tolist()])
flipped = torch.from_numpy(imgs[2]).flip(1)
print("flip is a copy", flipped.is_contiguous(), torch.equal(flipped, torch.from_numpy(imgs[2][:, ::-1].copy())))
