"""The shape and length mistakes TTS code makes, and what PyTorch says about each: channels-last mels into Conv1d,
(B, n_mels, T) into Linear, view after transpose, odd lengths through stride-2 convs and reduction factors, masks
that do not broadcast, length mismatches between predicted and target mels, negative padding that crops."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(14)
torch.set_printoptions(precision=4, sci_mode=False)
B, N_MELS, T = 2, 4, 9
mel = torch.randn(B, N_MELS, T)


def attempt(label, fn):
    try:
        out = fn()
        print(label, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except (RuntimeError, ValueError, IndexError, TypeError, AssertionError) as e:
        print(label, type(e).__name__, str(e).split("\n")[0])


conv = nn.Conv1d(N_MELS, 6, 3, padding=1)
attempt("conv channels-last", lambda: conv(mel.transpose(1, 2)))
attempt("conv 2-D input", lambda: conv(mel[0]))
attempt("conv 4-D input", lambda: conv(mel.unsqueeze(1)))
attempt("linear on (B, C, T)", lambda: nn.Linear(N_MELS, 3)(mel))
attempt("linear on (B, T, C)", lambda: nn.Linear(N_MELS, 3)(mel.transpose(1, 2)))
attempt("view after transpose", lambda: mel.transpose(1, 2).view(B, -1))
attempt("reshape after transpose", lambda: mel.transpose(1, 2).reshape(B, -1))
attempt("reduction factor 2 on T=9", lambda: mel.transpose(1, 2).contiguous().view(B, T // 2, -1))
attempt("pad to a multiple", lambda: F.pad(mel, (0, (-T) % 2)).transpose(1, 2).reshape(B, -1, 2 * N_MELS))
down = nn.Conv1d(N_MELS, N_MELS, 4, stride=2, padding=1)
up = nn.ConvTranspose1d(N_MELS, N_MELS, 4, stride=2, padding=1)
attempt("down-up odd length", lambda: up(down(mel)))
attempt("down-up with output_size", lambda: up(down(mel), output_size=[T]))
attempt("residual add mismatch", lambda: mel + up(down(mel)))
lengths = torch.tensor([9, 6])
mask = torch.arange(T)[None, :] < lengths[:, None]
attempt("mask (B, T) on (B, C, T)", lambda: mel.masked_fill(~mask, 0.0))
attempt("mask (B, 1, T)", lambda: mel.masked_fill(~mask.unsqueeze(1), 0.0))
attempt("mask wrong T", lambda: mel.masked_fill(~mask[:, None, :8], 0.0))
pred = torch.randn(B, N_MELS, T + 2, requires_grad=True)
with __import__("warnings").catch_warnings(record=True) as w:
    __import__("warnings").simplefilter("always")
    attempt("l1 length mismatch", lambda: F.l1_loss(pred, mel))
    attempt("mse broadcast (B,C,T) vs (B,1,T)", lambda: F.mse_loss(pred[:, :, :T], mel[:, :1]))
    print([str(x.message)[:80] for x in w])
attempt("crop with negative pad", lambda: F.pad(pred, (0, -2)).shape)
attempt("crop then loss", lambda: round(F.l1_loss(F.pad(pred, (0, -2)), mel).item(), 4))
attempt("negative pad too large", lambda: F.pad(pred, (0, -12)))
attempt("reflect pad negative", lambda: F.pad(mel, (-1, 2), mode="reflect"))
attempt("replicate pad on 2-D", lambda: F.pad(mel[0], (2, 2), mode="replicate"))
attempt("circular pad too wide", lambda: F.pad(mel, (10, 0), mode="circular"))
attempt("cat different T", lambda: torch.cat([mel, pred], dim=1))
attempt("stack different T", lambda: torch.stack([mel[0], pred[0]]))
attempt("lstm batch_first mismatch", lambda: nn.LSTM(N_MELS, 5)(mel.transpose(1, 2))[0])
attempt("lstm wrong features", lambda: nn.LSTM(N_MELS, 5, batch_first=True)(mel)[0])
attempt("embedding float ids", lambda: nn.Embedding(10, 3)(torch.tensor([1.0, 2.0])))
attempt("embedding out of range", lambda: nn.Embedding(10, 3)(torch.tensor([10])))
attempt("embedding padding_idx", lambda: nn.Embedding(10, 3, padding_idx=-1).padding_idx)
attempt("embedding padding_idx range", lambda: nn.Embedding(10, 3, padding_idx=10))
attempt("bmm attention wrong T", lambda: torch.bmm(torch.randn(B, 5, T), torch.randn(B, T - 1, 3)))
attempt("matmul broadcast", lambda: torch.matmul(torch.randn(B, 1, 5, T), torch.randn(3, T, 2)))
attempt("expand wrong", lambda: lengths.unsqueeze(1).expand(B, T, 1))
attempt("gather index dims", lambda: torch.gather(mel, 2, torch.zeros(B, T, dtype=torch.long)))
attempt("squeeze(1) no-op", lambda: mel.squeeze(1))
attempt("squeeze dims tuple", lambda: mel[:, :1, :1].squeeze((1, 2)))
attempt("unfold frames", lambda: mel.unfold(2, 4, 2))
attempt("unfold too large", lambda: mel.unfold(2, 10, 1))
attempt("narrow past end", lambda: mel.narrow(2, 6, 4))
attempt("chunk uneven", lambda: [c.shape[1] for c in mel.chunk(3, dim=1)])
attempt("tensor_split", lambda: [c.shape[2] for c in mel.tensor_split(4, dim=2)])
attempt("split size 0", lambda: mel.split(0, dim=1))
