"""ember.jit: capture a function (a forward, or a whole training step) once, replay its kernels after.

`compile(fn)` returns a callable that runs `fn` eagerly until a call is captured (see
`config.capture_call`), then replays the captured plan: the device kernels in capture order,
without Python dispatch, hooks or the autograd engine. docs/compile.md explains the plan, the
guards, the graph breaks and what is not done yet.
"""

from __future__ import annotations

from ember.jit import config
from ember.jit.background import wait as wait_for_compiles
from ember.jit.capture import TorchDynamoException, Unsupported
from ember.jit.compiler import (CompiledFunction, CompiledModule, ExplainOutput, compile, explain, graph_break,
                                is_compiling, reset)

__all__ = ["compile", "explain", "reset", "is_compiling", "graph_break", "config", "Unsupported",
           "TorchDynamoException", "CompiledFunction", "CompiledModule", "ExplainOutput", "wait_for_compiles"]
