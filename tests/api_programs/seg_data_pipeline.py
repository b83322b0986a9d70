"""A segmentation data pipeline: colour-palette masks converted to class ids by broadcast comparison, Cityscapes-
style id-to-trainId lookup tables with 255 ignore, joint random crops padded with 255 on uint8 masks, nearest
resizing of label maps, flips drawn from a seeded Generator, median-frequency class weights, and a DataLoader
collating (image, mask) pairs."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

palette = torch.tensor([[0, 0, 0], [128, 0, 0], [0, 128, 0], [128, 128, 0]], dtype=torch.uint8)
rgb = palette[torch.randint(0, 4, (10, 12))]
rgb[0, 0] = torch.tensor([7, 7, 7], dtype=torch.uint8)
match = (rgb.view(-1, 1, 3) == palette.view(1, -1, 3)).all(-1)
cls = torch.where(match.any(1), match.int().argmax(1), torch.tensor(255)).view(10, 12)
print("palette ids", cls.dtype, cls[0].tolist(), torch.bincount(cls.flatten().clamp(max=4)).tolist())

raw_ids = torch.randint(0, 34, (10, 12), dtype=torch.uint8)
lut = torch.full((256,), 255, dtype=torch.uint8)
lut[torch.tensor([7, 8, 11, 12, 13, 17, 19, 20, 21])] = torch.arange(9, dtype=torch.uint8)
train_ids = lut[raw_ids.long()]
print("lut", train_ids.dtype, train_ids[0].tolist(), int((train_ids == 255).sum()))


class SegDataset(torch.utils.data.Dataset):
    def __init__(self, n, crop=8, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.randint(0, 256, (n, 3, 10, 12), dtype=torch.uint8, generator=g)
        self.masks = torch.randint(0, 5, (n, 10, 12), dtype=torch.uint8, generator=g)
        self.crop = crop
        self.g = torch.Generator().manual_seed(seed + 1)
        self.mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = self.images[i].float() / 255.0
        mask = self.masks[i]
        scale = 0.5 + torch.rand((), generator=self.g).item()
        h, w = int(10 * scale), int(12 * scale)
        img = F.interpolate(img[None], size=(h, w), mode="bilinear", align_corners=False, antialias=scale < 1)[0]
        mask = F.interpolate(mask[None, None], size=(h, w), mode="nearest")[0, 0]
        ph, pw = max(self.crop - h, 0), max(self.crop - w, 0)
        img = F.pad(img, (0, pw, 0, ph), value=0.0)
        mask = F.pad(mask, (0, pw, 0, ph), value=255)
        y = torch.randint(0, img.shape[1] - self.crop + 1, (), generator=self.g).item()
        x = torch.randint(0, img.shape[2] - self.crop + 1, (), generator=self.g).item()
        img, mask = img[:, y : y + self.crop, x : x + self.crop], mask[y : y + self.crop, x : x + self.crop]
        if torch.rand((), generator=self.g) < 0.5:
            img, mask = img.flip(-1), mask.flip(-1)
        return (img - self.mean) / self.std, mask.long()


ds = SegDataset(6)
img0, m0 = ds[0]
print(
    "sample",
    tuple(img0.shape),
    img0.dtype,
    tuple(m0.shape),
    m0.dtype,
    round(img0.sum().item(), 3),
    m0.unique().tolist(),
)
loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=False, drop_last=False)
for imgs, masks in loader:
    print("batch", tuple(imgs.shape), tuple(masks.shape), masks.dtype, int((masks == 255).sum()))

counts = torch.bincount(ds.masks.flatten().long(), minlength=5).float()
freq = counts / counts.sum()
mfb = freq.median() / freq
print("freq", freq.round(decimals=4).tolist(), "median-freq weights", mfb.round(decimals=4).tolist())
enet = 1.0 / torch.log(1.02 + freq)
print("enet weights", enet.round(decimals=4).tolist())

u8 = torch.tensor([[0, 1], [2, 3]], dtype=torch.uint8)[None, None]
print(
    "nearest uint8",
    F.interpolate(u8, scale_factor=2, mode="nearest").dtype,
    F.interpolate(u8, size=(3, 3), mode="nearest-exact")[0, 0].tolist(),
)
print(
    "pad uint8", F.pad(u8, (1, 1), value=255)[0, 0].tolist(), F.pad(u8, (0, 1, 1, 0), mode="replicate")[0, 0].tolist()
)
print("to float", (u8.float() / 255).round(decimals=4).flatten().tolist(), u8.to(torch.float16).dtype)
print("one-hot of uint8", F.one_hot(u8.long().flatten(), 4).sum(0).tolist())

for bad in [
    lambda: F.interpolate(u8, scale_factor=2, mode="bilinear"),
    lambda: F.pad(u8, (1, 1), value=300),
    lambda: F.interpolate(u8[0], size=(3, 3), mode="nearest"),
    lambda: lut[raw_ids.float()],
    lambda: lut[raw_ids],
    lambda: F.pad(u8, (0, 1), mode="replicate"),
    lambda: F.one_hot(u8.flatten(), 4),
    lambda: F.interpolate(u8.float(), size=(2, 2), mode="bicubic", antialias=True, align_corners=True).shape,
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
