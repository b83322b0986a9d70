"""Segmentation target preparation as dataset and training code writes it: uint8 label maps remapped through a
lookup table (Cityscapes-style id -> train id with 255 ignore), median-frequency and inverse-log class weights from
bincount, seeded random scale/crop/flip of image and label together (bilinear for images, nearest for labels,
padding labels with the ignore value), one_hot targets in channels-first layout, per-instance masks from an
instance map with unique, a seeded training step with weighted cross_entropy, and the prediction resized back."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(13)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)

IGNORE = 255
# raw ids 0..9; ids 0, 1 and 9 are void
id_to_train = torch.full((256,), IGNORE, dtype=torch.uint8)
id_to_train[torch.tensor([2, 3, 4, 5, 6, 7, 8])] = torch.tensor([0, 0, 1, 2, 2, 3, 1], dtype=torch.uint8)
raw = torch.randint(0, 10, (2, 12, 16), dtype=torch.uint8)
raw[:, 5:8, 4:10] = 7
labels = id_to_train[raw.long()]
print("raw[0,0]", raw[0, 0].tolist())
print("train[0,0]", labels[0, 0].tolist(), labels.dtype)
counts = torch.bincount(labels.flatten().long(), minlength=256)
print("train-id counts", counts[:4].tolist(), "ignored", counts[IGNORE].item())

num_classes = 4
freq = counts[:num_classes].double() / counts[:num_classes].sum()
median_w = freq.median() / freq
log_w = 1.0 / torch.log(1.02 + freq)
print("freq", freq.float(), "\nmedian-frequency weights", median_w.float(), "\ninverse-log weights", log_w.float())
print("median (lower) of even count", freq.median().item() == freq.sort().values[1].item())

image = torch.rand(2, 3, 12, 16)


def random_scale_crop_flip(img, lab, crop=(10, 10), scales=(0.75, 1.5)):
    s = torch.empty(1).uniform_(*scales).item()
    h, w = img.shape[-2:]
    nh, nw = int(h * s + 0.5), int(w * s + 0.5)
    img = F.interpolate(img[None], size=(nh, nw), mode="bilinear", align_corners=False)[0]
    lab = F.interpolate(lab[None, None].float(), size=(nh, nw), mode="nearest")[0, 0].to(torch.uint8)
    ph, pw = max(crop[0] - nh, 0), max(crop[1] - nw, 0)
    if ph or pw:
        img = F.pad(img, (0, pw, 0, ph), value=0.0)
        lab = F.pad(lab, (0, pw, 0, ph), value=IGNORE)
    top = torch.randint(0, img.shape[-2] - crop[0] + 1, (1,)).item()
    left = torch.randint(0, img.shape[-1] - crop[1] + 1, (1,)).item()
    img = img[:, top:top + crop[0], left:left + crop[1]]
    lab = lab[top:top + crop[0], left:left + crop[1]]
    if torch.rand(1).item() < 0.5:
        img, lab = img.flip(-1), lab.flip(-1)
    return img, lab, (round(s, 4), nh, nw, top, left)


batch_img, batch_lab = [], []
for i in range(2):
    im, lb, info = random_scale_crop_flip(image[i], labels[i])
    print("aug", info, tuple(im.shape), lb.dtype, "ignored px", (lb == IGNORE).sum().item())
    batch_img.append(im)
    batch_lab.append(lb)
x = torch.stack(batch_img)
y = torch.stack(batch_lab).long()
print("batch", tuple(x.shape), tuple(y.shape), "classes present", torch.unique(y).tolist())

valid = y != IGNORE
onehot = F.one_hot(y.masked_fill(~valid, 0), num_classes).permute(0, 3, 1, 2).float() * valid[:, None]
print("one_hot", tuple(onehot.shape), onehot.sum((0, 2, 3)).tolist(), "sum over C == valid",
      torch.equal(onehot.sum(1).bool(), valid))

# instance map -> binary masks, boxes and areas
inst = torch.zeros(12, 16, dtype=torch.int32)
inst[1:5, 2:7] = 3
inst[6:11, 9:15] = 7
inst[7:9, 1:4] = 12
ids, areas = torch.unique(inst, return_counts=True)
ids, areas = ids[1:], areas[1:]
masks = inst[None] == ids[:, None, None]
ys = torch.arange(12)[None, :, None].expand_as(masks)
xs = torch.arange(16)[None, None, :].expand_as(masks)
big = torch.iinfo(torch.int64).max
boxes = torch.stack([torch.where(masks, xs, big).flatten(1).amin(1), torch.where(masks, ys, big).flatten(1).amin(1),
                     torch.where(masks, xs, -1).flatten(1).amax(1), torch.where(masks, ys, -1).flatten(1).amax(1)], 1)
print("instances", ids.tolist(), ids.dtype, "areas", areas.tolist(), "\nboxes", boxes.tolist())

# a seeded training step on the crops
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, num_classes, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
crit = nn.CrossEntropyLoss(weight=median_w.float(), ignore_index=IGNORE)
for step in range(3):
    logits = model(x)
    loss = crit(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} grad norm "
          f"{torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in model.parameters()])).item():.4f}")

model.eval()
with torch.no_grad():
    full = model(image)
    small = model(F.interpolate(image, scale_factor=0.5, mode="bilinear", align_corners=False))
    back = F.interpolate(small, size=image.shape[-2:], mode="bilinear", align_corners=False)
pred_full, pred_back = full.argmax(1), back.argmax(1)
print("pred shapes", tuple(pred_full.shape), tuple(small.shape), "agreement",
      round((pred_full == pred_back).float().mean().item(), 4))
ms = (full.softmax(1) + back.softmax(1)) / 2
print("multi-scale probs", ms[0, :, 0, :3])
print("pixel acc vs labels", round(((ms.argmax(1) == labels.long()) & (labels != IGNORE)).sum().item()
                                   / (labels != IGNORE).sum().item(), 4))
