"""Resuming a run: the config it was started with is the one it finishes with.

The config stored in the run's database is compared with the config to resume with (the file
given on the command line, else the run directory's ``config.yaml``, plus command-line
overrides). Any difference in what is played is refused with a unified diff unless forced;
``concurrency`` and ``output_dir`` may change freely (except ``concurrency`` for a
rating-driven run without an explicit ``batch``: the round size defaults to it).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml

from arena.errors import ConfigError
from arena.results import MatchSpec
from arena.store import Store
from tournaments.config import RUNTIME_FIELDS, RunConfig


def _played(config: dict[str, Any]) -> dict[str, Any]:
    normal = RunConfig.model_validate(config).model_dump(mode="json")
    runtime = set(RUNTIME_FIELDS)
    if normal["format"] == "rating_driven" and not (normal["rating_driven"] or {}).get("batch"):
        runtime.discard("concurrency")  # the round size defaults to it: it shapes the plan
    return {k: v for k, v in normal.items() if k not in runtime}


def config_diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Unified diff (YAML) of the parts of two configs that change what is played."""
    a = yaml.safe_dump(_played(old), sort_keys=True).splitlines()
    b = yaml.safe_dump(_played(new), sort_keys=True).splitlines()
    return list(difflib.unified_diff(a, b, "stored config", "new config", lineterm="", n=1))


def stored(run_dir: Path) -> dict[str, Any]:
    """The run id and config recorded in a run directory; ConfigError if it is not one."""
    db = run_dir / "arena.sqlite"
    if not db.exists():
        raise ConfigError([f"{run_dir}: not a run directory (no arena.sqlite, no config.yaml)"])
    store = Store(db)
    try:
        info = store.run_info()
    finally:
        store.close()
    if info is None:
        raise ConfigError([f"{run_dir}: not a run directory (no run recorded)"])
    return info


def check_resume(run_dir: Path, config: RunConfig, force: bool = False) -> tuple[str, list[str]]:
    """(run id, diff lines) for resuming ``run_dir`` with ``config``.

    Raises ConfigError carrying the diff when the config changed and ``force`` is not set.
    """
    if not (run_dir / "arena.sqlite").exists() and (run_dir / "config.yaml").exists():
        return run_dir.name, []  # killed before anything was planned: nothing to compare
    info = stored(run_dir)
    diff = config_diff(info["config"], config.model_dump(mode="json"))
    if diff and not force:
        raise ConfigError(
            [
                f"{run_dir}: the config differs from the one this run was started with; "
                "resume with the original config, or pass --force to replan the unfinished "
                "matches with the new one (finished matches are kept):\n" + "\n".join(diff)
            ]
        )
    return info["run_id"], diff


def adopt(run_dir: Path, run_id: str, config: RunConfig, specs: list[Any]) -> int:
    """After a forced resume: store the new config and replan the unfinished matches."""
    data = config.model_dump(mode="json")
    (run_dir / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    store = Store(run_dir / "arena.sqlite")
    try:
        store.set_config(run_id, data)
        return store.replan(specs)
    finally:
        store.close()


def stale_plan(run_dir: Path, specs: list[MatchSpec]) -> list[str]:
    """A problem when unfinished matches stored in ``run_dir`` are seated or seeded otherwise
    than ``specs`` plans them under the same ids: the run was planned by another version of
    the planner, and resuming would mix two plans ([] when the plans agree)."""
    if not (run_dir / "arena.sqlite").exists():
        return []  # killed before anything was planned
    planned = {s.match_id: s for s in specs}
    store = Store(run_dir / "arena.sqlite")
    try:
        pending = store.specs(pending=True)
    finally:
        store.close()
    moved = [
        old.match_id
        for old in pending
        if (new := planned.get(old.match_id)) is not None
        and (new.seed, new.seats) != (old.seed, old.seats)
    ]
    if not moved:
        return []
    return [
        f"{run_dir}: {len(moved)} unfinished match(es) ({', '.join(moved[:3])}"
        f"{', ...' if len(moved) > 3 else ''}) were planned with other seats or seeds than this "
        "version plans for the same config; pass --force to replan the unfinished matches "
        "(finished matches are kept), or start a new run"
    ]
