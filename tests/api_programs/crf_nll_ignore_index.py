"""Token-level losses for taggers and decoders: log_softmax + nll_loss with ignore_index over padded (N, C, T)
layouts, every reduction with class weights (weighted means exclude ignored tokens), cross_entropy with label
smoothing and probability targets, all-ignored batches, gradients, and the shape and target errors."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(6)

N, T, C = 2, 5, 4
PAD = -100
logits = torch.randn(N, T, C, requires_grad=True)
tgt = torch.tensor([[1, 0, 3, PAD, PAD], [2, 2, 1, 0, PAD]])
w = torch.tensor([1.0, 2.0, 0.5, 1.5])
lp = F.log_softmax(logits, dim=-1)
print("lp", lp.grad_fn.name(), lp.exp().sum(-1).round(decimals=4).tolist())
for red in ["none", "mean", "sum"]:
    a = F.nll_loss(lp.transpose(1, 2), tgt, reduction=red)
    b = F.nll_loss(lp.reshape(-1, C), tgt.reshape(-1), weight=w, reduction=red)
    print(red, a.round(decimals=4).tolist(), b.round(decimals=4).tolist(), a.grad_fn.name())
valid = tgt.ne(PAD)
manual = -(lp.gather(-1, tgt.clamp(min=0).unsqueeze(-1)).squeeze(-1) * valid).sum() / valid.sum()
print("manual mean", round(manual.item(), 4))
wm = w[tgt.clamp(min=0)] * valid
manual_w = -(lp.gather(-1, tgt.clamp(min=0).unsqueeze(-1)).squeeze(-1) * wm).sum() / wm.sum()
print("manual weighted", round(manual_w.item(), 4))
print("ignore 2", round(F.cross_entropy(logits.view(-1, C), tgt.view(-1).clamp(min=0), ignore_index=2).item(), 4))
all_ign = F.cross_entropy(logits.view(-1, C), torch.full((N * T,), PAD))
print(
    "all ignored",
    all_ign.item(),
    F.cross_entropy(logits.view(-1, C), torch.full((N * T,), PAD), reduction="sum").item(),
)

for ls in [0.0, 0.1]:
    ce = F.cross_entropy(logits.transpose(1, 2), tgt, label_smoothing=ls)
    cew = F.cross_entropy(logits.transpose(1, 2), tgt, weight=w, label_smoothing=ls, reduction="sum")
    print("ls", ls, round(ce.item(), 4), round(cew.item(), 4))
probs = torch.softmax(torch.randn(N * T, C), -1)
print(
    "soft",
    round(F.cross_entropy(logits.view(-1, C), probs).item(), 4),
    round(F.cross_entropy(logits.view(-1, C), probs, label_smoothing=0.2, weight=w).item(), 4),
)
loss = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.05)(logits.permute(0, 2, 1), tgt)
loss.backward()
print(
    "grad at pad", logits.grad[0, 3:].abs().sum().item(), "grad rowsum", logits.grad.sum(-1).abs().max().item() < 1e-6
)
print(nn.NLLLoss(weight=w, ignore_index=0, reduction="sum"))
print(nn.CrossEntropyLoss(label_smoothing=0.1))
img = torch.randn(1, 3, 2, 2)
seg = torch.tensor([[[0, 2], [PAD, 1]]])
print(
    "2d",
    round(F.cross_entropy(img, seg).item(), 4),
    F.nll_loss(F.log_softmax(img, 1), seg, reduction="none").round(decimals=4).tolist(),
)
print("0-d target", round(F.nll_loss(lp[0, 0], torch.tensor(1)).item(), 4))
print("kl", round(F.kl_div(lp.view(-1, C), probs, reduction="batchmean").item(), 4))

for bad in [
    lambda: F.nll_loss(lp, tgt),
    lambda: F.nll_loss(lp.view(-1, C), tgt.view(-1).clamp(min=0) + 1),
    lambda: F.cross_entropy(logits.view(-1, C), tgt.view(-1).float()),
    lambda: F.nll_loss(lp.view(-1, C), tgt.view(-1), weight=torch.ones(3)),
    lambda: F.cross_entropy(logits.view(-1, C), probs[:, :3]),
    lambda: F.cross_entropy(logits.view(-1, C), tgt.view(-1), reduction="avg"),
    lambda: F.cross_entropy(logits.view(-1, C), probs, ignore_index=1),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
