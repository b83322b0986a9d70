"""CLIP's symmetric InfoNCE: normalized features, logit_scale = log(1/0.07) exp'd and clamped at 100, cross-entropy
over both axes of the similarity matrix, label smoothing, reductions, logits_per_text as the transpose, and the
gradient that reaches logit_scale; checked against a log_softmax written by hand."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class ClipLoss(nn.Module):
    def __init__(self, label_smoothing=0.0):
        super().__init__()
        self.label_smoothing = label_smoothing

    def forward(self, image_features, text_features, logit_scale):
        logits_per_image = logit_scale * image_features @ text_features.T
        logits_per_text = logit_scale * text_features @ image_features.T
        labels = torch.arange(logits_per_image.shape[0], device=image_features.device, dtype=torch.long)
        total = (
            F.cross_entropy(logits_per_image, labels, label_smoothing=self.label_smoothing)
            + F.cross_entropy(logits_per_text, labels, label_smoothing=self.label_smoothing)
        ) / 2
        return total


img = torch.randn(6, 8, requires_grad=True)
txt = (img.detach() + 0.7 * torch.randn(6, 8)).requires_grad_()
logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))
print("logit_scale", logit_scale, logit_scale.shape, logit_scale.dim())
print("init", round(logit_scale.item(), 4), round(logit_scale.exp().item(), 4))

i_n = F.normalize(img, dim=-1)
t_n = F.normalize(txt, p=2.0, dim=1, eps=1e-12)
print("norms", i_n.norm(dim=-1).round(decimals=4).tolist(), i_n.grad_fn.__class__.__name__)
scale = logit_scale.exp().clamp(max=100)
print("scale", round(scale.item(), 4), scale.grad_fn.__class__.__name__)

for ls in [0.0, 0.1, 0.5]:
    loss = ClipLoss(ls)(i_n, t_n, scale)
    print("label_smoothing", ls, round(loss.item(), 4), loss.grad_fn.__class__.__name__)

logits = scale * i_n @ t_n.t()
print("logits_per_text == T", torch.allclose(scale * t_n @ i_n.t(), logits.t(), atol=1e-5))
labels = torch.arange(6)
by_hand = -(logits.log_softmax(dim=-1).diagonal().mean() + logits.log_softmax(dim=0).diagonal().mean()) / 2
print("by hand", round(by_hand.item(), 4))
print("none", F.cross_entropy(logits, labels, reduction="none").round(decimals=4).tolist())
print("sum", round(F.cross_entropy(logits, labels, reduction="sum").item(), 4))
print("nll", round(F.nll_loss(F.log_softmax(logits, 1), labels).item(), 4))
print("ls=0.2 none", F.cross_entropy(logits, labels, reduction="none", label_smoothing=0.2).round(decimals=4).tolist())
soft = torch.eye(6) * 0.9 + 0.1 / 6
print(
    "prob targets",
    round(F.cross_entropy(logits, soft).item(), 4),
    round(F.cross_entropy(logits, torch.eye(6)).item(), 4),
)
print("weight", round(F.cross_entropy(logits, labels, weight=torch.linspace(0.5, 1.5, 6)).item(), 4))
print("ignore_index", round(F.cross_entropy(logits, torch.tensor([0, 1, -100, 3, 4, -100])).item(), 4))

loss = ClipLoss(0.1)(i_n, t_n, scale)
loss.backward()
print("grad logit_scale", round(logit_scale.grad.item(), 4))
print("grad img", img.grad.sum(dim=1).round(decimals=4).tolist())
print("grad txt", round(txt.grad.norm().item(), 4))

# accuracy of the matching in both directions
with torch.no_grad():
    acc_i2t = (logits.argmax(dim=1) == labels).float().mean()
    acc_t2i = (logits.argmax(dim=0) == labels).float().mean()
    print("acc", acc_i2t.item(), acc_t2i.item(), logits.argmax(dim=1).tolist())
    probs = logits.softmax(dim=-1)
    print("probs diag", probs.diag().round(decimals=4).tolist())

# clamp at the upper bound: exp(5) > 100 -> gradient stops
big = nn.Parameter(torch.tensor(5.0))
s = big.exp().clamp(max=100)
s.backward()
print("clamped", s.item(), big.grad.item())
big.grad = None
torch.clamp(big.exp(), 0, 100).backward()
print("clamped2", big.grad.item())
with torch.no_grad():
    logit_scale.clamp_(0, math.log(100))
print("after clamp_", round(logit_scale.item(), 4), logit_scale.requires_grad)

try:
    F.cross_entropy(logits, labels[:5])
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(logits, labels.float())
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(logits, labels, label_smoothing=1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(logits, torch.eye(5))
except Exception as e:
    print(type(e).__name__, e)
