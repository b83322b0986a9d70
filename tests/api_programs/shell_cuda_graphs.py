"""Inference and training code with a CUDA-graph fast path, as serving stacks write it: capture guarded by
`torch.cuda.is_available()`, an eager fallback on the CPU, and what the graph API does on a machine without CUDA."""
import torch
from torch.cuda import graphs as cuda_graphs

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def attempt(label, fn):
    try:
        out = fn()
        print(label, "->", out)
    except Exception as e:
        print(label, "->", type(e).__name__, e)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 16)
        self.mlp = nn.Sequential(nn.Linear(16, 32), nn.SiLU(), nn.Linear(32, 20))

    def forward(self, tokens):
        return self.mlp(self.embed(tokens)).log_softmax(-1)


class GraphRunner:
    """Replays a captured decode step on CUDA; runs the module eagerly elsewhere."""

    def __init__(self, model, batch):
        self.model = model
        self.graph = None
        if torch.cuda.is_available():
            self.static_in = torch.zeros(batch, dtype=torch.long, device="cuda")
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph, pool=torch.cuda.graph_pool_handle()):
                self.static_out = model(self.static_in)

    def __call__(self, tokens):
        if self.graph is None:
            return self.model(tokens)
        self.static_in.copy_(tokens)
        self.graph.replay()
        return self.static_out.clone()


model = Decoder().eval()
runner = GraphRunner(model, batch=4)
print("graph captured:", runner.graph is not None)
tokens = torch.tensor([1, 5, 7, 3])
with torch.no_grad():
    for step in range(3):
        logp = runner(tokens)
        tokens = logp.argmax(-1)
        print("step", step, tokens.tolist(), round(logp.max(-1).values.sum().item(), 4))

step_fn = model
if torch.cuda.is_available():
    step_fn = torch.cuda.make_graphed_callables(model, (torch.zeros(4, dtype=torch.long, device="cuda"),))
out = step_fn(torch.tensor([2, 4, 6, 8]))
print("graphed or eager:", tuple(out.shape), round(out.exp().sum().item(), 4))

print("-- the API on this machine")
print("names:", [n for n in cuda_graphs.__all__])
print("same objects:", torch.cuda.CUDAGraph is cuda_graphs.CUDAGraph, torch.cuda.graph is cuda_graphs.graph)
print("is a class:", isinstance(torch.cuda.CUDAGraph, type), isinstance(torch.cuda.graph, type))
print("default capture stream:", torch.cuda.graph.default_capture_stream)
attempt("CUDAGraph()", lambda: torch.cuda.CUDAGraph())
attempt("CUDAGraph(keep_graph=True)", lambda: torch.cuda.CUDAGraph(keep_graph=True))
attempt("graph_pool_handle()", lambda: torch.cuda.graph_pool_handle())
attempt("graph(None)", lambda: torch.cuda.graph(None))
attempt("is_current_stream_capturing()", lambda: torch.cuda.is_current_stream_capturing())
attempt("make_graphed_callables(module)", lambda: torch.cuda.make_graphed_callables(model, (torch.zeros(4).long(),)))
attempt("make_graphed_callables(fn)", lambda: torch.cuda.make_graphed_callables(lambda x: x * 2, (torch.ones(2),)))
attempt("non-tensor sample", lambda: torch.cuda.make_graphed_callables(model, (torch.zeros(2).long(), 3)))
hooked = Decoder()
hooked.register_forward_hook(lambda mod, inp, out: None)
attempt("module with hooks", lambda: torch.cuda.make_graphed_callables(hooked, (torch.zeros(2).long(),)))
with torch.autocast("cpu"):
    attempt("under autocast", lambda: torch.cuda.make_graphed_callables(model, (torch.zeros(2).long(),)))
