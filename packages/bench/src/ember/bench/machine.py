"""What the numbers were measured on: ember-core's environment report, plus the comparison
frameworks' versions and a one-line BLAS summary for the tables (with the kernels OpenBLAS runs: a machine whose
`OPENBLAS_CORETYPE` names an older core runs GEMMs at a fraction of its CPU's speed)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ember.core.env_info import collect_env

__all__ = ["describe_machine", "machine_line"]


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def describe_machine() -> dict:
    env = collect_env()
    blas = [f"{p['internal_api']} {p['version']}{' ' + p['architecture'] if p.get('architecture') else ''} "
            f"({p['num_threads']} threads)"
            for p in env["threads"]["pools"] if p["user_api"] == "blas"]
    return {
        "cpu": env["cpu"]["model"],
        "cores": env["cpu"]["logical_cores"],
        "platform": env["platform"],
        "python": env["python"],
        "blas": ", ".join(blas) or "unknown",
        "versions": {**env["ember"], **env["versions"], "torch": _version("torch")},
        "environment": env,
    }


def machine_line() -> str:
    """One line under a table: the CPU, its cores and the BLAS kernels the numbers were measured with."""
    m = describe_machine()
    torch = m["versions"].get("torch")
    return (f"Measured on {m['cpu'] or 'an unknown CPU'} ({m['cores']} logical cores); BLAS: {m['blas']}"
            + (f"; torch {torch}" if torch else "") + ".")
