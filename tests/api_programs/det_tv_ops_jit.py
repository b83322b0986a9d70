"""torchvision.ops as its source is written, with the TorchScript scaffolding kept: `@torch.jit.script_if_tracing`
on batched_nms with its coordinate trick, `torch.jit.is_scripting()`/`is_tracing()` guards, `torch._assert`,
`torch.jit.annotate(list[int], [])`, `torch.jit._overload`, `torch.jit.Attribute` and the fuser context,
sigmoid_focal_loss with reductions and its ValueError, FrozenBatchNorm2d loading a BatchNorm2d state dict (dropping
num_batches_tracked), a scripted module, and a scripted box function with its schema."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

torch.manual_seed(7)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def _upcast(t: Tensor) -> Tensor:
    if t.is_floating_point():
        return t if t.dtype in (torch.float32, torch.float64) else t.float()
    return t if t.dtype in (torch.int32, torch.int64) else t.int()


@torch.jit.script
def box_area(boxes: Tensor) -> Tensor:
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        print("  (eager box_iou)", tuple(boxes1.shape), tuple(boxes2.shape))
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = _upcast(rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter / (area1[:, None] + area2 - inter)


def nms(boxes: Tensor, scores: Tensor, iou_threshold: float) -> Tensor:
    torch._assert(boxes.dim() == 2 and boxes.size(-1) == 4, "boxes must be (N, 4)")
    order = scores.argsort(descending=True)
    iou = box_iou(boxes[order], boxes[order])
    removed = torch.zeros(len(order), dtype=torch.bool)
    keep = torch.jit.annotate(list[int], [])
    for i in range(len(order)):
        if not removed[i]:
            keep.append(int(order[i]))
            removed |= iou[i] > iou_threshold
    return torch.tensor(keep, dtype=torch.int64)


@torch.jit.script_if_tracing
def _batched_nms_coordinate_trick(boxes: Tensor, scores: Tensor, idxs: Tensor, iou_threshold: float) -> Tensor:
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    return nms(boxes_for_nms, scores, iou_threshold)


print("wrapped name", _batched_nms_coordinate_trick.__name__, callable(_batched_nms_coordinate_trick))
print("script fn", type(box_area).__name__, box_area.name if hasattr(box_area, "name") else "")
xy = torch.rand(8, 2) * 20
boxes = torch.cat([xy, xy + torch.rand(8, 2) * 10 + 4], 1)
scores = torch.rand(8)
idxs = torch.tensor([0, 1, 0, 1, 2, 0, 2, 1])
print("areas", box_area(boxes))
keep = _batched_nms_coordinate_trick(boxes, scores, idxs, 0.3)
print("batched keep", keep.tolist(), "labels", idxs[keep].tolist())
print("empty", _batched_nms_coordinate_trick(boxes[:0], scores[:0], idxs[:0], 0.3))
try:
    nms(boxes[:, :3], scores, 0.5)
except AssertionError as e:
    print("AssertionError:", e)
print("int boxes area", box_area(boxes.long()).dtype, "upcast", _upcast(boxes.half()).dtype,
      _upcast(torch.zeros(2, dtype=torch.uint8)).dtype)


@torch.jit._overload
def _pair_or_none(x: int) -> tuple[int, int]:  # noqa: F811
    pass


@torch.jit._overload
def _pair_or_none(x: None) -> None:  # noqa: F811
    pass


def _pair_or_none(x: int | None):  # noqa: F811
    return None if x is None else (x, x)


print("overloaded", _pair_or_none(3), _pair_or_none(None))


def sigmoid_focal_loss(inputs: Tensor, targets: Tensor, alpha: float = 0.25, gamma: float = 2,
                       reduction: str = "none") -> Tensor:
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "none":
        pass
    elif reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    else:
        raise ValueError(
            f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', 'mean', 'sum'")
    return loss


logits = torch.randn(6, 3, requires_grad=True)
targets = F.one_hot(torch.randint(0, 3, (6,)), 3).float()
print("focal none\n", sigmoid_focal_loss(logits, targets))
for red in ("mean", "sum"):
    print("focal", red, round(sigmoid_focal_loss(logits, targets, reduction=red).item(), 4))
print("focal alpha=-1 gamma=0 == bce", torch.allclose(sigmoid_focal_loss(logits, targets, alpha=-1, gamma=0),
                                                      F.binary_cross_entropy_with_logits(logits, targets,
                                                                                         reduction="none")))
try:
    sigmoid_focal_loss(logits, targets, reduction="batchmean")
except ValueError as e:
    print("ValueError:", e)
sigmoid_focal_loss(logits, targets, reduction="sum").backward()
print("focal grad", logits.grad)


class FrozenBatchNorm2d(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", torch.ones(num_features))
        self.register_buffer("bias", torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        num_batches_tracked_key = prefix + "num_batches_tracked"
        if num_batches_tracked_key in state_dict:
            del state_dict[num_batches_tracked_key]
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, x: Tensor) -> Tensor:
        w = self.weight.reshape(1, -1, 1, 1)
        b = self.bias.reshape(1, -1, 1, 1)
        rv = self.running_var.reshape(1, -1, 1, 1)
        rm = self.running_mean.reshape(1, -1, 1, 1)
        scale = w * (rv + self.eps).rsqrt()
        bias = b - rm * scale
        return x * scale + bias

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"


bn = nn.BatchNorm2d(4)
bn.train()
for _ in range(3):
    bn(torch.randn(2, 4, 5, 5) * 2 + 1)
print("bn state keys", list(bn.state_dict()), int(bn.num_batches_tracked))
frozen = FrozenBatchNorm2d(4)
print("load", frozen.load_state_dict(bn.state_dict()))
bn.eval()
x = torch.randn(2, 4, 3, 3)
print("frozen == eval bn", torch.allclose(frozen(x), bn(x), atol=1e-6))
body = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1, bias=False), frozen, nn.ReLU(inplace=True))
print(body)
scripted = torch.jit.script(frozen)
print("scripted", type(scripted).__name__, torch.equal(scripted(x), frozen(x)))
print("buffers", [n for n, _ in frozen.named_buffers()], "params", len(list(frozen.parameters())))


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.names = torch.jit.Attribute(["bg", "car", "person"], list[str])
        self.cls = nn.Conv2d(4, 3, 1)

    def forward(self, x):
        return self.cls(x).flatten(2).amax(-1)


head = Head()
print("attribute", head.names, head.names.value)
with torch.jit.fuser("fuser1"), torch.no_grad():
    out = head(torch.randn(2, 4, 3, 3))
print("head out", out, out.argmax(1).tolist())
print("labels", [head.names.value[i] for i in out.argmax(1).tolist()])
print("onednn fusion", torch.jit.onednn_fusion_enabled())
