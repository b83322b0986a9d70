"""torch.cuda.nvtx: PyTorch's return values (range depths and ids), without a device too."""

import ember.torch as torch


def test_ranges_report_their_depth():
    nvtx = torch.cuda.nvtx
    assert nvtx.range_push("outer") == 0 and nvtx.range_push("inner") == 1
    assert nvtx.range_pop() == 1 and nvtx.range_pop() == 0
    with nvtx.range("step {}", 3):
        assert nvtx.range_push("in block") == 1
        nvtx.range_pop()
    first, second = nvtx.range_start("a"), nvtx.range_start("b")
    assert second != first
    assert nvtx.range_end(first) is None and nvtx.mark("m") is None


def test_importable_under_pytorchs_path():
    import ember.torch.cuda.nvtx as nvtx

    assert nvtx is torch.cuda.nvtx
