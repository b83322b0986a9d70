"""`torch.cuda.graphs`: importable, and refusing to make a graph with PyTorch's errors of a build without CUDA
graphs."""

import pytest

import ember.torch as torch

nn = torch.nn


def test_names_live_in_torch_cuda_and_its_graphs_module():
    for name in ("CUDAGraph", "graph", "make_graphed_callables", "graph_pool_handle", "is_current_stream_capturing"):
        assert getattr(torch.cuda, name) is getattr(torch.cuda.graphs, name)


def test_constructing_a_graph_is_refused():
    with pytest.raises(RuntimeError, match="^Tried to instantiate dummy base class CUDAGraph$"):
        torch.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="^Tried to instantiate dummy base class _graph_pool_handle$"):
        torch.cuda.graph_pool_handle()


@pytest.mark.skipif(torch.cuda.is_available(), reason="PyTorch's errors of a machine without CUDA")
def test_capture_without_cuda_fails_as_pytorchs_cpu_build():
    with pytest.raises(RuntimeError, match="^torch.cuda.Stream requires CUDA support$"):
        torch.cuda.graph(None)
    with pytest.raises(RuntimeError, match="^Tried to instantiate dummy base class _cuda_isCurrentStreamCapturing$"):
        torch.cuda.is_current_stream_capturing()


def test_make_graphed_callables_checks_its_arguments_before_refusing():
    m = nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="sample_args for each callable must contain only Tensors"):
        torch.cuda.make_graphed_callables(m, (torch.randn(1, 2), 3))
    m.register_forward_hook(lambda *a: None)
    with pytest.raises(AssertionError, match="^Modules must not have hooks registered"):
        torch.cuda.make_graphed_callables(m, (torch.randn(1, 2),))
    with pytest.raises(RuntimeError, match="^Tried to instantiate dummy base class CUDAGraph$"):
        torch.cuda.make_graphed_callables((nn.Linear(2, 2), lambda x: x), ((torch.randn(1, 2),), (torch.ones(1),)))
