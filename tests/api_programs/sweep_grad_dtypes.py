"""OpInfo-style sweep: gradients of unary, binary and reduction ops over floating and complex dtypes (grad dtype,
values), requires_grad on integer tensors, and mixed-dtype operands whose grads come back in each input's dtype."""

import math

import torch

FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64]


def short(d):
    return str(d).replace("torch.", "")


def rnd(v, nd=2):
    if isinstance(v, list):
        return [rnd(x, nd) for x in v]
    if isinstance(v, complex):
        return complex(rnd(v.real, nd), rnd(v.imag, nd))
    if isinstance(v, float):
        return v if not math.isfinite(v) else round(v, nd) + 0.0
    return v


def vals(t):
    """Rounded harder for float16 and left out for bfloat16: their last bits depend on the order of PyTorch's
    float32 steps."""
    if t.dtype == torch.bfloat16:
        return "~"
    return rnd(t.tolist(), 1 if t.dtype == torch.float16 else 2)


def report(label, fn):
    try:
        print(label, "->", fn())
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def leaf(dt, vals=(0.5, 1.5, 2.0)):
    return torch.tensor(list(vals), dtype=dt, requires_grad=True)


def grad_of(op, dt):
    x = leaf(dt)
    y = op(x)
    loss = y.abs().sum() if dt.is_complex else y.sum()
    loss.backward()
    return f"{short(y.dtype)} grad {short(x.grad.dtype)} {vals(x.grad)} fn={type(y.grad_fn).__name__}"


UNARY = {
    "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "sin": torch.sin, "tanh": torch.tanh,
    "sigmoid": torch.sigmoid, "reciprocal": torch.reciprocal, "square": torch.square, "abs": torch.abs,
    "neg": torch.neg, "pow2.5": lambda x: x**2.5, "rsqrt": torch.rsqrt, "erf": torch.erf, "atan": torch.atan,
    "relu": torch.relu, "floor": torch.floor, "sign": torch.sign, "clamp": lambda x: x.clamp(1.0, 1.8),
    "softmax": lambda x: torch.softmax(x, 0), "log_softmax": lambda x: torch.log_softmax(x, 0),
    "cumsum": lambda x: x.cumsum(0), "cumprod": lambda x: x.cumprod(0), "prod": lambda x: x.prod(),
    "norm": lambda x: x.norm(), "mean": lambda x: x.mean(), "std": lambda x: x.std(), "amax": lambda x: x.amax(),
    "logsumexp": lambda x: x.logsumexp(0), "flip": lambda x: x.flip(0), "where": lambda x: torch.where(x > 1, x, -x),
    "real": lambda x: torch.real(x), "angle": torch.angle, "conj": torch.conj, "to64": lambda x: x.to(torch.float64),
}
for name, op in UNARY.items():
    print("==", name)
    for dt in FLOATS:
        report(f"{name} {short(dt)}", lambda: grad_of(op, dt))

print("== binary ops: grads in each input's dtype")
BINARY = {
    "add": torch.add, "mul": torch.mul, "div": torch.div, "pow": torch.pow, "atan2": torch.atan2,
    "maximum": torch.maximum, "hypot": torch.hypot, "sub_alpha": lambda a, b: torch.sub(a, b, alpha=2),
}
for name, op in BINARY.items():
    for d1, d2 in [(torch.float32, torch.float32), (torch.float32, torch.float64), (torch.float16, torch.float32),
                   (torch.float64, torch.complex64), (torch.bfloat16, torch.float16)]:
        def run():
            a, b = leaf(d1), leaf(d2, (2.0, 0.5, 1.0))
            y = op(a, b)
            (y.abs() if y.dtype.is_complex else y).sum().backward()
            return (f"{short(y.dtype)} ga {short(a.grad.dtype)} {vals(a.grad)} "
                    f"gb {short(b.grad.dtype)} {vals(b.grad)}")
        report(f"{name} {short(d1)} {short(d2)}", run)

print("== broadcasting grads reduce to each input's shape")
for sa, sb in [((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2)), ((2, 3), (1, 1))]:
    def run():
        a = torch.ones(sa, requires_grad=True)
        b = torch.full(sb, 2.0, requires_grad=True)
        (a * b).sum().backward()
        ga, gb = a.grad, b.grad
        return f"ga {tuple(ga.shape)} {ga.flatten().tolist()} gb {tuple(gb.shape)} {gb.flatten().tolist()}"
    report(f"mul {sa} {sb}", run)

print("== requires_grad on other dtypes")
for dt in [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.complex64]:
    report(f"tensor requires_grad {short(dt)}", lambda: torch.zeros(2, dtype=dt, requires_grad=True).requires_grad)
    report(f"requires_grad_ {short(dt)}", lambda: torch.zeros(2, dtype=dt).requires_grad_().requires_grad)
    report(f"float op int {short(dt)}", lambda: (leaf(torch.float32) * torch.ones(3, dtype=dt)).grad_fn is not None)
report("argmax has no grad_fn", lambda: leaf(torch.float32).argmax().grad_fn)
report("int result of float leaf", lambda: leaf(torch.float32).long().requires_grad)
report("comparison result", lambda: (leaf(torch.float32) > 1).requires_grad)
report("backward on non-scalar", lambda: leaf(torch.float32).exp().backward())
report("backward twice",
       lambda: (lambda y: (y.backward(retain_graph=False), y.backward()))(leaf(torch.float32).exp().sum()))
report("grad of int output", lambda: torch.autograd.grad(leaf(torch.float32).sum().long(), []))
report("in-place on leaf", lambda: leaf(torch.float32).add_(1))
report("in-place on leaf under no_grad",
       lambda: (lambda x: (torch.no_grad().__enter__(), x.add_(1), x.requires_grad))(leaf(torch.float32))[2])
torch.set_grad_enabled(True)
