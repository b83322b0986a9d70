"""nn.CTCLoss the way ASR code calls it: padded and concatenated targets, int32 and int64 lengths as tensors and
tuples, every reduction, zero_infinity for impossible alignments, a non-zero blank, float64 and unbatched inputs,
gradients through log_softmax, greedy decoding with unique_consecutive, and the errors for bad lengths."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
T, N, C = 12, 4, 6

logits = torch.randn(T, N, C, requires_grad=True)
log_probs = logits.log_softmax(dim=2)
targets = torch.randint(1, C, (N, 5), dtype=torch.long)
input_lengths = torch.tensor([12, 10, 9, 12])
target_lengths = torch.tensor([5, 3, 4, 2])
print("targets", targets.tolist())

for reduction in ["mean", "sum", "none"]:
    loss = nn.CTCLoss(reduction=reduction)(log_probs, targets, input_lengths, target_lengths)
    print(reduction, loss.shape, loss.detach().numpy().round(4).tolist())

per = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="none")
mean = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="mean")
print("mean = (per / target_len).mean()", round(mean.item(), 4), round((per / target_lengths).mean().item(), 4))

for dt in (torch.int32, torch.int64):
    li = F.ctc_loss(log_probs, targets.to(dt), input_lengths.to(dt), target_lengths.to(dt), reduction="sum")
    print("lengths", dt, round(li.item(), 4))
lt = F.ctc_loss(log_probs, targets, tuple(input_lengths.tolist()), tuple(target_lengths.tolist()), reduction="sum")
print("tuple lengths", round(lt.item(), 4))

flat = torch.cat([targets[i, : target_lengths[i]] for i in range(N)])
print("concatenated", flat.shape, flat.tolist())
lc = F.ctc_loss(log_probs, flat, input_lengths, target_lengths, reduction="none")
print("concat == padded", torch.allclose(lc, per))

crit = nn.CTCLoss(blank=0, reduction="mean")
loss = crit(log_probs, targets, input_lengths, target_lengths)
loss.backward()
g = logits.grad
print("grad", g.shape, round(g.abs().sum().item(), 4), "per-frame sums", g.sum(2)[0].numpy().round(4).tolist())
print("grad beyond length zero", g[10:, 1].abs().max().item(), g[9:, 2].abs().max().item())
print(crit, crit.blank, crit.zero_infinity, crit.reduction)

# an impossible alignment: 3 repeats need 5 frames, only 4 given
lp = torch.randn(4, 1, 3).log_softmax(2)
bad_t = torch.tensor([[1, 1, 1]])
inf_loss = F.ctc_loss(lp, bad_t, torch.tensor([4]), torch.tensor([3]), reduction="none")
print("impossible", inf_loss)
zi = F.ctc_loss(lp, bad_t, torch.tensor([4]), torch.tensor([3]), reduction="none", zero_infinity=True)
print("zero_infinity", zi)
lpg = lp.clone().requires_grad_(True)
F.ctc_loss(lpg, bad_t, torch.tensor([4]), torch.tensor([3]), zero_infinity=True).backward()
print("zero_infinity grad", lpg.grad.abs().sum().item())
ok = F.ctc_loss(lp, torch.tensor([[1, 2, 1]]), torch.tensor([4]), torch.tensor([3]), reduction="none")
print("feasible 1-2-1", ok.numpy().round(4).tolist())

# the blank as the last class
lp_last = logits.detach().log_softmax(2)
tl = torch.randint(0, C - 1, (N, 5))
lb = F.ctc_loss(lp_last, tl, input_lengths, target_lengths, blank=C - 1, reduction="none")
print("blank=C-1", lb.numpy().round(4).tolist())

# float64 and unbatched
l64 = F.ctc_loss(log_probs.detach().double(), targets, input_lengths, target_lengths, reduction="none")
print("float64", l64.dtype, (l64.float() - per.detach()).abs().max().item() < 1e-4)
lu = F.ctc_loss(log_probs.detach()[:, 0], targets[0], torch.tensor(12), torch.tensor(5))
print("unbatched", lu.shape, round(lu.item(), 4), round(per[0].item() / 5, 4))

# known answer: uniform probabilities over C classes, T frames, empty target -> all blanks
lpu = torch.full((5, 1, 4), 0.25).log()
empty = F.ctc_loss(lpu, torch.zeros(1, 0, dtype=torch.long), torch.tensor([5]), torch.tensor([0]), reduction="sum")
print("empty target", round(empty.item(), 4), "expected", round(5 * torch.tensor(4.0).log().item(), 4))


def greedy(lp, lengths, blank=0):
    best = lp.argmax(dim=-1).t()
    out = []
    for seq, n in zip(best, lengths.tolist()):
        collapsed = torch.unique_consecutive(seq[:n])
        out.append(collapsed[collapsed != blank].tolist())
    return out


print("greedy", greedy(log_probs.detach(), input_lengths))

# training a tiny model until greedy decoding recovers the targets
torch.manual_seed(1)
feats = torch.randn(N, 16, 8)
model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, C))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
lens16 = torch.full((N,), 16, dtype=torch.int32)
for step in range(60):
    out = model(feats).transpose(0, 1).log_softmax(-1)
    loss = F.ctc_loss(out, targets, lens16, target_lengths.int())
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print("step", step, round(loss.item(), 4))
print("final", round(loss.item(), 3))
decoded = greedy(out.detach(), lens16)
print("recovered", [d == targets[i, : target_lengths[i]].tolist() for i, d in enumerate(decoded)])


def show(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:160])


show(lambda: F.ctc_loss(log_probs, targets, torch.tensor([13, 10, 9, 12]), target_lengths))
show(lambda: F.ctc_loss(log_probs, targets, input_lengths, torch.tensor([6, 3, 4, 2])))
show(lambda: F.ctc_loss(log_probs, targets, input_lengths[:3], target_lengths))
show(lambda: F.ctc_loss(log_probs, targets.float(), input_lengths, target_lengths))
show(lambda: F.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="avg"))
show(lambda: F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=C))
