"""CTC as ASR code decodes and trains it: greedy decoding with unique_consecutive and blank removal, prefix beam
search over log-probabilities with logaddexp, F.ctc_loss in every reduction with zero_infinity, concatenated
and padded targets, int32 lengths, gradients, and the errors PyTorch raises for bad lengths."""

import collections
import math
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(2)

T, N, C = 12, 3, 5
logits = torch.randn(T, N, C, requires_grad=True)
log_probs = logits.log_softmax(2)
input_lengths = torch.tensor([12, 10, 7])
targets = torch.tensor([[1, 2, 2, 3], [4, 1, 0, 0], [3, 3, 0, 0]])
target_lengths = torch.tensor([4, 2, 2])

for red in ["none", "mean", "sum"]:
    loss = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=red)
    print(red, loss.round(decimals=4).tolist(), loss.grad_fn.name())

flat = torch.cat([targets[i, : target_lengths[i]] for i in range(N)])
l2 = F.ctc_loss(log_probs, flat, input_lengths.int(), target_lengths.int(), reduction="sum")
print("concat targets", round(l2.item(), 4), flat.tolist())
crit = nn.CTCLoss(blank=0, zero_infinity=True)
print(crit)
impossible = F.ctc_loss(log_probs[:3], targets, torch.tensor([3, 3, 3]), target_lengths, reduction="none")
print("impossible", impossible.round(decimals=4).tolist())
zi = F.ctc_loss(log_probs[:3], targets, torch.tensor([3, 3, 3]), target_lengths, reduction="none", zero_infinity=True)
print("zero_infinity", zi.round(decimals=4).tolist())
loss = crit(log_probs, targets, input_lengths, target_lengths)
loss.backward()
print("grad", logits.grad.sum().abs().item() < 1e-5, logits.grad[:, 0].abs().sum().round(decimals=4).item())
print("grad beyond length", logits.grad[7:, 2].abs().max().item())


def greedy(lp, lengths, blank=0):
    best = lp.argmax(-1).t()
    out = []
    for seq, L in zip(best, lengths):
        u = torch.unique_consecutive(seq[:L])
        out.append(u[u != blank].tolist())
    return out


print("greedy", greedy(log_probs.detach(), input_lengths))
u, inv, cnt = torch.unique_consecutive(torch.tensor([0, 0, 1, 1, 1, 0, 2, 2]), return_inverse=True, return_counts=True)
print("unique_consecutive", u.tolist(), inv.tolist(), cnt.tolist())


def prefix_beam(lp, beam=3, blank=0):
    beams = {(): (0.0, -math.inf)}
    for t in range(lp.size(0)):
        nxt = collections.defaultdict(lambda: (-math.inf, -math.inf))
        for prefix, (pb, pnb) in beams.items():
            for c in range(lp.size(1)):
                p = lp[t, c].item()
                if c == blank:
                    b, nb = nxt[prefix]
                    nxt[prefix] = (
                        float(
                            torch.logaddexp(
                                torch.tensor([b, pb + p, pnb + p]).max(),
                                torch.logsumexp(torch.tensor([pb + p, pnb + p]), 0),
                            ).sub(math.log(2))
                            if b == -math.inf
                            else torch.logsumexp(torch.tensor([b, pb + p, pnb + p]), 0)
                        ),
                        nb,
                    )
                    continue
                new = prefix + (c,)
                b, nb = nxt[new]
                if prefix and prefix[-1] == c:
                    nb = torch.logaddexp(torch.tensor(nb), torch.tensor(pb + p)).item()
                    ob, onb = nxt[prefix]
                    nxt[prefix] = (ob, torch.logaddexp(torch.tensor(onb), torch.tensor(pnb + p)).item())
                else:
                    nb = torch.logsumexp(torch.tensor([nb, pb + p, pnb + p]), 0).item()
                nxt[new] = (b, nb)
        beams = dict(
            sorted(nxt.items(), key=lambda kv: -torch.logaddexp(torch.tensor(kv[1][0]), torch.tensor(kv[1][1])).item())[
                :beam
            ]
        )
    return [
        (list(k), round(torch.logaddexp(torch.tensor(v[0]), torch.tensor(v[1])).item(), 4)) for k, v in beams.items()
    ]


print("prefix beam", prefix_beam(log_probs[:7, 2].detach()))
print("logaddexp inf", torch.logaddexp(torch.tensor([-math.inf, 0.0]), torch.tensor([-math.inf, -math.inf])).tolist())
print("logaddexp2", torch.logaddexp2(torch.tensor([1.0, 3.0]), torch.tensor([1.0, 0.0])).round(decimals=4).tolist())

for bad in [
    lambda: F.ctc_loss(log_probs, targets, torch.tensor([13, 10, 7]), target_lengths),
    lambda: F.ctc_loss(log_probs, targets, input_lengths, torch.tensor([5, 2, 2])),
    lambda: F.ctc_loss(log_probs, targets, input_lengths[:2], target_lengths),
    lambda: F.ctc_loss(log_probs, targets.float(), input_lengths, target_lengths),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
