"""Which dtype each everyday op returns for integer, bool and complex inputs, and which refuse them."""

import torch

torch.set_printoptions(precision=4)


def attempt(tag, fn):
    try:
        res = fn()
        if isinstance(res, torch.Tensor):
            vals = res.tolist()
            if res.is_floating_point():
                vals = [round(v, 4) for v in res.reshape(-1).tolist()]
            print(f"{tag:<26}", vals, str(res.dtype).replace("torch.", ""))
        else:
            print(f"{tag:<26}", res)
    except (RuntimeError, TypeError, ValueError) as e:
        print(f"{tag:<26}", type(e).__name__ + ":", e)


i = torch.tensor([-3, 0, 2, 5])
i8 = torch.tensor([-3, 0, 2, 5], dtype=torch.int8)
u8 = torch.tensor([3, 0, 2, 5], dtype=torch.uint8)
bl = torch.tensor([True, False, True, True])
f = torch.tensor([-1.5, 0.0, 2.0, 4.0])
c = torch.tensor([1 + 1j, -2j, 3 + 0j, 0j])

# unary float functions on integers promote to the default float
for name in ("sin", "exp", "sqrt", "log1p", "sigmoid", "erf", "rsqrt", "reciprocal"):
    attempt(f"{name}(int8)", lambda n=name: getattr(torch, n)(i8))
attempt("tanh(bool)", lambda: torch.tanh(bl))
attempt("exp2(uint8)", lambda: torch.exp2(u8))
# integer-preserving unary ops
for name in ("abs", "neg", "sign", "square", "floor", "round", "trunc"):
    attempt(f"{name}(int8)", lambda n=name: getattr(torch, n)(i8))
attempt("abs(int8 min)", lambda: torch.abs(torch.tensor([-128], dtype=torch.int8)))
attempt("sign(bool)", lambda: torch.sign(bl))
attempt("sgn(complex)", lambda: torch.sgn(c))
attempt("sign(complex)", lambda: torch.sign(c))
attempt("angle(int)", lambda: torch.angle(i))
attempt("angle(float)", lambda: torch.angle(f))
attempt("real(int)", lambda: torch.real(i))
attempt("imag(float)", lambda: torch.imag(f))
attempt("conj(int) is self", lambda: torch.conj(i) is i)
attempt("abs(complex)", lambda: torch.abs(c))
attempt("square(bool)", lambda: torch.square(bl))

# binary: pow, atan2, maximum, clamp
attempt("int ** 2", lambda: i ** 2)
attempt("int ** -1", lambda: i ** -1)
attempt("int ** 0.5", lambda: i.abs() ** 0.5)
attempt("2 ** int", lambda: 2 ** i.clamp(min=0))
attempt("2.0 ** int", lambda: 2.0 ** i)
attempt("int ** int tensor neg", lambda: torch.tensor([2, 2]) ** torch.tensor([-1, 3]))
attempt("pow(u8, 3)", lambda: torch.pow(u8, 3))
attempt("pow(int8, f16 0-dim)", lambda: torch.pow(i8, torch.tensor(2.0, dtype=torch.float16)))
attempt("atan2 ints", lambda: torch.atan2(i, torch.tensor([1, 1, 1, 1])))
attempt("hypot ints", lambda: torch.hypot(i, i))
attempt("maximum i8,u8", lambda: torch.maximum(i8, u8))
attempt("maximum int,float", lambda: torch.maximum(i, f))
attempt("max(int, dim) values", lambda: torch.max(i8.view(2, 2), 1).values)
attempt("clamp int by float", lambda: torch.clamp(i, min=0.5))
attempt("clamp int by int", lambda: torch.clamp(i, 0, 3))
attempt("clamp int by tensor", lambda: torch.clamp(i, min=torch.tensor([0.5, 0.5, 0.5, 0.5])))
attempt("copysign ints", lambda: torch.copysign(i, -1))
attempt("logaddexp int", lambda: torch.logaddexp(i, i))
attempt("lerp float by int", lambda: torch.lerp(f, torch.ones(4), 0.5))
attempt("addcdiv ints", lambda: torch.addcdiv(i, i, i))
attempt("addcdiv f,i,i", lambda: torch.addcdiv(f, i, torch.tensor([1, 1, 1, 1])))
attempt("gcd/lcm", lambda: torch.stack([torch.gcd(i, torch.tensor(6)), torch.lcm(i, torch.tensor(4))]))
attempt("gcd float", lambda: torch.gcd(f, f))
attempt("xlogy int", lambda: torch.xlogy(i, 2))
attempt("complex * int", lambda: c * i)
attempt("complex < complex", lambda: c < c)
attempt("complex max", lambda: c.max())
attempt("complex sort", lambda: torch.sort(c))
attempt("isclose int/float", lambda: torch.isclose(i, i.float()))
attempt("allclose int/float", lambda: torch.allclose(i, i.float()))
attempt("equal int/float", lambda: torch.equal(i, i.float()))
attempt("eq int/float", lambda: i == i.double())

# reductions
attempt("sum(bool)", lambda: bl.sum())
attempt("prod(bool)", lambda: bl.prod())
attempt("cumsum(bool)", lambda: bl.cumsum(0))
attempt("cumprod(u8)", lambda: u8.cumprod(0))
attempt("sum(u8)", lambda: u8.sum())
attempt("sum(i8, dtype=f16)", lambda: i8.sum(dtype=torch.float16))
attempt("mean(int)", lambda: i.mean())
attempt("mean(int, dtype=f64)", lambda: i.mean(dtype=torch.float64))
attempt("std(int)", lambda: i.std())
attempt("var(f) ", lambda: f.var())
attempt("median(int)", lambda: i.median())
attempt("quantile(int)", lambda: torch.quantile(i, 0.5))
attempt("norm(int)", lambda: i.norm())
attempt("norm(complex)", lambda: c.norm())
attempt("amax(bool)", lambda: bl.amax())
attempt("argmax(bool)", lambda: bl.argmax())
attempt("any/all(int)", lambda: [i.any().item(), i.all().item(), i.any().dtype, u8.all().dtype])
attempt("count_nonzero(f)", lambda: torch.count_nonzero(f))
attempt("logsumexp(int)", lambda: torch.logsumexp(i, 0))
attempt("softmax(int)", lambda: torch.softmax(i, 0))
attempt("softmax(int, dtype)", lambda: torch.softmax(i, 0, dtype=torch.float32))
attempt("histc(int)", lambda: torch.histc(i))
attempt("bincount(u8)", lambda: torch.bincount(u8))
attempt("bincount weights f64", lambda: torch.bincount(u8, weights=torch.ones(4, dtype=torch.float64)))
attempt("bincount float", lambda: torch.bincount(f))
attempt("unique(i8)", lambda: torch.unique(i8))
attempt("sort(u8) desc", lambda: torch.sort(u8, descending=True).values)
attempt("topk(bool)", lambda: torch.topk(bl.to(torch.uint8), 2).indices)
attempt("dot int", lambda: torch.dot(i, i))
attempt("dot int/float", lambda: torch.dot(i, f))
attempt("matmul int", lambda: i.view(2, 2) @ i.view(2, 2))
attempt("mv i8", lambda: torch.mv(i8.view(2, 2), i8[:2]))
attempt("outer i8 u8", lambda: torch.outer(i8[:2], u8[:2]))
attempt("einsum int", lambda: torch.einsum("i,i->", i, i))
attempt("cross i8", lambda: torch.linalg.cross(i8[:3], u8[:3]))
attempt("linalg.norm int", lambda: torch.linalg.norm(i))
attempt("inverse int", lambda: torch.linalg.inv(torch.eye(2, dtype=torch.long)))
attempt("det f16", lambda: torch.linalg.det(torch.eye(2, dtype=torch.float16)))
