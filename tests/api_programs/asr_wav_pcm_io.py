"""Audio I/O as data-prep scripts write it without torchaudio: a RIFF/WAVE header built and parsed with struct,
PCM samples read with torch.frombuffer (offset/count, int16 and uint8), interleaved stereo split by view and
transpose, 24-bit samples assembled from bytes with shifts and sign extension, Tensor.view(dtype) reinterpretation,
float <-> int16 conversion with clamping and rounding, 8-bit unsigned PCM, mu-law companding, and features saved to
a BytesIO."""

import io
import math
import struct

import torch

torch.manual_seed(0)
sr, n = 16000, 64
t = torch.arange(n) / sr
left = 0.8 * torch.sin(2 * math.pi * 500 * t)
right = 0.3 * torch.sin(2 * math.pi * 1500 * t + 0.5)
stereo = torch.stack([left, right], 1)
pcm16 = (stereo * 32767).round().clamp(-32768, 32767).to(torch.int16)
payload = pcm16.numpy().tobytes()
header = struct.pack(
    "<4sI4s4sIHHIIHH4sI",
    b"RIFF",
    36 + len(payload),
    b"WAVE",
    b"fmt ",
    16,
    1,
    2,
    sr,
    sr * 4,
    4,
    16,
    b"data",
    len(payload),
)
blob = header + payload
print("wav bytes", len(blob), "header", len(header))

riff, size, wave_id = struct.unpack_from("<4sI4s", blob, 0)
fmt = struct.unpack_from("<HHIIHH", blob, 20)
print(riff, size, wave_id, "fmt", fmt)
data = torch.frombuffer(bytearray(blob), dtype=torch.int16, offset=44, count=(len(blob) - 44) // 2)
print("frombuffer", data.dtype, tuple(data.shape), data[:6].tolist())
chans = data.view(-1, 2).t()
print("channels", tuple(chans.shape), chans.is_contiguous(), chans.stride())
audio = chans.to(torch.float32) / 32768.0
print(
    "float range",
    round(audio.min().item(), 4),
    round(audio.max().item(), 4),
    "error vs source",
    round((audio - stereo.t()).abs().max().item(), 6),
)
raw = torch.frombuffer(bytearray(payload), dtype=torch.uint8)
print("bytes as int16 via view", torch.equal(raw.view(torch.int16), data), raw.view(torch.int16).shape)
print("little-endian pair", raw[:2].tolist(), "->", (raw[0].int() | (raw[1].int() << 8)).item(), data[0].item())

loud = torch.tensor([1.2, -1.5, 0.49999, -0.50001, 0.99998, -1.0])
print("to int16 clamp", (loud * 32767).clamp(-32768, 32767).round().to(torch.int16).tolist())
print("to int16 wrap", (loud * 32767).to(torch.int32).to(torch.int16).tolist())
print("iinfo", torch.iinfo(torch.int16).min, torch.iinfo(torch.int16).max, torch.iinfo(torch.int16).bits)

s24 = torch.tensor([8388607, -8388608, -1, 123456, -654321], dtype=torch.int32)
b0, b1, b2 = s24 & 0xFF, (s24 >> 8) & 0xFF, (s24 >> 16) & 0xFF
packed = torch.stack([b0, b1, b2], 1).to(torch.uint8).flatten()
print("24-bit bytes", packed.tolist())
trip = packed.view(-1, 3).to(torch.int32)
val = trip[:, 0] | (trip[:, 1] << 8) | (trip[:, 2] << 16)
val = torch.where(val >= 1 << 23, val - (1 << 24), val)
print("24-bit back", val.tolist(), torch.equal(val, s24), "as float", (val.float() / 2**23).round(decimals=4).tolist())

u8 = ((audio[0] * 128) + 128).clamp(0, 255).to(torch.uint8)
print("uint8 pcm", u8[:6].tolist(), u8.dtype, "back", ((u8.float() - 128) / 128)[:3].round(decimals=4).tolist())
print("uint8 arithmetic wraps", (u8[:3] + 200).tolist(), (u8[:3].int() + 200).tolist())

mu = 255
x = torch.linspace(-1, 1, 9)
enc = ((torch.sign(x) * torch.log1p(mu * x.abs()) / math.log1p(mu) + 1) / 2 * mu + 0.5).to(torch.int64)
dec = torch.sign(enc.float() / mu * 2 - 1) * (torch.pow(1 + mu, (enc.float() / mu * 2 - 1).abs()) - 1) / mu
print("mu-law", enc.tolist(), "decoded", dec.round(decimals=4).tolist())
f32 = torch.frombuffer(bytearray(struct.pack("<4f", 0.5, -0.25, 1e-3, 3.0)), dtype=torch.float32)
print("float32 pcm", f32.tolist(), "as int32 bits", f32.view(torch.int32).tolist())

feats = {"utt1": audio[:, :16].clone(), "len": torch.tensor(16), "sr": sr}
buf = io.BytesIO()
torch.save(feats, buf)
buf.seek(0)
back = torch.load(buf, weights_only=True)
print("saved", sorted(back), back["utt1"].shape, torch.equal(back["utt1"], feats["utt1"]), back["sr"])
for bad in (
    lambda: torch.frombuffer(bytearray(5), dtype=torch.int16),
    lambda: torch.frombuffer(bytearray(8), dtype=torch.int16, offset=10),
    lambda: torch.frombuffer(bytearray(8), dtype=torch.int16, count=5),
    lambda: torch.arange(5, dtype=torch.uint8).view(torch.int16),
    lambda: torch.tensor([1.5]).view(torch.int16),
):
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
