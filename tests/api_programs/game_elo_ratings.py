"""Rating players from game results: sequential Elo updates with a K-factor, Bradley-Terry maximum likelihood with
LBFGS on logsigmoid, draws through Davidson's model, win matrices from scatter/index_put_ accumulation, expected
scores by broadcasting, and a Glicko-style rating deviation; the errors PyTorch raises for misuse."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
P = 6
games = torch.tensor([
    [0, 1, 1.0], [0, 2, 1.0], [1, 2, 0.5], [3, 0, 1.0], [4, 5, 0.0], [2, 5, 1.0], [3, 4, 1.0], [1, 3, 0.0],
    [0, 4, 1.0], [5, 1, 0.5], [2, 3, 0.0], [4, 1, 1.0], [0, 5, 1.0], [3, 5, 1.0], [2, 4, 0.5], [1, 0, 0.0],
])
a, b, score = games[:, 0].long(), games[:, 1].long(), games[:, 2]
print("games", games.shape, games.dtype, "draws", (score == 0.5).sum().item())


def expected(ra, rb):
    return 1 / (1 + 10 ** ((rb - ra) / 400))


r = torch.full((P,), 1500.0)
for g in range(games.shape[0]):
    ea = expected(r[a[g]], r[b[g]])
    delta = 32 * (score[g] - ea)
    r[a[g]] += delta
    r[b[g]] -= delta
print("elo", r.round(decimals=2).tolist(), "sum", round(r.sum().item(), 2))
print("ranking", r.argsort(descending=True).tolist())
E = expected(r[:, None], r[None, :])
print("expected matrix", E.shape, (E + E.T).round(decimals=4).unique().tolist(), E.diagonal().tolist()[:2])

# win/loss tables by accumulation
wins = torch.zeros(P, P).index_put_((a, b), score, accumulate=True)
wins.index_put_((b, a), 1 - score, accumulate=True)
played = torch.zeros(P, P, dtype=torch.long)
played.index_put_((a, b), torch.ones_like(a), accumulate=True)
played = played + played.T
print("wins", wins.sum(1).tolist(), "played", played.sum(1).tolist())
per_player = torch.zeros(P).scatter_add(0, torch.cat([a, b]), torch.cat([score, 1 - score]))
print("scatter_add agrees", torch.equal(per_player, wins.sum(1)))
print("bincount games", torch.bincount(torch.cat([a, b]), minlength=P).tolist())

# Bradley-Terry by LBFGS: maximise sum log sigmoid(theta_a - theta_b) weighted by the score
theta = torch.zeros(P, requires_grad=True)
opt = torch.optim.LBFGS([theta], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    d = theta[a] - theta[b]
    nll = -(score * F.logsigmoid(d) + (1 - score) * F.logsigmoid(-d)).sum() + 0.05 * theta.pow(2).sum()
    nll.backward()
    return nll


loss = opt.step(closure)
theta_c = theta.detach() - theta.detach().mean()
print("bt loss", round(loss.item(), 4), "theta", theta_c.round(decimals=3).tolist())
print("bt elo scale", (theta_c * 400 / torch.log(torch.tensor(10.0)) + 1500).round(decimals=1).tolist())
print("order agrees", theta_c.argsort(descending=True)[:2].tolist(), r.argsort(descending=True)[:2].tolist())

# Davidson's draw model: P(draw) = nu*sqrt(pi pj) / (pi + pj + nu*sqrt(pi pj))
pi = theta_c.exp()
nu = 0.5
sq = torch.sqrt(pi[a] * pi[b])
den = pi[a] + pi[b] + nu * sq
p_win, p_draw = pi[a] / den, nu * sq / den
print("davidson", p_win[:4].round(decimals=4).tolist(), p_draw[:4].round(decimals=4).tolist())
ll = torch.where(score == 1, p_win.log(), torch.where(score == 0.5, p_draw.log(), (1 - p_win - p_draw).log()))
print("davidson ll", round(ll.sum().item(), 4))

# Glicko-style deviation shrinking with information
q = torch.log(torch.tensor(10.0)) / 400
rd = torch.full((P,), 350.0)
g_rd = 1 / torch.sqrt(1 + 3 * q ** 2 * rd ** 2 / torch.pi ** 2)
E_g = 1 / (1 + 10 ** (-g_rd[None, :] * (r[:, None] - r[None, :]) / 400))
info = (played.float() * g_rd[None, :] ** 2 * E_g * (1 - E_g)).sum(1) * q ** 2
rd_new = torch.rsqrt(1 / rd ** 2 + info)
print("glicko rd", rd_new.round(decimals=2).tolist())
print("logit check",
      torch.allclose(torch.special.logit(E_g.clamp(1e-6, 1 - 1e-6)), torch.log(E_g / (1 - E_g)), atol=1e-4))
print("expit", torch.special.expit(torch.tensor([0.0, 2.0])).round(decimals=4).tolist())

for bad in [
    lambda: torch.zeros(P, P).index_put_((a, b), score[:3], accumulate=True),
    lambda: torch.zeros(P, P).index_put_((a.float(), b), score),
    lambda: torch.zeros(P).scatter_add(0, a, score.double()),
    lambda: torch.bincount(score),
    lambda: torch.optim.LBFGS([theta], line_search_fn="armijo"),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
