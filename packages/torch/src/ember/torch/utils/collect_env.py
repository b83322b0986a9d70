"""`python -m torch.utils.collect_env`: the environment a bug report needs (ember-core's report)."""

from ember.core.env_info import collect_env, get_pretty_env_info, main

__all__ = ["collect_env", "get_pretty_env_info", "main"]

if __name__ == "__main__":
    main()
