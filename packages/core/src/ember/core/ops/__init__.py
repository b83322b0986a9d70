"""ember-core's ops: each module declares its primitives once and registers their CPU kernels."""
