"""In-place ops, out= and .to() as buffer-reusing code meets them: which dtypes they accept, copy and alias rules."""

import torch


def attempt(tag, fn):
    try:
        res = fn()
        if isinstance(res, torch.Tensor):
            print(f"{tag:<28}", res.tolist(), str(res.dtype).replace("torch.", ""))
        else:
            print(f"{tag:<28}", res)
    except (RuntimeError, TypeError) as e:
        print(f"{tag:<28}", type(e).__name__ + ":", e)


def ints():
    return torch.tensor([1, 2, 3])


def halves():
    return torch.tensor([1.0, 2.0, 3.0], dtype=torch.float16)


# in-place: result dtype must be castable to self's dtype
attempt("int += 1", lambda: ints().add_(1))
attempt("int += 1.5", lambda: ints().add_(1.5))
attempt("int *= float tensor", lambda: ints().mul_(torch.tensor([2.0, 2.0, 2.0])))
attempt("int /= 2", lambda: ints().div_(2))
attempt("int div_ trunc", lambda: ints().div_(2, rounding_mode="trunc"))
attempt("float += int", lambda: torch.tensor([1.0, 2.0, 3.0]).add_(ints()))
attempt("f16 += f64 tensor", lambda: halves().add_(torch.tensor([0.5, 0.5, 0.5], dtype=torch.float64)))
attempt("f32 += c64", lambda: torch.tensor([1.0]).add_(torch.tensor([1j])))
attempt("bool |= bool", lambda: torch.tensor([True, False]).logical_or_(torch.tensor([False, False])))
attempt("bool += 1", lambda: torch.tensor([True, False]).add_(1))
attempt("u8 += -1", lambda: torch.tensor([0, 5], dtype=torch.uint8).add_(-1))
attempt("i8 += i64 tensor", lambda: torch.tensor([1, 2], dtype=torch.int8).add_(torch.tensor([300, 1])))
attempt("int.sqrt_", lambda: ints().sqrt_())
attempt("int.exp_", lambda: ints().exp_())
attempt("int.sigmoid_", lambda: ints().sigmoid_())
attempt("int.clamp_(0.5, 2.5)", lambda: ints().clamp_(0.5, 2.5))
attempt("int.pow_(2)", lambda: ints().pow_(2))
attempt("int.pow_(0.5)", lambda: ints().pow_(0.5))
attempt("float.pow_(int tensor)", lambda: torch.tensor([2.0, 3.0]).pow_(torch.tensor([2, 3])))
attempt("int.neg_", lambda: ints().neg_())
attempt("int.abs_", lambda: torch.tensor([-3, 3]).abs_())
attempt("int.floor_", lambda: ints().floor_())
attempt("int.fill_(2.7)", lambda: ints().fill_(2.7))
attempt("int.copy_(float)", lambda: ints().copy_(torch.tensor([1.9, -1.9, 2.5])))
attempt("int.masked_fill_(1.5)", lambda: ints().masked_fill_(torch.tensor([True, False, True]), 1.5))
attempt("int[0] = 7.9", lambda: (lambda t: (t.__setitem__(0, 7.9), t)[1])(ints()))
attempt("int.index_add_ float", lambda: ints().index_add_(0, torch.tensor([0]), torch.tensor([1.0])))
attempt("int.scatter_add_ float", lambda: ints().scatter_add_(0, torch.tensor([0]), torch.tensor([1.0])))
attempt("int.lerp_", lambda: ints().lerp_(ints(), 0.5))
attempt("f32.addcmul_ ints", lambda: torch.zeros(3).addcmul_(ints(), ints(), value=0.5))
# in-place that would broadcast self
attempt("broadcast self", lambda: torch.zeros(3).add_(torch.ones(2, 3)))

# out=: out may be wider, not narrower in category; mismatched shapes are resized with a warning
out_f64 = torch.empty(3, dtype=torch.float64)
attempt("add out=f64", lambda: torch.add(torch.tensor([1.0, 2.0, 3.0]), 1, out=out_f64))
attempt("add ints out=f32", lambda: torch.add(ints(), ints(), out=torch.empty(3)))
attempt("add floats out=int", lambda: torch.add(torch.ones(3), 1, out=torch.empty(3, dtype=torch.long)))
attempt("div ints out=int", lambda: torch.div(ints(), 2, out=torch.empty(3, dtype=torch.long)))
attempt("div floor out=int", lambda: torch.div(ints(), 2, rounding_mode="floor", out=torch.empty(3, dtype=torch.long)))
attempt("sum out=f64", lambda: torch.sum(torch.ones(2, 3), 1, out=torch.empty(2, dtype=torch.float64)))
attempt("sum ints out=f32", lambda: torch.sum(torch.ones(2, 3, dtype=torch.long), 1, out=torch.empty(2)))
attempt("mean out=int", lambda: torch.mean(torch.ones(2, 3), 1, out=torch.empty(2, dtype=torch.long)))
attempt("eq out=f32", lambda: torch.eq(ints(), 2, out=torch.empty(3)))
attempt("gt out=int", lambda: torch.gt(ints(), 1, out=torch.empty(3, dtype=torch.long)))
attempt("argmax out=f32", lambda: torch.argmax(torch.ones(2, 3), 1, out=torch.empty(2)))
out_22 = torch.empty(2, 2, dtype=torch.float64)
attempt("matmul out=f64", lambda: torch.matmul(torch.ones(2, 2), torch.ones(2, 2), out=out_22))
attempt("cat out=f64", lambda: torch.cat([ints(), ints()], out=torch.empty(6, dtype=torch.float64)))
attempt("abs complex out=c64", lambda: torch.abs(torch.tensor([3 + 4j]), out=torch.empty(1, dtype=torch.complex64)))
attempt("exp out=f16", lambda: torch.exp(torch.zeros(2), out=torch.empty(2, dtype=torch.float16)))
attempt("sqrt int out=int", lambda: torch.sqrt(ints(), out=torch.empty(3, dtype=torch.long)))
buf = torch.empty(3)
res = torch.mul(torch.ones(3), 4, out=buf)
print("out is returned", res is buf, buf.tolist())

# .to(): same dtype returns self, copy=True forces a copy; non_blocking is accepted on CPU
t = torch.arange(4, dtype=torch.float32)
print("to same is self", t.to(torch.float32) is t, t.to("cpu") is t, t.to(t) is t)
print("to copy", t.to(torch.float32, copy=True) is t, t.to(torch.float64).data_ptr() != t.data_ptr())
print("to non_blocking", t.to(torch.int32, non_blocking=True).tolist(), t.to("cpu", non_blocking=True) is t)
print("to other tensor", t.to(torch.tensor([1], dtype=torch.int8)).dtype)
print("type()", t.type(), t.type(torch.int16).dtype, t.type("torch.DoubleTensor").dtype)
print("type_as", t.type_as(ints()).dtype, t.double().float().dtype)
c = t.to(torch.int64)
c[0] = 99
print("cast copy independent", t[0].item(), c[0].item())
v = t.view(torch.int32)
print("view as int32 bits", v.tolist()[:2], v.dtype, v.data_ptr() == t.data_ptr())
print("view f32 as u8 shape", t.view(torch.uint8).shape)
attempt("view f32 as f64 odd", lambda: torch.zeros(3).view(torch.float64))
print("to memory_format", torch.ones(1, 2, 2, 2).to(memory_format=torch.channels_last).stride())
attempt("to bad dtype arg", lambda: t.to("float32"))
print("element_size", [torch.empty(0, dtype=d).element_size() for d in (torch.bool, torch.int16, torch.complex128)])
