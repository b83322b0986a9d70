"""A CRF tagging layer packaged as an nn.Module, as pytorch-crf-style libraries write it: parameters with
uniform init, a registered constraint buffer, extra_repr, reduction options, a training loop with Adam and
clip_grad_norm_, a structured-hinge (loss-augmented Viterbi) variant with SGD, state_dict round trips, and errors."""

import io
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(18)


class CRF(nn.Module):
    def __init__(self, num_tags, batch_first=True):
        super().__init__()
        self.num_tags, self.batch_first = num_tags, batch_first
        self.start = nn.Parameter(torch.empty(num_tags))
        self.end = nn.Parameter(torch.empty(num_tags))
        self.trans = nn.Parameter(torch.empty(num_tags, num_tags))
        self.register_buffer("allowed", torch.ones(num_tags, num_tags, dtype=torch.bool))
        for p in (self.start, self.end, self.trans):
            nn.init.uniform_(p, -0.1, 0.1)

    def extra_repr(self):
        return f"num_tags={self.num_tags}, batch_first={self.batch_first}"

    def _trans(self):
        return self.trans.masked_fill(~self.allowed, -1e4)

    def forward(self, em, tags, mask, reduction="mean"):
        if reduction not in ("none", "sum", "mean", "token_mean"):
            raise ValueError(f"invalid reduction: {reduction}")
        tr = self._trans()
        score = self.start[tags[:, 0]] + em[:, 0].gather(1, tags[:, :1]).squeeze(1)
        alpha = self.start + em[:, 0]
        for t in range(1, em.size(1)):
            m = mask[:, t]
            score = score + (tr[tags[:, t - 1], tags[:, t]] + em[:, t].gather(1, tags[:, t:t + 1]).squeeze(1)) * m
            nxt = torch.logsumexp(alpha.unsqueeze(2) + tr + em[:, t].unsqueeze(1), 1)
            alpha = torch.where(m.bool().unsqueeze(1), nxt, alpha)
        last = tags.gather(1, mask.long().sum(1, keepdim=True) - 1).squeeze(1)
        llh = score + self.end[last] - torch.logsumexp(alpha + self.end, 1)
        if reduction == "none":
            return llh
        if reduction == "sum":
            return llh.sum()
        return llh.mean() if reduction == "mean" else llh.sum() / mask.float().sum()

    @torch.no_grad()
    def decode(self, em, mask, cost=None):
        tr = self._trans()
        score = self.start + em[:, 0] + (0 if cost is None else cost[:, 0])
        hist = []
        for t in range(1, em.size(1)):
            best, idx = (score.unsqueeze(2) + tr).max(1)
            nxt = best + em[:, t] + (0 if cost is None else cost[:, t])
            score = torch.where(mask[:, t].bool().unsqueeze(1), nxt, score)
            hist.append(idx)
        score = score + self.end
        out = []
        for b in range(em.size(0)):
            tag = score[b].argmax().item()
            seq = [tag]
            for idx in reversed(hist[: int(mask[b].sum()) - 1]):
                tag = idx[b, tag].item()
                seq.append(tag)
            out.append(seq[::-1])
        return out


K, B, T, H = 4, 6, 5, 8
crf = CRF(K)
crf.allowed[0, 3] = False
enc = nn.Linear(H, K)
print(crf)
print([n for n, _ in crf.named_parameters()], [n for n, _ in crf.named_buffers()])
x = torch.randn(B, T, H)
lengths = torch.tensor([5, 5, 4, 3, 2, 5])
mask = (torch.arange(T)[None] < lengths[:, None]).to(torch.uint8)
gold = torch.randint(0, K, (B, T)) * mask
for t in range(1, T):  # gold paths obey the constraint
    gold[:, t] = torch.where((gold[:, t - 1] == 0) & (gold[:, t] == 3), 2, gold[:, t])
print("gold", gold.tolist())
for red in ["none", "sum", "mean", "token_mean"]:
    v = crf(enc(x), gold, mask, reduction=red)
    print(red, v.round(decimals=4).tolist())

opt = torch.optim.Adam(list(crf.parameters()) + list(enc.parameters()), lr=0.05)
for step in range(30):
    opt.zero_grad()
    loss = -crf(enc(x), gold, mask)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(crf.parameters(), max_norm=1.0)
    opt.step()
    if step % 10 == 0 or step == 29:
        print("step", step, round(loss.item(), 4), round(float(norm), 4))
pred = crf.decode(enc(x), mask)
acc = sum(int(p == g) for b in range(B) for p, g in zip(pred[b], gold[b, : lengths[b]].tolist())) / lengths.sum().item()
print("train acc", round(acc, 4), pred[4])

sgd = torch.optim.SGD(crf.parameters(), lr=0.1, momentum=0.9)
em = enc(x).detach()
for step in range(5):
    cost = 3.0 * (1.0 - F.one_hot(gold, K).float())
    aug = crf.decode(em, mask, cost)
    aug_t = torch.tensor([p + [0] * (T - len(p)) for p in aug])
    hamming = 3.0 * ((aug_t != gold) & mask.bool()).sum()
    hinge = (crf(em, aug_t, mask, "none") - crf(em, gold, mask, "none")).sum().add(hamming).clamp(min=0)
    sgd.zero_grad()
    hinge.backward()
    sgd.step()
    print("hinge", step, round(hinge.item(), 4))

buf = io.BytesIO()
torch.save(crf.state_dict(), buf)
buf.seek(0)
crf2 = CRF(K)
print(crf2.load_state_dict(torch.load(buf)), bool(crf2.allowed[0, 3]), torch.equal(crf2.trans, crf.trans))
for bad in [lambda: crf(em, gold, mask, reduction="avg"), lambda: crf2.load_state_dict({"start": torch.zeros(3)}),
            lambda: CRF(3).load_state_dict(crf.state_dict())]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
