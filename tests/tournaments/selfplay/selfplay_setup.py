"""A small DealOrNoDeal self-play setup over the context-sensitive test backend
(:class:`arena.llm.fakes.context.ContextEngine`) against the concession rule bot."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import yaml

from arena.memory import Bank

SEED_INSIGHTS = (
    "Avoid walk_away: a deal beats no deal.",
    "Keep every message courteous.",
    "Prefer reject of every standing offer.",
)
STYLES = ("Be brief.", "Prefer accept.", "Prefer walk_away.", "Avoid reject.")


def seed_bank(path: Path) -> Path:
    bank = Bank(path)
    if bank.head()[0] == 0:
        for text in SEED_INSIGHTS:
            bank.add("dealornodeal", text)
    bank.close()
    return path


def raw_config(url: str, bank: Path | None, **change: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "name": "t",
        "game": "dealornodeal",
        "base": {
            "kind": "llm",
            "params": {"backend": {"base_url": url, "model": "scripted", "timeout_s": 30}},
        },
        "seed_context": {"bank": str(bank) if bank else None},
        "styles": list(STYLES),
        "population": 4,
        "elites": 1,
        "generations": 3,
        "operators": {"reflect": 1, "rewrite": 1, "crossover": 1, "restyle": 1},
        "reflector": "scripted:directives",
        "panel": [{"name": "bot", "kind": "rule"}],
        "units": {"train": 2, "select": 6, "gate": 12},
        "metric": "win",
        "concurrency": 4,
    }
    raw.update(change)
    return raw


def write_config(path: Path, raw: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return path


def small_config(url: str, bank: Path | None, **change: Any) -> dict[str, Any]:
    """A run of a few seconds: 3 candidates, 2 generations, a 4-seed gate."""
    return raw_config(
        url,
        bank,
        **{
            "population": 3,
            "generations": 2,
            "units": {"train": 1, "select": 2, "gate": 4},
            "gate": {"resamples": 200},
            **change,
        },
    )


def kill_when_recorded(proc: subprocess.Popen[str], matches: Path, n: int) -> None:
    """``kill -9`` the self-play process once ``matches`` holds ``n`` records (or after 240 s,
    so a run that never gets there still ends; the test's own checks then fail)."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if matches.exists() and len(list(matches.glob("*.jsonl"))) >= n:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
