"""Common mistakes raise PyTorch 2.13's exception type and exact message (`str(e)`, which programs print), with
no op-name prefix or detail of ember's own: each case runs on PyTorch and on ember's torch tree and compares."""

import pytest

import ember.torch as et


def _cases(t):
    x, y = t.zeros(2, 3), t.zeros(2, 3, 4)
    i, F = t.zeros(2, 3, dtype=t.int64), t.nn.functional
    mask = t.zeros(3, 2, dtype=t.bool)
    return {
        # the dim-wrapping message, bare, whichever op wraps the dim
        "sum": lambda: x.sum(5), "mean": lambda: x.mean(-3), "softmax": lambda: t.softmax(x, 5),
        "log_softmax": lambda: F.log_softmax(x, 2), "squeeze": lambda: x.squeeze(5),
        "unsqueeze": lambda: x.unsqueeze(4),
        "transpose": lambda: x.transpose(0, 3), "cat": lambda: t.cat([x, x], 2), "stack": lambda: t.stack([x, x], 4),
        "flatten": lambda: x.flatten(0, 5), "cumsum": lambda: x.cumsum(3), "argmax": lambda: x.argmax(3),
        "narrow": lambda: x.narrow(3, 0, 1), "select": lambda: x.select(3, 0), "gather": lambda: x.gather(3, i),
        "max": lambda: x.max(3), "std": lambda: x.std(3), "topk": lambda: x.topk(1, 3), "sort": lambda: x.sort(3),
        "chunk": lambda: x.chunk(2, 3), "index_select": lambda: x.index_select(3, t.tensor([0])),
        "glu": lambda: F.glu(x, 3), "glu_scalar": lambda: F.glu(t.tensor(1.0)),
        "normalize": lambda: F.normalize(x, dim=3), "cross": lambda: t.cross(t.zeros(3, 3), t.zeros(3, 3), dim=5),
        "sum_tuple": lambda: x.sum((0, 5)), "scalar_sum": lambda: t.tensor(1.0).sum(1),
        "scalar_chunk": lambda: t.tensor(1.0).chunk(1, 0),
        # shape checks worded as PyTorch's
        "bmm": lambda: t.bmm(x, x), "bmm2": lambda: t.bmm(y, x), "embedding": lambda: F.embedding(i, t.zeros(3)),
        "linear_3d_weight": lambda: F.linear(x, y), "outer_self": lambda: t.outer(x, t.zeros(3)),
        "outer_vec2": lambda: t.outer(t.zeros(3), x), "interpolate_2d": lambda: F.interpolate(x, scale_factor=2),
        # broadcasts and expands name the last dim that differs, operands in PyTorch's order
        "masked_fill": lambda: x.masked_fill(mask, 1), "masked_fill_": lambda: x.masked_fill_(mask, 1),
        "masked_select": lambda: x.masked_select(mask), "masked_scatter": lambda: x.masked_scatter(mask, t.zeros(6)),
        "masked_scatter_": lambda: x.masked_scatter_(mask, t.zeros(6)), "expand": lambda: x.expand(4, 2, 4),
        # creation
        "zeros_negative": lambda: t.zeros(2, -3), "ones_negative": lambda: t.ones(2, -3),
        "arange_inf": lambda: t.arange(0, float("inf")), "arange_nan_step": lambda: t.arange(0, 10, float("nan")),
        "arange_past_int64": lambda: t.arange(2**62, 2**63), "device": lambda: t.zeros(1, device="tpu"),
        "ragged_after_empty": lambda: (tuple(t.tensor([[], [1]]).shape), str(t.tensor([[], [1]]).dtype)),
        "ragged": lambda: t.tensor([[1], []]),
    }


def _outcome(fn):
    try:
        return "ok", repr(fn()).replace("ember.", "torch.")
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", list(_cases(et)))
def test_error_message_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    assert _outcome(_cases(et)[name]) == _outcome(_cases(torch)[name])
