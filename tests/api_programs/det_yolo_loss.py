"""A YOLOv5-style detection loss as its repository writes it: a Detect head reshaping (B, A*(5+C), H, W) to
(B, A, H, W, 5+C), build_targets with the gain tensor, anchor-ratio filtering (max(r, 1/r) < anchor_t),
neighbour-cell offsets chosen by fmod/logical masks, advanced-index gathers (b, a, gj, gi), CIoU box loss, objectness
BCE against detached clamped IoUs, smoothed class BCE, per-level balance, and a few SGD steps on the head; then
inference decoding with sigmoid grids and a compiled decode function."""

import math

import torch
import torch.nn as nn

torch.manual_seed(9)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)

NC, NA = 3, 3
ANCHORS = torch.tensor([[[1.25, 1.625], [2.0, 3.75], [4.125, 2.875]],
                        [[1.875, 3.8125], [3.875, 2.8125], [3.6875, 7.4375]]])  # in stride units
STRIDES = torch.tensor([8.0, 16.0])


class Detect(nn.Module):
    def __init__(self, ch=(8, 16)):
        super().__init__()
        self.no = NC + 5
        self.m = nn.ModuleList(nn.Conv2d(c, NA * self.no, 1) for c in ch)
        for mi, s in zip(self.m, STRIDES):
            b = mi.bias.view(NA, -1)
            with torch.no_grad():
                b[:, 4] += math.log(8 / (640 / s) ** 2)
                b[:, 5:] += math.log(0.6 / (NC - 0.99))

    def forward(self, xs):
        out = []
        for i, x in enumerate(xs):
            y = self.m[i](x)
            bs, _, ny, nx = y.shape
            out.append(y.view(bs, NA, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous())
        return out


def bbox_ciou(b1, b2, eps=1e-7):
    (x1, y1, w1, h1), (x2, y2, w2, h2) = b1.chunk(4, -1), b2.chunk(4, -1)
    b1_x1, b1_x2, b1_y1, b1_y2 = x1 - w1 / 2, x1 + w1 / 2, y1 - h1 / 2, y1 + h1 / 2
    b2_x1, b2_x2, b2_y1, b2_y2 = x2 - w2 / 2, x2 + w2 / 2, y2 - h2 / 2, y2 + h2 / 2
    inter = (torch.min(b1_x2, b2_x2) - torch.max(b1_x1, b2_x1)).clamp(0) * \
            (torch.min(b1_y2, b2_y2) - torch.max(b1_y1, b2_y1)).clamp(0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / union
    cw = torch.max(b1_x2, b2_x2) - torch.min(b1_x1, b2_x1)
    ch = torch.max(b1_y2, b2_y2) - torch.min(b1_y1, b2_y1)
    c2 = cw ** 2 + ch ** 2 + eps
    rho2 = (x2 - x1) ** 2 + (y2 - y1) ** 2
    v = (4 / math.pi ** 2) * torch.pow(torch.atan(w2 / h2) - torch.atan(w1 / h1), 2)
    with torch.no_grad():
        alpha = v / (v - iou + (1 + eps))
    return (iou - (rho2 / c2 + v * alpha)).squeeze(-1)


def build_targets(p, targets, anchor_t=4.0):
    nt = targets.shape[0]
    tcls, tbox, indices, anch = [], [], [], []
    gain = torch.ones(7)
    ai = torch.arange(NA, dtype=torch.float32).view(NA, 1).repeat(1, nt)
    targets = torch.cat((targets.repeat(NA, 1, 1), ai[..., None]), 2)
    g = 0.5
    off = torch.tensor([[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1]], dtype=torch.float32) * g
    for i in range(len(p)):
        anchors, shape = ANCHORS[i], p[i].shape
        gain[2:6] = torch.tensor(shape)[[3, 2, 3, 2]]
        t = targets * gain
        if nt:
            r = t[..., 4:6] / anchors[:, None]
            j = torch.max(r, 1 / r).max(2)[0] < anchor_t
            t = t[j]
            gxy = t[:, 2:4]
            gxi = gain[[2, 3]] - gxy
            j, k = ((gxy % 1 < g) & (gxy > 1)).T
            lm, m = ((gxi % 1 < g) & (gxi > 1)).T
            j = torch.stack((torch.ones_like(j), j, k, lm, m))
            t = t.repeat((5, 1, 1))[j]
            offsets = (torch.zeros_like(gxy)[None] + off[:, None])[j]
        else:
            t = targets[0]
            offsets = 0
        bc, gxy, gwh, a = t.chunk(4, 1)
        a, (b, c) = a.long().view(-1), bc.long().T
        gij = (gxy - offsets).long()
        gij = gij.clamp_(0, shape[2] - 1)
        gi, gj = gij.T
        indices.append((b, a, gj, gi))
        tbox.append(torch.cat((gxy - gij, gwh), 1))
        anch.append(anchors[a])
        tcls.append(c)
    return tcls, tbox, indices, anch


def compute_loss(p, targets, balance=(4.0, 1.0)):
    bce = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0]))
    cp, cn = 1.0 - 0.5 * 0.1, 0.5 * 0.1  # smooth_BCE(eps=0.1)
    lcls, lbox, lobj = torch.zeros(1), torch.zeros(1), torch.zeros(1)
    tcls, tbox, indices, anchors = build_targets(p, targets)
    for i, pi in enumerate(p):
        b, a, gj, gi = indices[i]
        tobj = torch.zeros(pi.shape[:4], dtype=pi.dtype)
        n = b.shape[0]
        if n:
            pxy, pwh, _, pcls = pi[b, a, gj, gi].split((2, 2, 1, NC), 1)
            pxy = pxy.sigmoid() * 2 - 0.5
            pwh = (pwh.sigmoid() * 2) ** 2 * anchors[i]
            pbox = torch.cat((pxy, pwh), 1)
            iou = bbox_ciou(pbox, tbox[i])
            lbox += (1.0 - iou).mean()
            iou = iou.detach().clamp(0).type(tobj.dtype)
            tobj[b, a, gj, gi] = iou
            t = torch.full_like(pcls, cn)
            t[range(n), tcls[i]] = cp
            lcls += bce(pcls, t)
        lobj += bce(pi[..., 4], tobj) * balance[i]
    bs = p[0].shape[0]
    return (lbox * 0.05 + lobj * 1.0 + lcls * 0.5) * bs, torch.cat((lbox, lobj, lcls)).detach()


# targets: (image, class, x, y, w, h) normalised
targets = torch.tensor([[0, 1, 0.30, 0.40, 0.20, 0.30], [0, 0, 0.70, 0.62, 0.35, 0.25],
                        [1, 2, 0.52, 0.48, 0.50, 0.60], [1, 1, 0.14, 0.83, 0.10, 0.12]])
feats = [torch.randn(2, 8, 8, 8), torch.randn(2, 16, 4, 4)]
head = Detect()
p = head(feats)
print("head shapes", [tuple(x.shape) for x in p])
tcls, tbox, indices, anch = build_targets(p, targets)
for i in range(2):
    b, a, gj, gi = indices[i]
    print(f"level {i}: n {len(b)} b {b.tolist()} a {a.tolist()}")
    print(f"  gj {gj.tolist()} gi {gi.tolist()} cls {tcls[i].tolist()}")
    print("  tbox[:3]", tbox[i][:3], "anchors[:2]", anch[i][:2])
opt = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9, nesterov=True)
for step in range(4):
    loss, items = compute_loss(head(feats), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} box/obj/cls {[round(v, 4) for v in items.tolist()]}")


def make_grid(nx, ny, i):
    yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
    grid = torch.stack((xv, yv), 2).expand(1, NA, ny, nx, 2).float() - 0.5
    anchor_grid = (ANCHORS[i] * STRIDES[i]).view(1, NA, 1, 1, 2).expand(1, NA, ny, nx, 2)
    return grid, anchor_grid


def decode(xs):
    z = []
    for i, x in enumerate(xs):
        bs, _, ny, nx, _ = x.shape
        grid, anchor_grid = make_grid(nx, ny, i)
        xy, wh, conf = x.sigmoid().split((2, 2, NC + 1), 4)
        xy = (xy * 2 + grid) * STRIDES[i]
        wh = (wh * 2) ** 2 * anchor_grid
        z.append(torch.cat((xy, wh, conf), 4).view(bs, NA * nx * ny, 5 + NC))
    return torch.cat(z, 1)


with torch.no_grad():
    raw = head(feats)
    dets = decode(raw)
    compiled = torch.compile(decode)
    dets_c = compiled(raw)
print("decoded", tuple(dets.shape), "compiled equal", torch.allclose(dets, dets_c))
conf = dets[..., 4:5] * dets[..., 5:]
best_conf, best_cls = conf.max(-1)
top = best_conf[0].topk(5)
print("top conf", top.values, "cls", best_cls[0][top.indices].tolist())
print("top boxes xywh\n", dets[0, top.indices, :4])
