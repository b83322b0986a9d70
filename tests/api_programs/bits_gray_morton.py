"""Gray codes, bit-reversal permutations (FFT reordering) and Morton (Z-order) codes for sorting
points spatially, written with integer shifts, masks and argsort as geometry and signal code does."""

import torch

n = torch.arange(16)
gray = n ^ (n >> 1)
print("gray", gray.tolist())
print("adjacent differ by one bit", (((gray[1:] ^ gray[:-1]) & ((gray[1:] ^ gray[:-1]) - 1)) == 0).all().item())

decoded = gray.clone()
shift = 1
while shift < 16:
    decoded ^= decoded >> shift
    shift <<= 1
print("decoded", torch.equal(decoded, n), decoded.dtype)

g8 = gray.to(torch.uint8)
print("uint8 gray", (g8 ^ (g8 >> 1)).tolist(), (~g8)[:4].tolist())
print(
    "int8 gray of negatives",
    (torch.tensor([-1, -2, -128], dtype=torch.int8) ^ (torch.tensor([-1, -2, -128], dtype=torch.int8) >> 1)).tolist(),
)


def bit_reverse(x, bits):
    r = torch.zeros_like(x)
    for b in range(bits):
        r |= ((x >> b) & 1) << (bits - 1 - b)
    return r


rev = bit_reverse(torch.arange(8), 3)
print("bit reversal", rev.tolist())
sig = torch.arange(8, dtype=torch.float64)
print("reordered", sig[rev].tolist(), "inverse", torch.argsort(rev).tolist())
print("fft via reordering agrees", torch.allclose(torch.fft.fft(sig)[0], torch.tensor(28.0, dtype=torch.complex128)))


def part1by1(x):
    """Spread the low 16 bits of x so there is a zero between each (int32 arithmetic)."""
    x = x & 0x0000FFFF
    x = (x | (x << 8)) & 0x00FF00FF
    x = (x | (x << 4)) & 0x0F0F0F0F
    x = (x | (x << 2)) & 0x33333333
    return (x | (x << 1)) & 0x55555555


torch.manual_seed(0)
pts = torch.randint(0, 1 << 10, (8, 2), dtype=torch.int32)
code = part1by1(pts[:, 0]) | (part1by1(pts[:, 1]) << 1)
print("points", pts.tolist())
print("morton", code.tolist(), code.dtype)
order = torch.argsort(code, stable=True)
print("z-order", order.tolist())
print("sorted codes", torch.sort(code).values.tolist())

# the same 64-bit: the high bits wrap into the sign bit and the sort order changes
big = (part1by1(pts[:, 0].long()) << 40) | part1by1(pts[:, 1].long())
print("shifted past 2^63", (big << 4).tolist()[:3], ((big << 4) < 0).sum().item())

ties = torch.tensor([3, 1, 3, 1, 2], dtype=torch.int16)
print("argmax ties", ties.argmax().item(), "argmin ties", ties.argmin().item())
print("max with index", tuple(x.item() for x in ties.max(0)), tuple(x.item() for x in ties.min(0)))
print(
    "sort stable",
    torch.sort(ties, stable=True).indices.tolist(),
    "desc",
    torch.sort(ties, descending=True, stable=True).indices.tolist(),
)
print("topk", torch.topk(ties, 3).values.tolist(), ties.dtype)
u, inv, cnt = torch.unique(ties, return_inverse=True, return_counts=True)
print("unique", u.tolist(), inv.tolist(), cnt.tolist(), u.dtype, inv.dtype)
print("unique sorted=False", torch.unique(torch.tensor([5, 3, 5, 1])).tolist())
print("unique dim", torch.unique(torch.tensor([[1, 2], [0, 7], [1, 2]], dtype=torch.int8), dim=0))
print(
    "unique_consecutive", torch.unique_consecutive(torch.tensor([2, 2, 0, 0, 2], dtype=torch.uint8), return_counts=True)
)
print("msb via log2", torch.floor(torch.log2(torch.tensor([1.0, 5.0, 1024.0, 1025.0]))).long().tolist())
print("is power of two", ((n & (n - 1)) == 0).logical_and(n > 0).nonzero().flatten().tolist())
print("lowest set bit", (n & -n).tolist())
