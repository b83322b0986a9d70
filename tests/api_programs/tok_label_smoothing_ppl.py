"""Token-level losses as seq2seq and LM code computes them: cross_entropy over (B, C, T) and flattened logits
with ignore_index for padding, label_smoothing with and without class weights, soft (probability) targets,
the reductions, a hand-written label-smoothed NLL against F.cross_entropy, per-token NLL with masked_select,
perplexity and bits per token, and the errors for bad targets."""

import math

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

PAD, V, B, T = 0, 7, 3, 6
logits = torch.randn(B, T, V, requires_grad=True)
targets = torch.tensor([[3, 4, 2, 6, 0, 0], [1, 5, 5, 2, 3, 6], [4, 2, 0, 0, 0, 0]])
mask = targets.ne(PAD)
ntok = int(mask.sum())
print("tokens", ntok, "of", targets.numel())

flat = F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=PAD)
chan = F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=PAD)
print("flat", round(flat.item(), 4), "channel-first", round(chan.item(), 4))
none = F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=PAD, reduction="none")
print("per-token")
print(none)
print("sum / ntok", round((none.sum() / ntok).item(), 4))
summed = F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=PAD, reduction="sum")
print("sum", round(summed.item(), 4))

# default ignore_index is -100: remap padding the way HF collators do
labels = targets.masked_fill(~mask, -100)
print(labels)
print("-100 labels", round(F.cross_entropy(logits.view(-1, V), labels.view(-1)).item(), 4))

# per-token NLL from log_softmax + gather, padding dropped with masked_select
logp = logits.log_softmax(-1)
tok_nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
kept = tok_nll.masked_select(mask)
print("masked_select", tuple(kept.shape), round(kept.mean().item(), 4))
seq_nll = (tok_nll * mask).sum(1) / mask.sum(1)
print("per-sequence nll", [round(v, 4) for v in seq_nll.tolist()])
ppl = math.exp(kept.mean().item())
print("perplexity", round(ppl, 4), "bits/token", round(kept.mean().item() / math.log(2), 4))
print("seq ppl", [round(v, 4) for v in seq_nll.exp().tolist()])

# label smoothing: the built-in against the classic formula
for eps in (0.0, 0.1, 0.3):
    ls = F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=PAD, label_smoothing=eps)
    lp = logp.view(-1, V)[mask.view(-1)]
    t = targets.view(-1)[mask.view(-1)]
    manual = ((1 - eps) * -lp.gather(1, t[:, None]).squeeze(1) - eps * lp.mean(1)).mean()
    print("eps", eps, round(ls.item(), 4), round(manual.item(), 4))

# fairseq's variant spreads eps over V-1 wrong classes: different number
eps = 0.1
lp = logp.view(-1, V)[mask.view(-1)]
t = targets.view(-1)[mask.view(-1)]
smooth = torch.full_like(lp, eps / (V - 1)).scatter(1, t[:, None], 1 - eps)
print("fairseq-style", round(-(smooth * lp).sum(1).mean().item(), 4))

# class weights with smoothing and ignore_index
w = torch.linspace(0.5, 2.0, V)
lw = F.cross_entropy(logits.view(-1, V), targets.view(-1), weight=w, ignore_index=PAD)
lws = F.cross_entropy(logits.view(-1, V), targets.view(-1), weight=w, ignore_index=PAD, label_smoothing=0.2)
print("weighted", round(lw.item(), 4), "weighted+smoothed", round(lws.item(), 4))
wn = F.cross_entropy(logits.view(-1, V), targets.view(-1), weight=w, ignore_index=PAD, reduction="none")
print("weighted mean = sum / sum(w[t])", round((wn.sum() / w[t].sum()).item(), 4))
crit = nn.CrossEntropyLoss(weight=w, ignore_index=PAD, label_smoothing=0.1, reduction="sum")
print(crit, round(crit(logits.view(-1, V), targets.view(-1)).item(), 4))

# soft targets (probabilities), e.g. distillation
teacher = torch.randn(B * T, V).div(0.5).softmax(-1)
soft = F.cross_entropy(logits.view(-1, V), teacher)
soft_ls = F.cross_entropy(logits.view(-1, V), teacher, label_smoothing=0.1)
print("soft", round(soft.item(), 4), "soft+ls", round(soft_ls.item(), 4))
kl = F.kl_div(logp.view(-1, V), teacher, reduction="batchmean")
print("kl batchmean", round(kl.item(), 4))

# NLLLoss on log-probabilities, and the gradient leaves padding alone
nll = nn.NLLLoss(ignore_index=PAD)
loss = nll(logp.view(-1, V), targets.view(-1))
loss.backward()
print("nll", round(loss.item(), 4))
print("grad at padded steps zero", bool(logits.grad[~mask].eq(0).all()))
print("grad rows sum to zero", round(logits.grad[mask].sum(-1).abs().max().item(), 4))
print(logits.grad[2, :3])

# everything ignored: mean is nan, sum is 0
allpad = torch.zeros(4, dtype=torch.long)
print("all ignored", F.cross_entropy(torch.randn(4, V), allpad, ignore_index=0).item(),
      F.cross_entropy(torch.randn(4, V), allpad, ignore_index=0, reduction="sum").item())

# token accuracy on non-pad positions
pred = logits.argmax(-1)
acc = (pred.eq(targets) & mask).sum() / mask.sum()
print("accuracy", round(acc.item(), 4), pred.tolist())

for bad_t in (torch.tensor([1, 9]), torch.tensor([1.0, 2.0]), torch.tensor([[1, 2]])):
    try:
        F.cross_entropy(torch.randn(2, V), bad_t)
    except Exception as err:
        print(type(err).__name__, str(err)[:100])
try:
    F.cross_entropy(torch.randn(2, V), torch.tensor([1, 2]), label_smoothing=1.5)
except Exception as err:
    print(type(err).__name__, str(err)[:100])
try:
    F.cross_entropy(torch.randn(2, V), torch.tensor([1, 2]), weight=torch.ones(3))
except Exception as err:
    print(type(err).__name__, str(err)[:100])

# half-precision logits, as a model cast with .bfloat16()/.half() hands them to the loss
for dt in (torch.bfloat16, torch.float16):
    lo = logits.detach().view(-1, V).to(dt)
    ce16 = F.cross_entropy(lo, targets.view(-1), ignore_index=PAD, reduction="none")
    print(dt, ce16.dtype, ce16[:4].tolist(), "ignored", ce16[4:6].tolist())
