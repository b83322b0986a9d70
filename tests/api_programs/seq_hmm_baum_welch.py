"""A discrete HMM part-of-speech tagger in log space: the forward and backward recursions with logsumexp over
batched, padded sequences, posteriors checked against autograd of log Z, Baum-Welch re-estimation with index_add_
and sparse transition counts, supervised counts as a sparse COO matrix cast to integers, Viterbi, and
Categorical/OneHotCategorical log-probabilities of the emissions."""

import numpy as np
import torch
import torch.nn.functional as F
from torch.distributions import Categorical, OneHotCategorical

rng = np.random.default_rng(61)
K, V = 3, 6


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def norm_log(a, dim=-1):
    return a - torch.logsumexp(a, dim=dim, keepdim=True)


log_pi = norm_log(torch.from_numpy(rng.standard_normal(K)))
log_A = norm_log(torch.from_numpy(rng.standard_normal((K, K))))
log_B = norm_log(torch.from_numpy(rng.standard_normal((K, V))))
obs = torch.tensor([[0, 3, 2, 5, 1, 4], [2, 2, 1, 0, 0, 0], [5, 4, 3, 0, 0, 0]])
lens = torch.tensor([6, 3, 4])
mask = torch.arange(obs.shape[1])[None] < lens[:, None]
print("dtypes", log_pi.dtype, obs.dtype, mask.dtype, "tokens", int(mask.sum()))


def forward(log_pi, log_A, log_B, obs, mask):
    em = log_B[:, obs].permute(1, 2, 0)  # (B, T, K)
    alpha = [log_pi + em[:, 0]]
    for t in range(1, obs.shape[1]):
        nxt = torch.logsumexp(alpha[-1].unsqueeze(2) + log_A, dim=1) + em[:, t]
        alpha.append(torch.where(mask[:, t, None], nxt, alpha[-1]))
    alpha = torch.stack(alpha, 1)
    return alpha, torch.logsumexp(alpha[:, -1], dim=-1), em


def backward(log_A, em, mask):
    B, T, _ = em.shape
    beta = [torch.zeros(B, K, dtype=em.dtype)]
    for t in range(T - 2, -1, -1):
        prev = torch.logsumexp(log_A + (em[:, t + 1] + beta[0]).unsqueeze(1), dim=2)
        beta.insert(0, torch.where(mask[:, t + 1, None], prev, beta[0]))
    return torch.stack(beta, 1)


alpha, logZ, em = forward(log_pi, log_A, log_B, obs, mask)
beta = backward(log_A, em, mask)
post = (alpha + beta - logZ[:, None, None]).exp()
print("logZ", r(logZ), "post sums", r(post.sum(-1)[0]), r(post[1, 2]))
print("beta agrees", r(torch.logsumexp(log_pi + em[:, 0] + beta[:, 0], -1)))

# Posteriors = d logZ / d log-emission scores (autograd).
em_leaf = em.detach().clone().requires_grad_(True)
a = [log_pi + em_leaf[:, 0]]
for t in range(1, obs.shape[1]):
    nxt = torch.logsumexp(a[-1].unsqueeze(2) + log_A, dim=1) + em_leaf[:, t]
    a.append(torch.where(mask[:, t, None], nxt, a[-1]))
torch.logsumexp(a[-1], -1).sum().backward()
print("autograd posteriors", torch.allclose(em_leaf.grad, post * mask[..., None], atol=1e-10))

# Brute force log Z for the short sequence.
paths = torch.cartesian_prod(*[torch.arange(K)] * 3)
s = log_pi[paths[:, 0]] + log_A[paths[:, 0], paths[:, 1]] + log_A[paths[:, 1], paths[:, 2]]
s = s + log_B[paths, obs[1, :3]].sum(1)
print("brute", round(torch.logsumexp(s, 0).item(), 6), round(logZ[1].item(), 6), tuple(paths.shape))

# Baum-Welch: expected counts, re-estimation.
for it in range(4):
    alpha, logZ, em = forward(log_pi, log_A, log_B, obs, mask)
    beta = backward(log_A, em, mask)
    gamma = (alpha + beta - logZ[:, None, None]).exp() * mask[..., None]
    xi = (alpha[:, :-1, :, None] + log_A + em[:, 1:, None, :] + beta[:, 1:, None, :] - logZ[:, None, None, None]).exp()
    xi = xi * mask[:, 1:, None, None]
    emit_counts = torch.zeros(K, V, dtype=torch.float64).index_add_(1, obs.flatten(), gamma.reshape(-1, K).t())
    log_pi = torch.log(gamma[:, 0].sum(0) / gamma[:, 0].sum())
    log_A = torch.log(xi.sum((0, 1)) / xi.sum((0, 1, 3))[:, None])
    log_B = torch.log((emit_counts + 1e-3) / (emit_counts + 1e-3).sum(1, keepdim=True))
    print("em iter", it, "loglik", round(logZ.sum().item(), 4), "A rows", r(log_A.exp().sum(1), 3))
print("pi", r(log_pi.exp(), 3), "B row0", r(log_B[0].exp(), 6))

# Supervised counts as a sparse matrix.
tags = torch.tensor([[0, 1, 2, 0, 1, 2], [1, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0]])
pairs = torch.stack([tags[:, :-1][mask[:, 1:]], tags[:, 1:][mask[:, 1:]]])
counts = torch.sparse_coo_tensor(pairs, torch.ones(pairs.shape[1]), (K, K))
icounts = counts.coalesce().long()
print("sparse counts", icounts.dtype, icounts.values().tolist(), icounts.indices().tolist())
print("dense", icounts.to_dense().tolist(), "smoothed rows", r(F.normalize(counts.to_dense() + 1, p=1, dim=1), 9))

# Viterbi.
alpha_max = log_pi + log_B[:, obs[0, 0]]
back = []
for t in range(1, 6):
    score, idx = (alpha_max.unsqueeze(1) + log_A).max(0)
    alpha_max = score + log_B[:, obs[0, t]]
    back.append(idx)
best = [int(alpha_max.argmax())]
for idx in reversed(back):
    best.append(int(idx[best[-1]]))
print("viterbi", best[::-1], round(alpha_max.max().item(), 4))

cat = Categorical(logits=log_B)
print("categorical", cat.batch_shape, cat.event_shape, r(cat.log_prob(torch.tensor([0, 3, 5]))), r(cat.entropy(), 3))
oh = OneHotCategorical(probs=log_B.exp())
print("onehot", r(oh.log_prob(F.one_hot(torch.tensor([0, 3, 5]), V).double()), 3), oh.event_shape)

for label, fn in [
    ("index_add_ dtype", lambda: torch.zeros(K, V).index_add_(1, obs.flatten(), gamma.reshape(-1, K).t())),
    ("categorical bad value", lambda: cat.log_prob(torch.tensor([0, 3, 6]))),
    ("cartesian_prod 2-D", lambda: torch.cartesian_prod(torch.zeros(2, 2))),
    ("logsumexp empty dim", lambda: torch.logsumexp(torch.zeros(2, 0), dim=1)),
]:
    try:
        out = fn()
        print(label, "ok", r(out))
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:100])
