"""Self-play machinery cost: per-game overhead of a self-play generation against playing the
same games with the tournament executor `arena run` uses, and games/s of a generation with the
scripted (context-sensitive) backend at a given concurrency.

    python bench/selfplay.py [--population 8] [--seeds 8] [--concurrency 32]

Prints one JSON line per figure. Both arms play the same specs (same seeds, seats, agent
entries) against the same loopback server; the ratio is (self-play s/game) / (run s/game).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.llm.server import ServerThread
from arena.selfplay.config import parse
from arena.selfplay.engine import ContextEngine
from arena.store import Store
from tournaments.config import RunConfig
from tournaments.executor import Tournament
from tournaments.selfplay import SelfPlay

STYLES = ["Be brief.", "Avoid walk_away.", "Prefer accept.", "Avoid reject.", "Prefer propose."]


def emit(figure: str, value: float, **extra: object) -> None:
    print(json.dumps({"figure": figure, "value": round(value, 4), **extra}), flush=True)


async def main(args: argparse.Namespace) -> None:
    with ServerThread(ContextEngine(seed=1)) as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        raw = {
            "name": "bench",
            "game": "dealornodeal",
            "base": {
                "kind": "llm",
                "params": {
                    "backend": {
                        "base_url": server.url,
                        "model": "scripted",
                        "concurrency": args.concurrency,
                    }
                },
            },
            "styles": STYLES,
            "population": args.population,
            "elites": 1,
            "generations": 1,
            "operators": {"restyle": 1},
            "panel": [{"name": "bot", "kind": "rule"}],
            "units": {"train": 1, "select": args.seeds, "gate": 2},
            "concurrency": args.concurrency,
            "gate": {"resamples": 200},
        }
        config = parse(raw)
        t = time.perf_counter()
        report = await SelfPlay(config, root / "sp").run()
        sp_s = time.perf_counter() - t
        games = int(report["budget"]["total"]["games"])
        # the same play-phase games through the executor alone
        play = root / "sp" / "r0" / "g000" / "play"
        store = Store(play / "arena.sqlite")
        specs = store.specs()
        store.close()
        import yaml

        entries = yaml.safe_load((play / "config.yaml").read_text())["agents"]
        run_config = RunConfig.model_validate(
            {
                "game": "dealornodeal",
                "agents": entries,
                "matches": 1,
                "concurrency": args.concurrency,
            }
        )
        tour = Tournament(run_config, root / "run", "bench-run")
        tour.specs = [s.model_copy(update={"run_id": "bench-run"}) for s in specs]
        tour.total = len(specs)
        t = time.perf_counter()
        await tour.run()
        run_s = time.perf_counter() - t
        per_sp, per_run = sp_s / max(1, games), run_s / max(1, len(specs))
        emit("selfplay_s_per_game", per_sp, games=games)
        emit("run_s_per_game", per_run, games=len(specs))
        emit("selfplay_vs_run_per_game", per_sp / per_run, target="<= 1.1")
        emit("selfplay_games_per_s", games / sp_s, concurrency=args.concurrency)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--population", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--concurrency", type=int, default=32)
    asyncio.run(main(ap.parse_args()))
