"""A reward model as RLHF pipelines train it: a transformer backbone with a scalar value head read at each
sequence's last non-pad token (right padding found by argmax of a flipped mask, left padding by the last column),
the Bradley-Terry loss with a margin and the center-rewards regulariser, pairwise accuracy, a multi-response
ranking loss over all pairs with torch.combinations and triu_indices, reward normalisation by running
moments, and the errors of indexing the wrong dims."""

import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, PAD = 13, 16, 0


class RewardModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=PAD)
        self.enc = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(D, 4, 32, dropout=0.0, activation="gelu", batch_first=True),
            1,
            enable_nested_tensor=False,
        )
        self.score = nn.Linear(D, 1, bias=False)

    def forward(self, ids, attention_mask):
        h = self.enc(self.emb(ids), src_key_padding_mask=~attention_mask.bool())
        values = self.score(h).squeeze(-1)
        last = attention_mask.shape[1] - 1 - attention_mask.flip(-1).long().argmax(-1)
        return values[torch.arange(ids.shape[0]), last], values


rm = RewardModel()
chosen = torch.tensor([[4, 5, 6, 7, 0], [2, 3, 9, 0, 0], [8, 8, 1, 2, 3]])
rejected = torch.tensor([[4, 5, 11, 0, 0], [2, 3, 10, 12, 1], [8, 8, 0, 0, 0]])
ids = torch.cat([chosen, rejected])
mask = (ids != PAD).long()
rewards, values = rm(ids, mask)
print("rewards:", tuple(rewards.shape), rewards.grad_fn.name(), "values:", tuple(values.shape))
r_c, r_r = rewards.chunk(2)
margin = torch.tensor([0.5, 1.0, 0.0])
loss = -F.logsigmoid(r_c - r_r - margin).mean()
center = 0.01 * torch.mean((r_c + r_r) ** 2)
(loss + center).backward()
print("bt loss:", round(loss.item(), 4), "center:", round(center.item(), 6))
print("accuracy:", (r_c > r_r).float().mean().item())
print("score grad norm:", round(rm.score.weight.grad.norm().item(), 4))
print("pad row grad:", rm.emb.weight.grad[PAD].abs().sum().item())

alt = torch.gather(values, 1, (mask.sum(1) - 1).unsqueeze(1)).squeeze(1)
print("gather == index:", torch.allclose(alt, rewards))
left = torch.tensor([[0, 4, 5, 6], [0, 0, 2, 3]])
print("left-padded last:", (left.ne(PAD).cumsum(1).argmax(1)).tolist(), "== last column:", left.shape[1] - 1)

opt = torch.optim.Adam(rm.parameters(), lr=3e-3)
for step in range(5):
    r, _ = rm(ids, mask)
    c, j = r.chunk(2)
    loss = F.softplus(j - c).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(
        f"step {step}: loss {loss.item():.4f} acc {(c > j).float().mean().item():.4f} gap {(c - j).mean().item():.4f}"
    )

K = 4
scores = torch.tensor([[0.3, -0.2, 1.1, 0.0], [2.0, 1.5, -1.0, 0.4]], requires_grad=True)
ranks = torch.tensor([[1, 3, 0, 2], [0, 1, 3, 2]])  # ranks[i] = order from best to worst
pairs = torch.combinations(torch.arange(K), r=2)
print("pairs:", pairs.tolist() == [list(p) for p in itertools.combinations(range(K), 2)], tuple(pairs.shape))
ordered = torch.gather(scores, 1, ranks)
iu = torch.triu_indices(K, K, offset=1)
diff = ordered[:, iu[0]] - ordered[:, iu[1]]
rank_loss = -F.logsigmoid(diff).mean()
rank_loss.backward()
print("rank loss:", round(rank_loss.item(), 4), "grad:", scores.grad.round(decimals=4).tolist())
pl = torch.logcumsumexp(ordered.detach().flip(-1), -1).flip(-1)
print("plackett-luce nll:", (pl - ordered.detach()).sum(-1).round(decimals=4).tolist())


class RunningMoments:
    def __init__(self):
        self.mean, self.var, self.count = 0.0, 1.0, 1e-24

    def update(self, xs):
        xs_count = xs.numel()
        xs_var, xs_mean = torch.var_mean(xs, unbiased=False)
        delta = xs_mean - self.mean
        tot = self.count + xs_count
        m_a, m_b = self.var * self.count, xs_var * xs_count
        self.var = ((m_a + m_b + delta**2 * self.count * xs_count / tot) / tot).item()
        self.mean = (self.mean + delta * xs_count / tot).item()
        self.count = tot
        return xs_mean.item(), (xs_var * xs_count / (xs_count - 1)).sqrt().item()


rmom = RunningMoments()
allr = []
for i in range(3):
    batch = torch.randn(8) * (i + 1) + i
    allr.append(batch)
    m, s = rmom.update(batch)
    print(f"batch {i}: mean {m:.4f} std {s:.4f} running {rmom.mean:.4f} {rmom.var**0.5:.4f}")
full = torch.cat(allr)
print("matches full:", round(full.mean().item(), 4), round(full.std(unbiased=False).item(), 4))
print("normalised:", ((full[:4] - rmom.mean) / (rmom.var**0.5)).round(decimals=4).tolist())

for bad in [
    lambda: values[torch.arange(3), mask.sum(1) - 1],
    lambda: values[:, 7],
    lambda: torch.combinations(torch.ones(2, 2)),
    lambda: torch.triu_indices(3, 3, dtype=torch.float32),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
