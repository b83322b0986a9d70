"""Evaluation code that mixes ndarrays and tensors without converting: `t * array` and `array + t` (numpy does
the work through __array__/__array_wrap__, so which type and dtype comes back?), comparisons, numpy ufuncs and
functions called on tensors (np.exp, np.clip, np.where, np.argmax), np.stack/np.concatenate of tensor lists,
np.testing and np.allclose on tensors, np.histogram/np.percentile of a tensor, and tensors indexed (and assigned)
by numpy ints, arrays, floats and lists of floats."""

import numpy as np
import torch

torch.set_printoptions(precision=4)


def kind(r):
    if isinstance(r, torch.Tensor):
        return f"Tensor[{str(r.dtype).replace('torch.', '')}]"
    if isinstance(r, np.ndarray | np.generic):
        return f"{type(r).__name__}[{r.dtype}]"
    return type(r).__name__


def rounded(v):
    if isinstance(v, list):
        return [rounded(e) for e in v]
    return round(v, 4) if isinstance(v, float) else v


def show(name, fn):
    try:
        r = fn()
        val = rounded(r.tolist() if hasattr(r, "tolist") else r)
        print(f"{name:<24} {kind(r):<18} {val}")
    except Exception as e:
        print(f"{name:<24} {type(e).__name__}: {str(e).splitlines()[0]}")


torch.manual_seed(0)
logits = torch.randn(6, 3)
labels = np.array([0, 2, 1, 1, 0, 2])
weights = np.linspace(0.5, 1.0, 6)  # float64
probs = torch.softmax(logits, dim=1)

print("-- operators between ndarray and tensor")
show("t * w[:,None]", lambda: probs * weights[:, None])
show("w[:,None] * t", lambda: weights[:, None] * probs)
show("t + f32 array", lambda: probs[:, 0] + weights.astype(np.float32))
show("f32 array + t", lambda: weights.astype(np.float32) + probs[:, 0])
show("int array + t", lambda: labels + probs[:, 0])
show("t - 0-d array", lambda: probs[:, 0] - np.array(0.5))
show("0-d array - t", lambda: np.array(0.5) - probs[:, 0])
show("t @ array", lambda: probs @ np.ones(3))
show("t == array", lambda: probs.argmax(1) == labels)
show("array == t", lambda: labels == probs.argmax(1))
show("t > array", lambda: probs[:, 0] > weights)
show("int t + array", lambda: torch.tensor([1, 2]) + np.array([1, 2], dtype=np.int32))
show("t += array", lambda: probs.clone().__iadd__(np.ones((6, 3))))
show("requires_grad * arr", lambda: torch.ones(2, requires_grad=True) * np.ones(2))
print("array priority", torch.Tensor.__array_priority__, type(probs.__array__()).__name__,
      probs.__array__(np.float64).dtype)

print("-- numpy functions on tensors")
show("np.exp", lambda: np.exp(logits[0]))
show("np.log1p", lambda: np.log1p(probs[0]))
show("np.clip", lambda: np.clip(logits[0], -0.5, 0.5))
show("np.maximum", lambda: np.maximum(logits[0], 0))
show("np.isnan", lambda: np.isnan(torch.tensor([1.0, float("nan")])))
show("np.argmax(t, 1)", lambda: np.argmax(probs, axis=1))
show("np.where(t>0)", lambda: np.where(logits[0] > 0, 1.0, 0.0))
show("np.sum(arr of t)", lambda: np.sum(probs.numpy()))
show("np.mean(list of t)", lambda: np.mean([torch.tensor(1.5), torch.tensor(2.5)]))
show("np.array(list of t)", lambda: np.array([torch.tensor(1.5), torch.tensor(2.5)]))
show("np.array(list of 1-d)", lambda: np.array([torch.ones(2), torch.zeros(2)]))
show("np.stack", lambda: np.stack([probs[0], probs[1]]))
show("np.concatenate", lambda: np.concatenate([logits[0], logits[1]]))
show("np.vstack mixed", lambda: np.vstack([logits[0], np.zeros(3)]))
show("torch.stack of arrays", lambda: torch.stack([torch.from_numpy(weights[:3]), torch.zeros(3, dtype=torch.float64)]))
show("np.dot", lambda: np.dot(probs[0], probs[1]))
show("np.round(t.numpy())", lambda: np.round(probs.numpy()[0], 2))
show("np.float32(t0)", lambda: np.float32(probs[0, 0]))
show("np.int64(t0)", lambda: np.int64(torch.tensor(5)))
show("np.shape(t)", lambda: np.shape(probs))
show("np.ndim(t)", lambda: np.ndim(probs))
show("np.argsort(t.numpy())", lambda: np.argsort(logits[0].numpy()))

print("-- metrics the numpy way")
pred = probs.argmax(1).numpy()
acc = (pred == labels).mean()
print("accuracy", kind(acc), round(float(acc), 4))
conf = np.zeros((3, 3), dtype=np.int64)
np.add.at(conf, (labels, pred), 1)
print("confusion", conf.tolist())
counts, edges = np.histogram(probs.max(1).values, bins=4, range=(0.0, 1.0))
print("histogram", counts.tolist(), edges.tolist())
print("percentile", round(float(np.percentile(logits.flatten(), 75)), 4),
      round(torch.quantile(logits.flatten(), 0.75).item(), 4))
print("allclose", np.allclose(probs.sum(1), 1.0), np.isclose(probs[0], probs[0].numpy()).tolist())
np.testing.assert_allclose(probs.sum(1), np.ones(6), rtol=1e-6)
np.testing.assert_array_equal(torch.arange(3), np.arange(3))
print("np.testing passed")
nll = -np.log(probs.numpy()[np.arange(6), labels])
print("nll numpy", round(float(nll.mean()), 4), "torch", round(torch.nn.functional.cross_entropy(
    logits, torch.from_numpy(labels)).item(), 4))

print("-- indexing tensors with numpy values")
x = torch.arange(10) * 10
show("np.int64", lambda: x[np.int64(3)])
show("np.int32 slice", lambda: x[np.int32(2):np.int64(5)])
show("int array", lambda: x[np.array([1, 4, 4])])
show("uint8 array", lambda: x[np.array([1, 0], dtype=np.uint8)])
show("bool array", lambda: x[np.arange(10) % 3 == 0])
show("0-d array", lambda: x[np.array(2)])
show("np.float64", lambda: x[np.float64(1.0)])
show("np.float32", lambda: x[np.float32(1.0)])
show("float array", lambda: x[np.array([1.0, 2.0])])
show("np.bool_", lambda: x[np.bool_(True)])
show("2-d index array", lambda: x.view(2, 5)[np.array([1, 0]), np.array([4, 0])])
y = torch.zeros(5)
y[np.array([0, 2])] = torch.tensor([1.5, 2.5])
y[np.int64(4)] = np.float64(9.25)
y[[3.0]] = 7
show("setitem numpy", lambda: y)
show("setitem np.float32", lambda: y.__setitem__(np.arange(5) == 1, np.float32(-1.0)))
show("setitem np.bool_", lambda: y.__setitem__(0, np.bool_(True)))
show("setitem float list", lambda: y.__setitem__([0.0, 1.0], 0.5))
show("after", lambda: y)
