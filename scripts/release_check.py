"""Separate versions that mean something: fail when a package changed without a version bump.

A version is released once its CHANGELOG.md heading (`## 0.2.0`) no longer says `(unreleased)`.
For every `packages/<layer>`:
- it is released and its shipped files changed since the commit that released it (the newest that
  touched its `version =` line or that heading) -> it needs a new version and entry;
- its CHANGELOG.md has no entry for its current version;
- its `__version__` differs from its pyproject's version;
- it declares a range of a lower ember layer that excludes that layer's version in this tree.

Run by `nox -s release_check` (from the repository root): `python scripts/release_check.py [ROOT]`.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

# what a release ships: a change here means the package's users get different code or metadata
SHIPPED = ("src", "pyproject.toml", "README.md")


@dataclass
class Package:
    folder: Path
    name: str
    version: str
    requires: list[Requirement]


def read_packages(root: Path) -> list[Package]:
    found = []
    for pyproject in sorted(root.glob("packages/*/pyproject.toml")):
        meta = tomllib.loads(pyproject.read_text())["project"]
        found.append(Package(pyproject.parent, meta["name"], meta["version"],
                             [Requirement(r) for r in meta.get("dependencies", [])]))
    return found


def _git(root: Path, *args: str, check: bool = True):
    """git's output; with `check=False`, whether it exited 0."""
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=check)
    return done.stdout if check else done.returncode == 0


def version_commit(root: Path, pkg: Package) -> str | None:
    """The release commit: the newest that touched the pyproject's `version = ` line or the
    CHANGELOG heading of the current version (where `(unreleased)` was dropped)."""
    shas = []
    for name, pattern in (("pyproject.toml", r"^version\s*="),
                          ("CHANGELOG.md", rf"^##\s+{re.escape(pkg.version)}\b")):
        rel = (pkg.folder / name).relative_to(root)
        sha = _git(root, "log", "-1", "--format=%H", "-G", pattern, "--", str(rel)).strip()
        if sha:
            shas.append(sha)
    if not shas:
        return None
    if len(shas) == 1:
        return shas[0]
    newer = _git(root, "merge-base", "--is-ancestor", shas[0], shas[1], check=False)
    return shas[1] if newer else shas[0]


def changed_since(root: Path, pkg: Package, sha: str) -> list[str]:
    """Shipped files that differ between `sha` and the working tree (commits and uncommitted edits)."""
    rel = pkg.folder.relative_to(root)
    paths = [str(rel / p) for p in SHIPPED]
    out = _git(root, "diff", "--name-only", sha, "--", *paths)
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "--", *paths)
    return sorted({line for line in (out + untracked).splitlines() if line and "__pycache__" not in line})


def problems(root: Path) -> list[str]:
    root = root.resolve()
    pkgs = read_packages(root)
    versions = {p.name: Version(p.version) for p in pkgs}
    shallow = _git(root, "rev-parse", "--is-shallow-repository").strip() == "true"
    found = []
    for pkg in pkgs:
        label = f"{pkg.name} {pkg.version}"
        changelog = pkg.folder / "CHANGELOG.md"
        heading = re.compile(rf"^##\s+{re.escape(pkg.version)}\b.*$", re.M)
        entry = heading.search(changelog.read_text()) if changelog.exists() else None
        if entry is None:
            found.append(f"{label}: CHANGELOG.md has no '## {pkg.version}' entry")
        for init in pkg.folder.glob("src/ember/*/__init__.py"):
            m = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', init.read_text(), re.M)
            if m and m.group(1) != pkg.version:
                found.append(f"{label}: {init.relative_to(root)} says __version__ = {m.group(1)!r}")
        for req in pkg.requires:
            if req.name in versions and versions[req.name] not in req.specifier:
                found.append(f"{label}: requires {req}, but this tree holds {req.name} {versions[req.name]}")
        if shallow or (entry is not None and "(unreleased)" in entry.group(0)):
            continue  # changes accumulate under an unreleased entry
        sha = version_commit(root, pkg)
        if sha is None:
            continue  # never committed: nothing released to compare against
        changed = changed_since(root, pkg, sha)
        if changed:
            more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
            found.append(f"{label}: {len(changed)} shipped file(s) changed since {sha[:10]} set this version "
                         f"({', '.join(changed[:3])}{more}); bump the version and add a CHANGELOG entry")
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    if _git(root, "rev-parse", "--is-shallow-repository").strip() == "true":
        print("release_check: shallow clone, so source changes since each version are not checked")
    found = problems(root)
    for line in found:
        print(f"release_check: {line}")
    if not found:
        print(f"release_check: {len(read_packages(root.resolve()))} packages, each at a version covering its sources")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
