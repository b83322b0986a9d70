"""A minimal PNG encoder (8-bit grey, RGB or RGBA), so images need neither PIL nor PyTorch."""

from __future__ import annotations

import struct
import zlib

import numpy as np

__all__ = ["encode_png"]

_COLOR_TYPE = {1: 0, 3: 2, 4: 6}  # channels -> PNG colour type: grey, truecolour, truecolour + alpha


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(pixels: np.ndarray) -> bytes:
    """PNG bytes of a uint8 `(H, W, C)` array with C in 1, 3, 4."""
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] not in _COLOR_TYPE:
        raise ValueError(f"encode_png expects uint8 (H, W, 1|3|4) pixels; got {pixels.dtype} {pixels.shape}")
    height, width, channels = pixels.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPE[channels], 0, 0, 0)
    rows = np.concatenate([np.zeros((height, 1), np.uint8), pixels.reshape(height, width * channels)], axis=1)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
            + _chunk(b"IEND", b""))
