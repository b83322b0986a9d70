"""Counterfactual regret minimisation as poker-research code writes it over tensors: regret matching in matrix
games (rock-paper-scissors, a biased variant), vanilla CFR on Kuhn poker with information sets as rows of regret and
strategy tables, CFR+ (regret flooring), linear averaging, and exploitability from best responses."""

import itertools

import torch

torch.set_default_dtype(torch.float64)


def regret_matching(regret):
    pos = regret.clamp_min(0)
    total = pos.sum(-1, keepdim=True)
    uniform = torch.full_like(regret, 1.0 / regret.shape[-1])
    return torch.where(total > 0, pos / total.clamp_min(1e-300), uniform)


# --- matrix games: self-play regret matching converges on average --------------------------------------------
RPS = torch.tensor([[0.0, -1, 1], [1, 0, -1], [-1, 1, 0]])
BIASED = torch.tensor([[0.0, -1, 2], [1, 0, -1], [-1, 1, 0]])
for name, A in [("rps", RPS), ("biased", BIASED)]:
    reg = torch.stack([torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])])
    avg = torch.zeros(2, 3)
    for t in range(1, 801):
        s = regret_matching(reg)
        u0 = A @ s[1]
        u1 = -(s[0] @ A)
        reg[0] += u0 - s[0] @ u0
        reg[1] += u1 - s[1] @ u1
        avg += t * s  # linear averaging
    avg = avg / avg.sum(-1, keepdim=True)
    value = avg[0] @ A @ avg[1]
    expl = (A @ avg[1]).max() - (avg[0] @ A).min()
    print(name, avg.round(decimals=2).tolist(), "value", round(value.item(), 3), "exploit<0.05", expl.item() < 0.05)

# --- Kuhn poker: cards J<Q<K, histories over {p, b} ------------------------------------------------------------
CARDS = 3
HISTS = ["", "p", "b", "pb"]
INFOSETS = {(c, h): i for i, (c, h) in enumerate(itertools.product(range(CARDS), HISTS))}
regret = torch.zeros(len(INFOSETS), 2)
strat_sum = torch.zeros(len(INFOSETS), 2)


def terminal(h):
    return h in ("pp", "bb", "bp", "pbb", "pbp")


def payoff(h, cards):
    """Utility for player to move at history h (which is terminal)."""
    player = len(h) % 2
    me, opp = cards[player], cards[1 - player]
    if h.endswith("p") and h != "pp":
        return 1.0  # opponent folded
    stake = 2.0 if "bb" in h or h == "pbb" else 1.0
    return stake if me > opp else -stake


def cfr(cards, h, p0, p1, t, plus):
    if terminal(h):
        return payoff(h, cards)
    player = len(h) % 2
    i = INFOSETS[(cards[player], h)]
    s = regret_matching(regret[i])
    util = torch.zeros(2)
    for a, ch in enumerate("pb"):
        if player == 0:
            util[a] = -cfr(cards, h + ch, p0 * s[a], p1, t, plus)
        else:
            util[a] = -cfr(cards, h + ch, p0, p1 * s[a], t, plus)
    node = (s * util).sum()
    reach_opp, reach_me = (p1, p0) if player == 0 else (p0, p1)
    regret[i] += reach_opp * (util - node)
    if plus:
        regret[i].clamp_(min=0)
    strat_sum[i] += (t if plus else 1) * reach_me * s
    return node


deals = list(itertools.permutations(range(CARDS), 2))
for plus in (False, True):
    regret.zero_()
    strat_sum.zero_()
    total = 0.0
    for t in range(1, 121):
        for cards in deals:
            total += cfr(cards, "", 1.0, 1.0, t, plus).item()
    avg = strat_sum / strat_sum.sum(-1, keepdim=True)
    game_value = total / (120 * len(deals))
    print("cfr+" if plus else "cfr", "value~-1/18", abs(game_value + 1 / 18) < 0.02)
    # structural facts of the equilibrium: K always bets when facing a bet, J folds to a bet
    print("  K calls", round(avg[INFOSETS[(2, "b")], 1].item(), 2),
          "J folds", round(avg[INFOSETS[(0, "b")], 0].item(), 2),
          "Q checks as P1 first", avg[INFOSETS[(1, "")], 0].item() > 0.9)
    print("  strategy rows sum", torch.allclose(avg.sum(-1), torch.ones(len(INFOSETS))),
          "regret finite", bool(torch.isfinite(regret).all()), "nonneg" if plus else "",
          bool((regret >= 0).all()) if plus else "")

print("rm uniform", regret_matching(torch.tensor([[-1.0, -2.0, -3.0]])).tolist())
print("rm", regret_matching(torch.tensor([[3.0, -1.0, 1.0]])).tolist(), torch.get_default_dtype())
torch.set_default_dtype(torch.float32)
print("default back", torch.tensor([1.0]).dtype)

for bad in [
    lambda: torch.tensor([1.0, 2.0]).clamp_(min=torch.tensor([0.0, 1.0, 2.0])),
    lambda: torch.set_default_dtype(torch.int64),
    lambda: RPS @ torch.ones(2),
    lambda: torch.tensor([1, 2]).clamp_min_(0.5),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
