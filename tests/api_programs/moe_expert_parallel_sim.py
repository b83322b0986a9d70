"""Expert parallelism simulated in one process: tokens of each rank sorted by destination expert, send counts
exchanged (a transpose of the counts matrix), all_to_all as list-of-splits bookkeeping with torch.split/cat,
local experts run on what they received, and the reverse exchange unpermuted back, checked against the
single-device MoE; chunk/tensor_split/unbind forms of the same bookkeeping."""

import torch

torch.manual_seed(0)
WORLD, LOCAL_E, D, T_PER_RANK, K = 2, 2, 4, 5, 2
E = WORLD * LOCAL_E
weights = [torch.sin(torch.arange(D * D, dtype=torch.float32).view(D, D) * (0.2 + 0.1 * e)) for e in range(E)]
x = [torch.cos(torch.arange(T_PER_RANK * D, dtype=torch.float32).view(T_PER_RANK, D) * (0.5 + r)) for r in range(WORLD)]
router = torch.cos(torch.arange(D * E, dtype=torch.float32).view(D, E) * 0.9)


def route(tokens):
    w, idx = torch.topk((tokens @ router).softmax(-1), K, dim=-1)
    return w / w.sum(-1, keepdim=True), idx


def expert(e, h):
    return torch.tanh(h @ weights[e])


# single-device reference
ref = []
for r in range(WORLD):
    w, idx = route(x[r])
    out = torch.zeros_like(x[r])
    for t in range(T_PER_RANK):
        for j in range(K):
            out[t] += w[t, j] * expert(idx[t, j].item(), x[r][t])
    ref.append(out)

# dispatch: each rank permutes its (token, choice) pairs by expert and counts what goes to each rank
send, send_counts, perms, routing = [], [], [], []
for r in range(WORLD):
    w, idx = route(x[r])
    flat = idx.flatten()
    perm = flat.argsort(stable=True)
    tokens = x[r].repeat_interleave(K, dim=0)[perm]
    per_expert = torch.bincount(flat, minlength=E)
    send.append((tokens, flat[perm]))
    send_counts.append(per_expert.view(WORLD, LOCAL_E).sum(-1))
    perms.append(perm)
    routing.append(w)
counts = torch.stack(send_counts)  # counts[src, dst]
recv_counts = counts.t()
print("send counts:\n", counts)
print("recv counts per rank:", recv_counts.sum(1).tolist())

inbox = [[] for _ in range(WORLD)]
for src in range(WORLD):
    toks, eids = send[src]
    for dst, (tk, ei) in enumerate(zip(torch.split(toks, counts[src].tolist()), eids.split(counts[src].tolist()))):
        inbox[dst].append((tk, ei))

# each rank runs its local experts on what it received, and sends the results back in the same order
outbox = [[] for _ in range(WORLD)]
for dst in range(WORLD):
    recv_tokens = torch.cat([tk for tk, _ in inbox[dst]])
    recv_eids = torch.cat([ei for _, ei in inbox[dst]])
    out = torch.empty_like(recv_tokens)
    for le in range(LOCAL_E):
        e = dst * LOCAL_E + le
        m = recv_eids == e
        out[m] = expert(e, recv_tokens[m])
    print(f"rank {dst} got {recv_tokens.shape[0]} rows, experts {recv_eids.unique().tolist()}")
    for src, piece in enumerate(torch.split(out, recv_counts[dst].tolist())):
        outbox[src].append(piece)

ok = True
for r in range(WORLD):
    back = torch.cat(outbox[r])
    unperm = torch.empty_like(back)
    unperm[perms[r]] = back
    y = (unperm.view(T_PER_RANK, K, D) * routing[r].unsqueeze(-1)).sum(1)
    ok &= torch.allclose(y, ref[r], atol=1e-6)
    print(f"rank {r} y[0]:", y[0].round(decimals=4).tolist())
print("expert parallel == single device:", ok)

offsets = counts[0].cumsum(0)
print("tensor_split at offsets:", [t.shape[0] for t in torch.tensor_split(send[0][0], offsets[:-1].tolist())])
print("chunk into ranks:", [t.shape for t in torch.chunk(torch.arange(10), 3)], torch.arange(10).chunk(3)[-1].tolist())
print("unbind counts:", [c.tolist() for c in counts.unbind(1)])
print("split sizes from tensor:", [t.tolist() for t in torch.arange(6).split([1, 2, 3])])
print("split by int:", [t.tolist() for t in torch.arange(7).split(3)], torch.arange(7).split(3)[0].is_contiguous())
print("grad_fn of split piece:", torch.arange(6.0, requires_grad=True).split([2, 4])[1].grad_fn.name())
for bad in (lambda: torch.split(send[0][0], counts[0]),
            lambda: torch.tensor_split(torch.arange(6), 0),
            lambda: torch.chunk(torch.arange(6), 0),
            lambda: torch.cat([send[0][0], send[1][0].t()])):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
