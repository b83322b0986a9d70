"""The mistakes an OCR pipeline makes, printed in PyTorch's words: CRNN features whose height was not collapsed,
permute and flip called as functions with varargs or an int, a recogniser's hidden state in float64 against float32
weights, CTC targets and lengths that disagree, grid_sample grids of the wrong shape, pads larger than the image,
clipping non-finite gradients, mixed bmm shapes in attention, and packing lengths that are not sorted."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

F = torch.nn.functional

torch.manual_seed(0)
feat = torch.randn(2, 8, 2, 10)  # (N, C, H', W') with H' = 2: the backbone did not reduce the height to 1
x = torch.arange(6).view(2, 3)


def attempt(label, fn):
    try:
        out = fn()
        print(label, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(label, type(e).__name__, e)


attempt("squeeze keeps H'=2", lambda: feat.squeeze(2).permute(2, 0, 1))
attempt("lstm on 4-D", lambda: nn.LSTM(8, 4)(feat.permute(3, 0, 1, 2)))
attempt("flatten instead", lambda: nn.LSTM(16, 4)(feat.flatten(1, 2).permute(2, 0, 1))[0])
attempt("torch.permute varargs", lambda: torch.permute(x, 1, 0))
attempt("torch.permute int", lambda: torch.permute(x, 1))
attempt("torch.permute tuple", lambda: torch.permute(x, (1, 0)))
attempt("torch.flip int", lambda: torch.flip(x, 1))
attempt("torch.flip dims kw int", lambda: torch.flip(x, dims=1))
attempt("x.flip varargs", lambda: x.flip(1))
attempt("x.flip dims kw int", lambda: x.flip(dims=1))
attempt("torch.reshape varargs", lambda: torch.reshape(x, 3, 2))
attempt("torch.tile int", lambda: torch.tile(x, 2))
attempt("x.tile kw", lambda: x.tile(dims=(2, 1)))
attempt("x.tile float", lambda: x.tile(1.5, 1))
attempt("x.tile no dims", lambda: x.tile())
attempt("x.flip tensor dim", lambda: x.flip(torch.tensor(1)))
attempt("torch.flip ndarray", lambda: torch.flip(x, torch.tensor([1]).numpy()))

cell = nn.GRUCell(4, 3)
attempt("gru hidden float64", lambda: cell(torch.randn(2, 4), torch.zeros(2, 3, dtype=torch.float64)))
attempt(
    "lstm hidden float64", lambda: nn.LSTMCell(4, 3)(torch.randn(2, 4), (torch.zeros(2, 3).double(), torch.zeros(2, 3)))
)
attempt("gru input float64", lambda: cell(torch.randn(2, 4).double()))
attempt("gru no bias float64 h", lambda: nn.GRUCell(4, 3, bias=False)(torch.randn(2, 4), torch.zeros(2, 3).double()))

lp = torch.randn(10, 2, 5).log_softmax(2)
attempt(
    "ctc lengths too long",
    lambda: F.ctc_loss(lp, torch.tensor([[1, 2, 3], [1, 1, 0]]), torch.tensor([10, 10]), torch.tensor([3, 4])),
)
attempt(
    "ctc batch-first log_probs",
    lambda: F.ctc_loss(
        lp.transpose(0, 1), torch.tensor([[1, 2], [3, 4]]), torch.tensor([10, 10]), torch.tensor([2, 2])
    ),
)
attempt("ctc 2-D log_probs with batch targets", lambda: F.ctc_loss(lp[:, 0], torch.tensor([[1, 2]]), [10], [2]))
attempt(
    "ctc input length 0",
    lambda: F.ctc_loss(
        lp, torch.tensor([[1, 2], [3, 4]]), torch.tensor([0, 10]), torch.tensor([2, 2]), reduction="none"
    ),
)
img = torch.rand(2, 1, 8, 16)
attempt(
    "grid from theta 3x3", lambda: F.affine_grid(torch.eye(3)[None].repeat(2, 1, 1), img.shape, align_corners=False)
)
attempt("grid batch mismatch", lambda: F.grid_sample(img, torch.zeros(3, 4, 4, 2), align_corners=False))
attempt("grid 5-D for 4-D", lambda: F.grid_sample(img, torch.zeros(2, 1, 4, 4, 3), align_corners=False))
attempt("reflect pad too big", lambda: F.pad(img, (0, 20), mode="reflect"))
attempt("replicate pad 1-D", lambda: F.pad(torch.ones(5), (1, 1), mode="replicate"))
attempt("interpolate size 3 for 4-D", lambda: F.interpolate(img, size=(4, 8, 2)))
enc = torch.randn(2, 7, 6)
attempt("bmm attention wrong dims", lambda: torch.bmm(torch.randn(2, 1, 7), enc.transpose(1, 2)))
attempt("bmm 2-D", lambda: torch.bmm(torch.randn(1, 7), enc[0]))
attempt("masked_fill float mask", lambda: torch.randn(2, 7).masked_fill(torch.ones(2, 7), float("-inf")))
attempt(
    "packing unsorted", lambda: pack_padded_sequence(torch.randn(3, 5, 2), torch.tensor([2, 5, 3]), batch_first=True)
)
model = nn.Linear(3, 2)
model(torch.tensor([[float("nan"), 1.0, 2.0]])).sum().backward()
attempt("clip nan", lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True))
attempt("topk k too big", lambda: torch.randn(5, 4).topk(6, dim=1))
attempt("unique_consecutive dim out of range", lambda: torch.unique_consecutive(x, dim=3))
attempt(
    "cross_entropy target 3-D", lambda: F.cross_entropy(torch.randn(2, 5, 4), torch.zeros(2, 4, 1, dtype=torch.long))
)
