"""A YOLOv5-style detector as its reference implementation writes it: Conv-BN-SiLU blocks, C3 bottlenecks, SPPF
max pooling, nearest upsampling with a concat neck, the Detect head with meshgrid anchor grids and sigmoid offsets,
bbox_iou with GIoU/CIoU, build_targets with anchor ratio matching, the objectness/class BCE losses, a hand NMS, and
a few training steps."""

import math

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(8)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def autopad(k, p=None):
    return k // 2 if p is None else p


class Conv(nn.Module):
    default_act = nn.SiLU()

    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, autopad(k, p), groups=g, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=0.001, momentum=0.03)
        self.act = self.default_act if act is True else act if isinstance(act, nn.Module) else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1, self.cv2 = Conv(c1, c_, 1, 1), Conv(c_, c2, 3, 1)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        return x + self.cv2(self.cv1(x)) if self.add else self.cv2(self.cv1(x))


class C3(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1, self.cv2, self.cv3 = Conv(c1, c_, 1, 1), Conv(c1, c_, 1, 1), Conv(2 * c_, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, e=1.0) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c_ = c1 // 2
        self.cv1, self.cv2 = Conv(c1, c_, 1, 1), Conv(c_ * 4, c2, 1, 1)
        self.m = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class Detect(nn.Module):
    def __init__(self, nc, anchors, ch, strides):
        super().__init__()
        self.nc, self.no, self.nl, self.na = nc, nc + 5, len(anchors), len(anchors[0]) // 2
        self.register_buffer("anchors", torch.tensor(anchors).float().view(self.nl, -1, 2))
        self.register_buffer("stride", torch.tensor(strides, dtype=torch.float32))
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)

    def _make_grid(self, nx, ny, i):
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        grid = torch.stack((xv, yv), 2).expand(1, self.na, ny, nx, 2).float() - 0.5
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(1, self.na, ny, nx, 2)
        return grid, anchor_grid

    def forward(self, x):
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if not self.training:
                grid, anchor_grid = self._make_grid(nx, ny, i)
                xy, wh, conf = x[i].sigmoid().split((2, 2, self.nc + 1), 4)
                xy = (xy * 2 + grid) * self.stride[i]
                wh = (wh * 2) ** 2 * anchor_grid
                z.append(torch.cat((xy, wh, conf), 4).view(bs, self.na * nx * ny, self.no))
        return x if self.training else (torch.cat(z, 1), x)


class TinyYolo(nn.Module):
    def __init__(self, nc=2):
        super().__init__()
        self.b1 = nn.Sequential(Conv(3, 8, 3, 2), Conv(8, 8, 3, 2), C3(8, 8))
        self.b2 = nn.Sequential(Conv(8, 16, 3, 2), C3(16, 16), SPPF(16, 16))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.neck = C3(24, 8, shortcut=False)
        self.detect = Detect(nc, [[2, 3, 4, 5], [6, 5, 8, 9]], (8, 16), (4.0, 8.0))

    def forward(self, x):
        p3 = self.b1(x)
        p4 = self.b2(p3)
        n3 = self.neck(torch.cat([self.up(p4), p3], 1))
        return self.detect([n3, p4])


def bbox_iou(box1, box2, xywh=True, GIoU=False, CIoU=False, eps=1e-7):
    (x1, y1, w1, h1), (x2, y2, w2, h2) = box1.chunk(4, -1), box2.chunk(4, -1)
    w1_, h1_, w2_, h2_ = w1 / 2, h1 / 2, w2 / 2, h2 / 2
    b1_x1, b1_x2, b1_y1, b1_y2 = x1 - w1_, x1 + w1_, y1 - h1_, y1 + h1_
    b2_x1, b2_x2, b2_y1, b2_y2 = x2 - w2_, x2 + w2_, y2 - h2_, y2 + h2_
    inter = (b1_x2.minimum(b2_x2) - b1_x1.maximum(b2_x1)).clamp(0) * \
            (b1_y2.minimum(b2_y2) - b1_y1.maximum(b2_y1)).clamp(0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / union
    cw = b1_x2.maximum(b2_x2) - b1_x1.minimum(b2_x1)
    ch = b1_y2.maximum(b2_y2) - b1_y1.minimum(b2_y1)
    if CIoU:
        c2 = cw ** 2 + ch ** 2 + eps
        rho2 = ((b2_x1 + b2_x2 - b1_x1 - b1_x2) ** 2 + (b2_y1 + b2_y2 - b1_y1 - b1_y2) ** 2) / 4
        v = (4 / math.pi ** 2) * (torch.atan(w2 / h2) - torch.atan(w1 / h1)).pow(2)
        with torch.no_grad():
            alpha = v / (v - iou + (1 + eps))
        return iou - (rho2 / c2 + v * alpha)
    if GIoU:
        c_area = cw * ch + eps
        return iou - (c_area - union) / c_area
    return iou


b1 = torch.tensor([[5.0, 5.0, 4.0, 2.0], [1.0, 1.0, 2.0, 2.0]])
b2 = torch.tensor([[6.0, 5.0, 4.0, 4.0], [4.0, 4.0, 1.0, 1.0]])
print("iou", r(bbox_iou(b1, b2), 2), "giou", r(bbox_iou(b1, b2, GIoU=True), 2),
      "ciou", r(bbox_iou(b1, b2, CIoU=True), 2))

model = TinyYolo()
with torch.no_grad():
    for name, p in model.named_parameters():
        base = 1.0 if ".bn.weight" in name else 0.0
        p.copy_(torch.from_numpy((base + 0.3 * rng.standard_normal(p.shape)).astype(np.float32)))
print("params", sum(p.numel() for p in model.parameters()), "shared act", model.b1[0].act is model.b2[0].act,
      "buffers", sorted({n.split(".")[-1] for n, _ in model.named_buffers()}))
imgs = torch.from_numpy(rng.uniform(0, 1, (2, 3, 32, 32)).astype(np.float32))
model.eval()
with torch.no_grad():
    pred, raw = model(imgs)
print("inference", tuple(pred.shape), [tuple(t.shape) for t in raw], r(pred[0, 0], 7))
grid, ag = model.detect._make_grid(3, 2, 1)
print("grid", grid[0, 0, 1].tolist(), "anchor grid", ag[0, :, 0, 0].tolist())

conf = pred[..., 4:5] * pred[..., 5:]
score, cls = conf.max(-1)
keep_all = []
for bi in range(2):
    order = score[bi].argsort(descending=True)[:10]
    boxes = pred[bi, order, :4]
    keep = []
    suppressed = torch.zeros(len(order), dtype=torch.bool)
    for i in range(len(order)):
        if suppressed[i]:
            continue
        keep.append(order[i].item())
        suppressed |= bbox_iou(boxes[i:i + 1], boxes).squeeze(-1) > 0.3
    keep_all.append(keep)
print("nms keep", [len(k) for k in keep_all], "top scores", r(score[0].sort(descending=True).values, 3))

targets = torch.tensor([[0, 1, 0.30, 0.40, 0.20, 0.30], [1, 0, 0.60, 0.50, 0.50, 0.40], [1, 1, 0.2, 0.7, 0.1, 0.1]])


def compute_loss(p, targets, det, anchor_t=4.0):
    BCE = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0]))
    lcls, lbox, lobj = torch.zeros(1), torch.zeros(1), torch.zeros(1)
    for i, pi in enumerate(p):
        _, _, ny, nx, _ = pi.shape
        anchors = det.anchors[i] * det.stride[i] / (32 / nx) / det.stride[i]
        gain = torch.tensor([1, 1, nx, ny, nx, ny], dtype=torch.float32)
        t = targets * gain
        t = t.repeat(det.na, 1, 1)
        ai = torch.arange(det.na).float().view(det.na, 1).repeat(1, targets.shape[0])
        t = torch.cat((t, ai[..., None]), 2)
        rr = t[..., 4:6] / anchors[:, None]
        j = torch.max(rr, 1 / rr).max(2)[0] < anchor_t
        t = t[j]
        b, c = t[:, :2].long().T
        gxy, gwh = t[:, 2:4], t[:, 4:6]
        gij = gxy.long()
        gi, gj = gij.T
        a = t[:, 6].long()
        tobj = torch.zeros(pi.shape[:4], dtype=pi.dtype)
        if b.shape[0]:
            ps = pi[b, a, gj.clamp_(0, ny - 1), gi.clamp_(0, nx - 1)]
            pxy = ps[:, :2].sigmoid() * 2 - 0.5
            pwh = (ps[:, 2:4].sigmoid() * 2) ** 2 * anchors[a]
            iou = bbox_iou(torch.cat((pxy, pwh), 1), torch.cat((gxy - gij, gwh), 1), CIoU=True).squeeze()
            lbox += (1.0 - iou).mean()
            tobj[b, a, gj, gi] = iou.detach().clamp(0).type(tobj.dtype)
            tc = torch.full_like(ps[:, 5:], 0.0)
            tc[range(b.shape[0]), c] = 1.0
            lcls += BCE(ps[:, 5:], tc)
        lobj += BCE(pi[..., 4], tobj) * [4.0, 1.0][i]
    return (lbox * 0.05 + lobj + lcls * 0.5) * p[0].shape[0], torch.cat((lbox, lobj, lcls)).detach()


model.train()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
for step in range(3):
    opt.zero_grad()
    loss, items = compute_loss(model(imgs), targets, model.detect)
    loss.backward()
    if step == 0:
        print("grad detect", round(model.detect.m[0].weight.grad.norm().item(), 4),
              "backbone", round(model.b1[0].conv.weight.grad.norm().item(), 4))
    opt.step()
    print("step", step, round(loss.item(), 4), r(items, 3))
print("bn tracked", model.b1[0].bn.num_batches_tracked.item(), r(model.b1[0].bn.running_var, 3))
