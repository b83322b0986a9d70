"""ember-core's ops: each module declares its primitives once and registers their CPU kernels."""

__all__: list[str] = []  # the ops live in the submodules; ember.core exports them
