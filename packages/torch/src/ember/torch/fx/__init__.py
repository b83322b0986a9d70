"""`torch.fx`: symbolic tracing of modules into a graph IR, the graph's Python code generation, and the
passes over it (Interpreter, Transformer, subgraph rewriting, shape propagation), as PyTorch's.

`symbolic_trace(module)` runs `forward` on Proxies (ember.torch.fx.proxy) and returns a GraphModule
whose `.graph` lists the calls (ember.torch.fx.graph, .node) and whose `forward` is the code generated
from it (ember.torch.fx.graph_module). `torch.fx.experimental` is not provided.
"""

from ember.torch.fx import immutable_collections, node, passes  # noqa: F401 - torch.fx's submodules
from ember.torch.fx._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from ember.torch.fx.graph import Graph
from ember.torch.fx.graph_module import GraphModule
from ember.torch.fx.interpreter import Interpreter, Transformer
from ember.torch.fx.node import Node, has_side_effect, map_arg
from ember.torch.fx.proxy import Proxy
from ember.torch.fx.subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node",
           "Proxy", "replace_pattern", "has_side_effect", "map_arg", "PH"]
