"""Bit twiddling and wraparound as hashing, packing and quantization code meets them."""

import torch

torch.manual_seed(0)


def show(tag, t):
    print(f"{tag:<24}", t.tolist(), str(t.dtype).replace("torch.", ""))


# signed vs unsigned bitwise
i8 = torch.tensor([-128, -1, 0, 1, 127, 85], dtype=torch.int8)
u8 = torch.tensor([0, 1, 127, 128, 255, 170], dtype=torch.uint8)
show("~i8", ~i8)
show("~u8", ~u8)
show("i8 & 0x0F", i8 & 0x0F)
show("u8 | 0x80", u8 | 0x80)
show("i8 ^ -1", i8 ^ -1)
show("u8 ^ u8.flip", u8 ^ u8.flip(0))
show("i8 & u8", i8 & u8)
show("i8 >> 1 (arith)", i8 >> 1)
show("u8 >> 1 (logical)", u8 >> 1)
show("i8 << 1", i8 << 1)
show("u8 << 1", u8 << 1)
show("i16 << 4", i8.to(torch.int16) << 4)
show("i32 >> 31", torch.tensor([-5, 5, -(2**31)], dtype=torch.int32) >> 31)
show("shift by tensor", torch.tensor([1, 1, 1, 1]) << torch.tensor([0, 1, 10, 62]))
show("i64 >> 63", torch.tensor([-(2**63), 2**62]) >> 63)
show("bitwise_left_shift", torch.bitwise_left_shift(torch.tensor([3, -3], dtype=torch.int16), 3))
show("bitwise_right_shift", torch.bitwise_right_shift(torch.tensor([-64, 64], dtype=torch.int16), 2))
show("bool & | ^", torch.stack([torch.tensor([True, False]) & torch.tensor([True, True]),
                                torch.tensor([True, False]) | torch.tensor([False, False]),
                                torch.tensor([True, False]) ^ torch.tensor([True, True])]))
for bad in [lambda: torch.tensor([1.5]) & 1, lambda: torch.tensor([1.0]) << 1, lambda: ~torch.tensor([1.0])]:
    try:
        bad()
    except (RuntimeError, TypeError) as e:
        print("float bitwise", type(e).__name__, e)

# popcount and bit extraction, as in hashing code
x = torch.tensor([0, 1, 7, 255, 1023, 2**40 + 3])
bits = (x.unsqueeze(-1) >> torch.arange(64)) & 1
show("popcount", bits.sum(-1))
show("lowest set bit", (x & -x))
show("is power of two", (x > 0) & ((x & (x - 1)) == 0))

# pack four uint8 into int32 and unpack
p = torch.tensor([[1, 2, 3, 4], [255, 0, 128, 7]], dtype=torch.uint8)
packed = (p[:, 0].int() | (p[:, 1].int() << 8) | (p[:, 2].int() << 16) | (p[:, 3].int() << 24))
show("packed", packed)
unpacked = torch.stack([(packed >> s) & 0xFF for s in (0, 8, 16, 24)], -1).to(torch.uint8)
show("unpacked", unpacked)
print("roundtrip", torch.equal(unpacked, p))
# int4 nibble packing
q = torch.tensor([3, 15, 0, 9, 7, 1], dtype=torch.uint8)
nib = (q[0::2] << 4) | q[1::2]
show("nibbles", nib)
show("unnibble", torch.stack([nib >> 4, nib & 0xF], -1).flatten())

# wraparound on add/mul/neg/abs in each integer width
show("i8 127+1", torch.tensor([127], dtype=torch.int8) + 1)
show("i8 -128-1", torch.tensor([-128], dtype=torch.int8) - 1)
show("i8 * 3", torch.tensor([50, -50, 100], dtype=torch.int8) * 3)
m8 = torch.tensor([-128], dtype=torch.int8)
show("i8 neg/abs min", torch.stack([-m8, m8.abs()]))
show("u8 200+100", torch.tensor([200], dtype=torch.uint8) + torch.tensor([100], dtype=torch.uint8))
show("u8 3-5", torch.tensor([3], dtype=torch.uint8) - torch.tensor([5], dtype=torch.uint8))
show("u8 16*16", torch.tensor([16], dtype=torch.uint8) * torch.tensor([16], dtype=torch.uint8))
show("i16 wrap", torch.tensor([32767, -32768, 300], dtype=torch.int16) * torch.tensor([2, 2, 300], dtype=torch.int16))
show("i32 wrap", torch.tensor([2**31 - 1, 65536], dtype=torch.int32) * torch.tensor([2, 65536], dtype=torch.int32))
show("i64 wrap", torch.tensor([2**63 - 1]) + 1)
show("i8 cumsum (int64)", torch.tensor([100, 100, 100], dtype=torch.int8).cumsum(0))
show("i8 cumsum dtype=i8", torch.tensor([100, 100, 100], dtype=torch.int8).cumsum(0, dtype=torch.int8))
show("u8 sum", torch.tensor([200, 200], dtype=torch.uint8).sum())
show("u8 sum dtype=u8", torch.tensor([200, 200], dtype=torch.uint8).sum(dtype=torch.uint8))
show("i16 prod", torch.tensor([300, 300], dtype=torch.int16).prod())
show("u8 mean of float", torch.tensor([200, 201], dtype=torch.uint8).float().mean())
show("u8 max/argmax", torch.stack([torch.tensor([3, 250, 7], dtype=torch.uint8).max(),
                                   torch.tensor([3, 250, 7], dtype=torch.uint8).argmax().to(torch.uint8)]))

# a simple multiplicative hash in int64 with wraparound, then bucketize
keys = torch.randint(0, 10**6, (8,))
h = (keys * 2654435761) & 0xFFFFFFFF
show("keys", keys)
show("hash", h)
show("bucket", h % 16)
h2 = keys * -7046029254386353131
show("hash64", h2 >> 60)

# casting beyond range wraps for integer -> integer
show("i64 -> i8", torch.tensor([127, 128, 255, 256, -129]).to(torch.int8))
show("i64 -> u8", torch.tensor([-1, 256, 257, -256]).to(torch.uint8))
show("i32 -> i16", torch.tensor([70000, -70000], dtype=torch.int32).to(torch.int16))
show("bool -> u8 -> ~", ~torch.tensor([True, False]).to(torch.uint8))
print("iinfo", [(str(d), torch.iinfo(d).min, torch.iinfo(d).max, torch.iinfo(d).bits)
                for d in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)])
print("iinfo dtype", torch.iinfo(torch.int16).dtype, torch.iinfo(torch.uint8))
try:
    torch.iinfo(torch.float32)
except TypeError as e:
    print("iinfo float", type(e).__name__, e)
