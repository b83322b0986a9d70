"""`torch.random`: the default generator's seeding and state, and `fork_rng` (ember.core.random's)."""

from ember.core.random import default_generator, fork_rng, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng", "default_generator"]
