"""MCTS with PUCT written over tensors (AlphaZero's search on a batch of trees): node arrays for visit counts, values
and priors, seeded Dirichlet noise at the root, masked softmax over legal moves, the PUCT score with argmax, backups
with index_add_, and temperature sampling of the played move with multinomial."""

import math

import torch

torch.manual_seed(0)
B, A, MAXN = 3, 9, 64  # trees, actions, nodes per tree
C_PUCT, EPS, ALPHA = 1.25, 0.25, 0.3


class Tree:
    def __init__(self):
        self.N = torch.zeros(B, MAXN, A)
        self.W = torch.zeros(B, MAXN, A)
        self.P = torch.zeros(B, MAXN, A)
        self.child = torch.full((B, MAXN, A), -1, dtype=torch.long)
        self.size = torch.ones(B, dtype=torch.long)

    def Q(self):
        return torch.where(self.N > 0, self.W / self.N.clamp(min=1), torch.zeros(()))


def priors(logits, legal):
    return logits.masked_fill(~legal, float("-inf")).softmax(-1)


def puct(tree, node, legal):
    b = torch.arange(B)
    n, q, p = tree.N[b, node], tree.Q()[b, node], tree.P[b, node]
    u = C_PUCT * p * n.sum(-1, keepdim=True).add(1).sqrt() / (1 + n)
    return (q + u).masked_fill(~legal, float("-inf"))


gen = torch.Generator().manual_seed(1234)
legal = torch.ones(B, A, dtype=torch.bool)
legal[0, [0, 4]] = False
legal[2, 5:] = False
logits = torch.randn(B, A, generator=gen)
tree = Tree()
root_p = priors(logits, legal)
print("root priors", root_p.round(decimals=4).tolist()[0])
print("masked zeros", (root_p[~legal] == 0).all().item(), root_p.sum(-1).round(decimals=4).tolist())

# Dirichlet noise (printed through summaries only: sums, support and shape)
conc = torch.full((A,), ALPHA)
noise = torch.distributions.Dirichlet(conc).sample((B,))
print("noise", noise.shape, noise.sum(-1).round(decimals=4).tolist(), bool((noise >= 0).all()))
noisy = (1 - EPS) * root_p + EPS * noise * legal
noisy = noisy / noisy.sum(-1, keepdim=True)
tree.P[:, 0] = noisy
print("noisy legal mass", noisy.masked_select(legal).sum().round(decimals=4).item())

# fixed "network" values for children: deterministic function of the action path
value_of = torch.linspace(-1, 1, A)
b = torch.arange(B)
for sim in range(40):
    node = torch.zeros(B, dtype=torch.long)
    path_nodes, path_actions = [], []
    leaf_val = torch.zeros(B)
    for depth in range(3):
        a = puct(tree, node, legal).argmax(-1)
        path_nodes.append(node)
        path_actions.append(a)
        nxt = tree.child[b, node, a]
        new = nxt < 0
        if new.any():
            ids = tree.size.clone()
            tree.child[b[new], node[new], a[new]] = ids[new]
            tree.P[b[new], ids[new]] = priors(logits[new].roll(depth + 1, -1), legal[new])
            tree.size += new.long()
            leaf_val = torch.where(new, value_of[a] * (-1) ** depth, leaf_val)
            nxt = torch.where(new, ids, nxt)
        node = nxt
        if new.all():
            break
    v = leaf_val
    for nd, ac in zip(reversed(path_nodes), reversed(path_actions)):
        flat = (b * MAXN + nd) * A + ac
        tree.N.view(-1).index_add_(0, flat, torch.ones(B))
        tree.W.view(-1).index_add_(0, flat, v)
        v = -v

visits = tree.N[:, 0]
print("root visits", visits.long().tolist())
print("tree sizes", tree.size.tolist(), "total visits", visits.sum(-1).long().tolist())
print("root Q", tree.Q()[:, 0].round(decimals=4).tolist()[1])
print("illegal never visited", (visits[~legal] == 0).all().item())

for temp in [1.0, 0.5, 1e-3]:
    pi = visits.pow(1.0 / temp)
    pi = pi / pi.sum(-1, keepdim=True)
    print("temp", temp, pi.round(decimals=4)[0].tolist())
greedy = torch.zeros_like(visits).scatter_(-1, visits.argmax(-1, keepdim=True), 1.0)
print("greedy one-hot", greedy.argmax(-1).tolist(), greedy.sum().item())
pi = visits / visits.sum(-1, keepdim=True)
g2 = torch.Generator().manual_seed(7)
draws = torch.multinomial(pi, 200, replacement=True, generator=g2)
hist = torch.stack([torch.bincount(d, minlength=A) for d in draws])
print("draws legal", legal.gather(1, draws).all().item(), "hist sum", hist.sum(-1).tolist())
print("entropy", (-(pi * pi.clamp_min(1e-12).log()).sum(-1)).round(decimals=4).tolist())
print("log-sum-exp", torch.logsumexp(logits.masked_fill(~legal, -math.inf), -1).round(decimals=4).tolist())

for bad in [
    lambda: torch.distributions.Dirichlet(torch.tensor([0.3, -1.0])),
    lambda: torch.multinomial(pi, 20, replacement=False),
    lambda: torch.multinomial(torch.tensor([0.5, -0.1, 0.6]), 1),
    lambda: tree.N.view(-1).index_add_(0, torch.tensor([0]), torch.ones(2)),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
