"""Tensors inside Python's string formatting as training scripts log them: format specs on 0-dim tensors
(f-strings, str.format, %-formatting) and the TypeError for multi-element ones, str/repr inside containers,
float()/int()/item()/tolist() before printing, numpy conversions printed by numpy (array2string, round),
and a logger that formats a running average the way users write it."""

import contextlib
import io

import numpy as np
import torch

torch.manual_seed(0)
x = torch.randn(3)
print(f"{x[0]:.3f}", f"{x[0].item():.3f}", "{:.2e}".format(x[1]), "%.3f" % x[0], "%d" % torch.tensor(5))  # noqa: UP031, UP032
print("%s" % x, "%r" % (x,), "%5.1f|" % torch.tensor(2.25), "{:>12.4f}|".format(torch.tensor(-1.5)))  # noqa: UP031, UP032
print(f"{torch.tensor(7):<5d}|", f"{torch.tensor(0.5):%}", f"{torch.tensor(1234567.0):,.1f}", f"{torch.tensor(3):b}")
print(f"{torch.tensor(255):#x}", f"{torch.tensor(True)}", f"{torch.tensor(2.5, dtype=torch.float64):.1f}")
print(f"{torch.tensor(1.5).half():.2f}", f"{torch.tensor(1.5).bfloat16():.2f}", f"{torch.tensor(-0.0):+.2f}")
for spec in ["", ".2f", "10", "e", "g", ".3g", "<8", "^9.1f"]:
    try:
        print(spec, repr(format(torch.tensor(3.14159), spec)))
    except (TypeError, ValueError) as e:
        print(spec, type(e).__name__, e)
cases = [torch.tensor([1.0]), torch.tensor([[2.0]]), torch.ones(2), torch.tensor(1 + 2j), torch.tensor([1, 2]),
         torch.tensor(3), torch.tensor(False), torch.empty(0)]
for t in cases:
    for spec in ["", ".2f", "d"]:
        try:
            print(tuple(t.shape), spec, repr(format(t, spec)))
        except (TypeError, ValueError) as e:
            print(tuple(t.shape), spec, type(e).__name__, e)

print(float(torch.tensor([2.5])), int(torch.tensor([[3]])), complex(torch.tensor(1 + 1j)), bool(torch.tensor([0.0])))
print(x.tolist(), torch.tensor(2.5).item(), type(torch.tensor(3).item()).__name__, type(x.sum().item()).__name__)
print(x.numpy(), x.numpy().dtype, x.double().numpy(), torch.arange(4).numpy().dtype)
print(str(x.numpy().round(3)), np.array2string(x.numpy(), precision=2, separator=", "), np.round(x.numpy(), 2).tolist())
print(np.asarray(torch.arange(3)), np.float32(torch.tensor(2.5)), np.array(torch.eye(2)).sum())
print(torch.tensor(np.float32(1.5)), torch.tensor(np.int16(3)), torch.tensor([np.float64(1.0), 2]))
print(torch.from_numpy(np.array([1, 2], dtype=np.int32)), torch.from_numpy(np.array(True)))
print(torch.from_numpy(np.zeros((2, 0))), torch.from_numpy(np.array([1.5], dtype=np.float16)))
print(torch.from_numpy(np.array([1 + 1j], dtype=np.complex128)), torch.as_tensor(np.arange(3.0)))
print(str(torch.tensor([1.0, 2.0])), repr(torch.tensor(3)), "x=" + str(torch.tensor(1.0)))
print("loss: {}".format(torch.tensor(0.12345)), "loss: %s" % torch.tensor(0.5), f"{torch.tensor([1, 2])!s}")  # noqa: UP031, UP032
print([torch.tensor(1.0), torch.tensor(2)], (torch.ones(1),), {"a": torch.zeros(2)}, {torch.tensor(1).item(): 2})
print({"w": torch.randn(2, 2), "b": torch.zeros(2, dtype=torch.float64)})
print(torch.tensor([1.0, 2.0]).__str__(), torch.tensor(1.0).__repr__(), "{0} {0!r}".format(torch.tensor([1])))
print(repr(torch.tensor([0.1, 0.2]).numpy()), repr(torch.tensor([1, 2]).numpy()), repr(torch.tensor([True]).numpy()))
print(x.numpy().tolist() == x.tolist(), list(x), list(torch.tensor([[1, 2], [3, 4]])))
print(*torch.tensor([1.5, 2.5]), sep=" | ")
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    print(torch.eye(2))
print(buf.getvalue().splitlines(), len(buf.getvalue()))
print(str(torch.arange(6).reshape(2, 3)).replace("\n", "\\n"))
print(repr(str(torch.tensor([[1.5], [2.5]], requires_grad=True))))


class AverageMeter:
    """The meter from the ImageNet example, fed tensors and printed with format specs."""

    def __init__(self, name, fmt=":f"):
        self.name, self.fmt = name, fmt
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        return ("{name} {val" + self.fmt + "} ({avg" + self.fmt + "})").format(**self.__dict__)


losses, top1 = AverageMeter("Loss", ":.4e"), AverageMeter("Acc@1", ":6.2f")
w = torch.randn(4, 3, requires_grad=True)
for step in range(4):
    inp, target = torch.randn(8, 4), torch.randint(0, 3, (8,))
    out = inp @ w
    loss = torch.nn.functional.cross_entropy(out, target)
    acc = (out.argmax(1) == target).float().mean() * 100
    losses.update(loss.item(), inp.size(0))
    top1.update(acc, inp.size(0))
    print(f"[{step}/4]", losses, top1, f"lr {1e-3 * 0.5 ** step:.2e}", "grad", type(top1.avg).__name__)
print(f"final {top1.avg:.3f}", f"{losses.avg:.4f}", torch.tensor(losses.avg), top1.avg)
print("epoch %d: loss=%.4f acc=%.2f%%" % (torch.tensor(3), torch.tensor(losses.avg), top1.avg))  # noqa: UP031, UP032
