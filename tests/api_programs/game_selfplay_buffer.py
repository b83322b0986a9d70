"""A self-play replay buffer as AlphaZero-style trainers keep it: a fixed-capacity ring of int8 board planes, float
policy targets and outcomes written with index_copy_, sampling by randint or recency-weighted multinomial, a Dataset
view served by a DataLoader with a collate that augments by a random dihedral symmetry, outcome sign flips per
player, and a BytesIO checkpoint of the buffer's state with its dtypes intact."""

import io

import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
N = 5  # 5x5 boards, 25 moves + pass


class RingBuffer:
    def __init__(self, capacity):
        self.planes = torch.zeros(capacity, 2, N, N, dtype=torch.int8)
        self.pi = torch.zeros(capacity, N * N + 1)
        self.z = torch.zeros(capacity)
        self.age = torch.zeros(capacity, dtype=torch.long)
        self.cap, self.ptr, self.size, self.step = capacity, 0, 0, 0

    def add(self, planes, pi, z):
        n = planes.shape[0]
        idx = (self.ptr + torch.arange(n)) % self.cap
        self.planes.index_copy_(0, idx, planes)
        self.pi.index_copy_(0, idx, pi)
        self.z.index_copy_(0, idx, z)
        self.age.index_fill_(0, idx, self.step)
        self.step += 1
        self.ptr = int((self.ptr + n) % self.cap)
        self.size = min(self.size + n, self.cap)

    def state_dict(self):
        return {k: getattr(self, k) for k in ("planes", "pi", "z", "age")} | {"meta": (self.ptr, self.size, self.step)}

    def load_state_dict(self, sd):
        for k in ("planes", "pi", "z", "age"):
            getattr(self, k).copy_(sd[k])
        self.ptr, self.size, self.step = sd["meta"]


def fake_game(length, g):
    """A random game: alternating stones, visit-count policies, and the outcome from the last mover's view."""
    board = torch.zeros(2, N, N, dtype=torch.int8)
    planes, pis = [], []
    for t in range(length):
        free = (board.sum(0) == 0).flatten()
        visits = torch.rand(N * N + 1, generator=g) * torch.cat([free.float(), torch.ones(1)])
        pis.append(visits / visits.sum())
        planes.append(board.clone() if t % 2 == 0 else board.flip(0))
        sq = int(torch.multinomial(free.float(), 1, generator=g))
        board[t % 2].view(-1)[sq] = 1
    winner = 1.0 if length % 2 else -1.0
    z = torch.tensor([winner if t % 2 == 0 else -winner for t in range(length)])
    return torch.stack(planes), torch.stack(pis), z


buf = RingBuffer(40)
g = torch.Generator().manual_seed(5)
for game_len in [9, 12, 7, 15, 10]:
    buf.add(*fake_game(game_len, g))
print("size", buf.size, "ptr", buf.ptr, "step", buf.step, "ages", torch.bincount(buf.age, minlength=5).tolist())
print("planes", buf.planes.dtype, buf.planes.shape, int(buf.planes.sum()), "z sum", buf.z.sum().item())
print("pi rows", buf.pi[: buf.size].sum(1).round(decimals=4).unique().tolist())

# uniform and recency-weighted sampling
u = torch.randint(0, buf.size, (8,), generator=g)
w = torch.pow(0.7, (buf.step - 1 - buf.age[: buf.size]).float())
rec = torch.multinomial(w, 8, replacement=False, generator=g)
print("uniform idx ok", bool((u < buf.size).all()), "recency draws distinct", rec.unique().numel())
print("recency weights", w.unique().round(decimals=4).tolist())


def sym_planes(x, k):
    y = torch.rot90(x, k % 4, dims=(-2, -1))
    return y.transpose(-2, -1) if k >= 4 else y


class BufferView(Dataset):
    def __init__(self, b):
        self.b = b

    def __len__(self):
        return self.b.size

    def __getitem__(self, i):
        return self.b.planes[i], self.b.pi[i], self.b.z[i]


def augment_collate(batch):
    planes, pis, zs = zip(*batch)
    planes, pis, zs = torch.stack(planes), torch.stack(pis), torch.stack(zs)
    k = int(torch.randint(0, 8, (1,)))
    board_pi = pis[:, :-1].reshape(-1, N, N)
    pis = torch.cat([sym_planes(board_pi, k).flatten(1), pis[:, -1:]], 1)
    return sym_planes(planes, k).float(), pis, zs


loader = DataLoader(BufferView(buf), batch_size=16, shuffle=True, collate_fn=augment_collate, drop_last=True,
                    generator=torch.Generator().manual_seed(3))
for xb, pb, zb in loader:
    print("batch", xb.shape, xb.dtype, pb.shape, round(pb.sum().item(), 4), zb.dtype, xb.sum().item())
print("batches", len(loader))

# checkpoint the buffer through BytesIO and restore into a fresh one
stream = io.BytesIO()
torch.save(buf.state_dict(), stream)
stream.seek(0)
sd = torch.load(stream, weights_only=True)
fresh = RingBuffer(40)
fresh.load_state_dict(sd)
print("restored", {k: (v.dtype, tuple(v.shape)) for k, v in sd.items() if torch.is_tensor(v)})
print("equal", torch.equal(fresh.planes, buf.planes), torch.equal(fresh.pi, buf.pi), sd["meta"])

for bad in [
    lambda: buf.planes.index_copy_(0, torch.tensor([0]), torch.ones(1, 2, N, N)),
    lambda: buf.z.index_copy_(0, torch.tensor([40]), torch.ones(1)),
    lambda: torch.multinomial(w, 100, replacement=False),
    lambda: fresh.load_state_dict({**sd, "pi": torch.zeros(3, 3)}),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
