"""torch.utils.flop_counter.FlopCounterMode and torch.utils.module_tracker.ModuleTracker: PyTorch's counts per ATen
op and per module, forward and backward (the numbers are PyTorch 2.13's, checked against it where installed)."""

import pytest

import ember.torch as torch
import ember.torch.nn as nn
import ember.torch.nn.functional as F
from ember.torch.utils.flop_counter import FlopCounterMode
from ember.torch.utils.module_tracker import ModuleTracker


def _counts(fc):
    return {mod: {str(op): n for op, n in ops.items()} for mod, ops in fc.get_flop_counts().items()}


def _model():
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 5 * 5, 6),
                         nn.Linear(6, 2, bias=False))


def test_counts_forward_and_backward_per_module():
    m = _model()
    x = torch.randn(2, 3, 5, 5, requires_grad=True)
    with FlopCounterMode(display=False) as fc:
        y = m(x)
        assert fc.get_total_flops() == 13248
        y.sum().backward()
    assert fc.get_total_flops() == 39744
    counts = _counts(fc)
    assert counts["Global"] == counts["Sequential"] == {"aten.convolution": 10800, "aten.addmm": 2400,
                                                         "aten.mm": 4944, "aten.convolution_backward": 21600}
    assert counts["Sequential.0"] == {"aten.convolution": 10800, "aten.convolution_backward": 21600}
    assert counts["Sequential.3"] == {"aten.addmm": 2400, "aten.mm": 4800}
    assert counts["Sequential.4"] == {"aten.mm": 144}
    op = next(iter(fc.get_flop_counts()["Global"]))
    assert type(op).__name__ == "OpOverloadPacket" and repr(op) == "<OpOverloadPacket(op='aten.convolution')>"


@pytest.mark.parametrize("case, want", [
    ("einsum2", {"aten.bmm": 720}),
    ("einsum3", {"aten.bmm": 180}),
    ("conv_transpose", {"aten.convolution": 1728, "aten.convolution_backward": 3456}),
    ("conv_groups", {"aten.convolution": 3888, "aten.convolution_backward": 11664}),
    ("conv_weight_only", {"aten.convolution": 13824, "aten.convolution_backward": 13824}),
    ("conv1d", {"aten.convolution": 288, "aten.convolution_backward": 576}),
    ("linear_strided", {"aten.bmm": 240}),
    ("linear_vector", {"aten.addmm": 40}),
    ("matmul", {"aten.mm": 720}),
    ("sdpa_flash", {}),
    ("sdpa_3d", {"aten.bmm": 864}),
    ("keywords", {"aten.addmm": 168}),
    ("bilinear", {}),
    ("mixed", {"aten.mm": 528, "aten.bmm": 480, "aten.addmm": 408, "aten.baddbmm": 240, "aten.convolution": 1944}),
])
def test_ops_read_as_pytorchs(case, want):
    def r(*s, grad=False):
        return torch.randn(*s).requires_grad_(grad)

    a = r(2, 3, 4)
    cases = {
        "einsum2": lambda: torch.einsum("bij,bjk->bik", r(2, 3, 4, grad=True), r(2, 4, 5, grad=True)).sum().backward(),
        "einsum3": lambda: torch.einsum("ij,jk,kl->il", r(3, 4), r(4, 5), r(5, 2)),
        "conv_transpose": lambda: F.conv_transpose2d(r(1, 3, 4, 4, grad=True), r(3, 2, 3, 3, grad=True),
                                                     stride=2).sum().backward(),
        "conv_groups": lambda: F.conv2d(r(2, 4, 6, 6, grad=True), r(6, 2, 3, 3, grad=True), groups=2, stride=2,
                                        padding=1).sum().backward(),
        "conv_weight_only": lambda: F.conv2d(r(2, 4, 6, 6), r(6, 4, 3, 3, grad=True)).sum().backward(),
        "conv1d": lambda: F.conv1d(r(1, 3, 8, grad=True), r(2, 3, 3, grad=True), padding=1).sum().backward(),
        "linear_strided": lambda: F.linear(r(4, 3, 2).transpose(0, 1), r(5, 2), r(5)),
        "linear_vector": lambda: F.linear(r(4), r(5, 4), r(5)),
        "matmul": lambda: (r(2, 3, 4, grad=True) @ r(4, 5, grad=True)).sum().backward(),
        "sdpa_flash": lambda: F.scaled_dot_product_attention(*(r(1, 2, 3, 4, grad=True) for _ in range(3))
                                                             ).sum().backward(),
        "sdpa_3d": lambda: F.scaled_dot_product_attention(*(r(2, 3, 4, grad=True) for _ in range(3))).sum().backward(),
        "keywords": lambda: (F.linear(input=r(2, 3), weight=r(4, 3), bias=r(4)),
                             torch.addmm(input=r(5), mat1=r(3, 4), mat2=r(4, 5)),
                             F.scaled_dot_product_attention(query=r(1, 2, 3, 4), key=r(1, 2, 3, 4),
                                                            value=r(1, 2, 3, 4))),
        "bilinear": lambda: F.bilinear(r(2, 3, grad=True), r(2, 4, grad=True), r(5, 3, 4, grad=True)).sum().backward(),
        "mixed": lambda: (a @ r(4, 5), torch.matmul(a, r(2, 4, 5)), torch.einsum("bij,bjk->bik", a, r(2, 4, 5)),
                          F.linear(a, r(6, 4), r(6)), F.linear(a, r(6, 4)), torch.baddbmm(r(2, 3, 5), a, r(2, 4, 5)),
                          torch.addmm(r(3, 5), r(3, 4), r(4, 5)), F.conv_transpose2d(r(1, 3, 4, 4), r(3, 2, 3, 3)),
                          F.conv1d(r(1, 3, 8), r(2, 3, 3))),
    }
    with FlopCounterMode(display=False) as fc:
        cases[case]()
    assert _counts(fc).get("Global", {}) == want


def test_display_needs_tabulate_and_mods_warns():
    try:
        import tabulate  # noqa: F401
    except ImportError:
        with pytest.raises(ModuleNotFoundError, match="tabulate"):
            with FlopCounterMode():
                F.linear(torch.randn(2, 3), torch.randn(4, 3))
    with pytest.warns(UserWarning, match="mods argument is not needed anymore"):
        FlopCounterMode(nn.Linear(2, 2), display=False)


def test_module_tracker_parents_forward_and_backward():
    m = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
    seen = []
    with ModuleTracker() as tracker:
        m[1][1].register_forward_pre_hook(lambda mod, i: seen.append(sorted(tracker.parents)))
        m[1][1].register_forward_hook(lambda mod, i, o: seen.append(sorted(tracker.parents)))
        m[1][1].weight.register_hook(lambda g: seen.append((tracker.is_bw, sorted(tracker.parents))))
        y = m(torch.randn(4, 2))
        assert tracker.parents == {"Global"}
        y.sum().backward()
        assert tracker.is_bw is False and tracker.parents == {"Global"}
    inner = ["Global", "Sequential", "Sequential.1", "Sequential.1.1"]
    assert seen == [inner, inner[:3], (True, inner)]


def test_matches_pytorch():
    real = pytest.importorskip("torch")
    from torch.utils.flop_counter import FlopCounterMode as RealCounter

    if real is torch:
        pytest.skip("the runner maps torch to ember")
    m = _model()
    rm = real.nn.Sequential(real.nn.Conv2d(3, 4, 3, padding=1), real.nn.ReLU(), real.nn.Flatten(),
                            real.nn.Linear(4 * 5 * 5, 6), real.nn.Linear(6, 2, bias=False))
    with FlopCounterMode(display=False) as fc:
        m(torch.randn(2, 3, 5, 5, requires_grad=True)).sum().backward()
    with RealCounter(display=False) as rfc:
        rm(real.randn(2, 3, 5, 5, requires_grad=True)).sum().backward()
    assert _counts(fc) == _counts(rfc)
