"""Replay-buffer code from RL libraries: a preallocated circular buffer of uint8 frames with frame stacking,
observations collected as a list of numpy arrays (and PyTorch's warning about it), n-step transitions from a deque,
hindsight goal relabelling, R2D2 sequence sampling with burn-in, padding and masks, and an IterableDataset that
streams minibatches through a DataLoader."""

import warnings
from collections import deque

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader, IterableDataset

rng = np.random.default_rng(2)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class FrameBuffer:
    """Stores single 8x8 uint8 frames once; stacks the last k on sampling (as DQN's Atari buffers do)."""

    def __init__(self, capacity, k=3):
        self.frames = torch.zeros((capacity, 8, 8), dtype=torch.uint8)
        self.actions = torch.zeros(capacity, dtype=torch.int64)
        self.rewards = torch.zeros(capacity, dtype=torch.float32)
        self.dones = torch.zeros(capacity, dtype=torch.bool)
        self.cap, self.k, self.pos, self.full = capacity, k, 0, False

    def add(self, frame, a, rew, done):
        self.frames[self.pos] = torch.from_numpy(frame)
        self.actions[self.pos], self.rewards[self.pos], self.dones[self.pos] = a, rew, done
        self.pos = (self.pos + 1) % self.cap
        self.full = self.full or self.pos == 0

    def __len__(self):
        return self.cap if self.full else self.pos

    def stack(self, idx):
        offs = torch.arange(-self.k + 1, 1)
        ids = (idx.unsqueeze(1) + offs) % self.cap
        # frames from before an episode boundary are zeroed
        boundary = self.dones[(ids - 1) % self.cap].flip(1).cumsum(1).flip(1) > 0
        boundary[:, -1] = False
        return self.frames[ids].masked_fill(boundary[:, :, None, None], 0)


buf = FrameBuffer(10)
for t in range(14):
    frame = ((np.arange(64).reshape(8, 8) + 17 * t) % 256).astype(np.uint8)
    buf.add(frame, t % 4, float(t % 3) - 1.0, t % 5 == 4)
print("len", len(buf), "pos", buf.pos, "full", buf.full, buf.frames.dtype, buf.frames.is_contiguous())
idx = torch.from_numpy(rng.integers(0, len(buf), size=4))
st = buf.stack(idx)
print("idx", idx.tolist(), "stack", st.shape, st.dtype, st[:, :, 0, 0].tolist())
x = st.float().div_(255.0)
print("scaled", r(x.mean((2, 3))), x.dtype, (st.to(torch.float32) / 255).allclose(x))
print("uint8 arith", (st[0, 0, 0, :4] + 250).tolist(), (st[0, 0, 0, :4] * 2).tolist(), st.sum().item(), st.max().item())
print("dones", buf.dones.nonzero().flatten().tolist(), buf.actions[idx].tolist(), buf.rewards[idx].tolist())

# observations gathered as a list of arrays: PyTorch warns once and suggests np.array first
obs_list = [rng.standard_normal(4).astype(np.float32) for _ in range(5)]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    slow = torch.tensor(obs_list)
    fast = torch.tensor(np.array(obs_list))
    again = torch.tensor(obs_list)
print("list of arrays", slow.shape, slow.dtype, torch.equal(slow, fast), torch.equal(again, fast))
print("warnings", [w.category.__name__ for w in caught], [str(w.message)[:58] for w in caught])
print("stack", torch.stack([torch.from_numpy(o) for o in obs_list]).shape, torch.as_tensor(np.stack(obs_list)).dtype)
print("from scalars", torch.tensor([np.float32(0.5), np.float32(1.5)]).dtype, torch.tensor([0.5, np.float64(1)]).dtype)

# n-step returns from a deque of transitions
gamma, n = 0.9, 3
q = deque(maxlen=n)
out = []
for t in range(7):
    q.append((t, float(t % 2), t == 4))
    if len(q) == n:
        ret, disc = 0.0, 1.0
        for (_, rew, done) in q:
            ret += disc * rew
            disc *= gamma
            if done:
                break
        out.append((q[0][0], round(ret, 4)))
print("nstep", out)

# hindsight experience replay: relabel goals with achieved goals from later in the episode ('future')
T, gdim = 6, 2
achieved = torch.from_numpy(np.cumsum(rng.standard_normal((T + 1, gdim)), 0).astype(np.float32))
goal = torch.tensor([3.0, 3.0])


def reward_fn(ag, g, eps=0.5):
    return -(torch.linalg.vector_norm(ag - g, dim=-1) > eps).float()


t_idx = torch.tensor([0, 2, 3, 5])
future = t_idx + 1 + torch.from_numpy(rng.integers(0, T - t_idx.numpy()))
her = torch.from_numpy(rng.random(4) < 0.8)
goals = torch.where(her.unsqueeze(1), achieved[future], goal.expand(4, gdim))
rews = reward_fn(achieved[t_idx + 1], goals)
print("her future", future.tolist(), her.tolist(), r(goals, 8), rews.tolist())

# R2D2 sequences: burn-in, variable lengths, padding and masks
seqs = [torch.from_numpy(rng.standard_normal((L, 3)).astype(np.float32)) for L in (5, 3, 4)]
lengths = torch.tensor([s.shape[0] for s in seqs])
padded = pad_sequence(seqs, batch_first=True)
mask = torch.arange(padded.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
print("padded", padded.shape, mask.int().tolist(), padded[1, 3:].abs().sum().item())
lstm = nn.LSTM(3, 4, batch_first=True)
with torch.no_grad():
    for p in lstm.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.4))
burn_in = 2
with torch.no_grad():
    _, (h, c) = lstm(padded[:, :burn_in])
packed = pack_padded_sequence(padded[:, burn_in:], lengths - burn_in, batch_first=True, enforce_sorted=False)
out_p, (hn, cn) = lstm(packed, (h.detach(), c.detach()))
unpacked, out_len = pad_packed_sequence(out_p, batch_first=True, total_length=padded.shape[1] - burn_in)
print("r2d2", unpacked.shape, out_len.tolist(), r(unpacked[:, 0, 0]), r(hn[0, :, 0]), packed.batch_sizes.tolist())
td = (unpacked.sum(-1) * mask[:, burn_in:]).sum(1) / mask[:, burn_in:].sum(1)
eta = 0.9
prio = eta * td.abs().max() + (1 - eta) * td.abs().mean()
print("sequence priority", r(td), round(prio.item(), 4))


class ReplayStream(IterableDataset):
    def __init__(self, data, batch, seed):
        self.data, self.batch, self.seed = data, batch, seed

    def __iter__(self):
        g = np.random.default_rng(self.seed)
        for _ in range(3):
            ids = g.integers(0, len(self.data), self.batch)
            yield {"obs": self.data[ids], "idx": torch.from_numpy(ids)}


loader = DataLoader(ReplayStream(torch.arange(20.0).view(10, 2), 4, seed=0), batch_size=None)
for i, b in enumerate(loader):
    print("stream", i, b["idx"].tolist(), b["obs"][:, 0].tolist(), type(b).__name__)
try:
    DataLoader(ReplayStream(torch.zeros(3, 2), 2, 0), shuffle=True)
except ValueError as e:
    print("ValueError", str(e)[:80])
# gym hands back numpy scalars: they act as Python numbers on uint8 frames
n_frames, act, rew = np.int64(2), np.int64(3), np.float64(-0.5)
f0 = st[0, 0, 0, :4]
print("np scalars", (f0 * n_frames).tolist(), (f0 + np.int64(300)).dtype, type(f0 - act).__name__,
      f0.clamp(max=np.int32(100)).tolist(), (f0 > np.int64(-3)).tolist(), (f0 * rew).dtype)
print("np where", torch.where(f0 > 100, f0, np.int64(-1)).tolist(), f0.clone().fill_(np.int64(7)).tolist())
for bad in (lambda: f0.masked_fill(f0 > 0, np.int64(300)), lambda: torch.tensor([2]) ** np.int64(-1)):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)
done_flag = np.float32(0.3) > 0.2  # numpy comparisons give numpy bools, like gym's terminated flags
print("np flag", type(done_flag).__module__, buf.rewards[bool(done_flag)].shape, buf.rewards[True].shape)
try:
    buf.rewards[done_flag]
except IndexError as e:
    print("IndexError", e)
try:
    buf.rewards[np.float64(2.0)]
except IndexError as e:
    print("IndexError", e)
try:
    buf.frames[0] = torch.full((8, 8), 300)
    print("overflow stored", buf.frames[0, 0, :2].tolist())
except RuntimeError as e:
    print("RuntimeError", str(e)[:80])
try:
    pack_padded_sequence(padded, torch.tensor([5, 0, 4]), batch_first=True, enforce_sorted=False)
except RuntimeError as e:
    print("RuntimeError", str(e)[:80])
