"""Self-play machinery cost: per-game overhead of a self-play generation against playing the
same games with `arena run`, and games/s of a generation with the scripted (context-sensitive)
backend at a given concurrency.

    python bench/selfplay.py [--population 8] [--seeds 8] [--concurrency 32] [--blocks 3]
                             [--no-live]

Prints one JSON line per figure. Both arms take the default path of their command — every game
published on the live bus (an embedded broker each, seat streams on) and through the streaming
metrics — and play the same specs (same seeds, seats, agent entries) against the same loopback
server: the self-play arm is `SelfPlay.run` (preflight, bank, units, ratings, reports), the run
arm is what `arena run` does with a config of those entries and specs (preflight, the
tournament). The brokers start before and stop after the timed part (a fixed cost of both).
A warm-up run first (imports, the server), then ``--blocks`` blocks, each timing both arms in
alternating order; figures are medians over blocks, wall time and the process's CPU time
(the loopback server is a thread of this process: its CPU counts in both arms).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from arena.store import Store
from tournaments.config import RunConfig
from tournaments.executor import Tournament
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay

STYLES = ["Be brief.", "Avoid walk_away.", "Prefer accept.", "Avoid reject.", "Prefer propose."]


def emit(figure: str, value: float, **extra: object) -> None:
    print(json.dumps({"figure": figure, "value": round(value, 4), **extra}), flush=True)


def selfplay_config(url: str, args: argparse.Namespace) -> Any:
    return parse(
        {
            "name": "bench",
            "game": "dealornodeal",
            "base": {
                "kind": "llm",
                "params": {
                    "backend": {
                        "base_url": url,
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
    )


def _live(run_id: str, root: Path, enabled: bool, selfplay: bool = False) -> Any:
    if not enabled:
        return None
    if selfplay:
        from app.commands.selfplay import selfplay_live

        return selfplay_live(run_id, root)
    from app.live import LiveSession

    return LiveSession(run_id, root)


async def selfplay_arm(url: str, args: argparse.Namespace, root: Path) -> tuple[Any, float, float]:
    from tournaments.selfplay.live import selfplay_sinks

    live = _live(root.name, root, args.live, selfplay=True)
    selfplay = SelfPlay(
        selfplay_config(url, args), root, extra_sinks=selfplay_sinks(live, root, args.live)
    )
    if live is not None:
        live.selfplay = selfplay
        await live.open()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        report = await selfplay.run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        if live is not None:
            await live.close()
    return report, wall, cpu


async def run_arm(
    entries: list[dict[str, Any]], specs: list[Any], args: argparse.Namespace, root: Path
) -> tuple[int, float, float]:
    from app.commands.run import run_sinks

    run_config = RunConfig.model_validate(
        {
            "game": "dealornodeal",
            "agents": entries,
            "matches": 1,
            "concurrency": args.concurrency,
        }
    )
    metrics = None
    if args.live:
        from arena.metrics.stream import metrics_sink_factory

        metrics = metrics_sink_factory(root)
    live = _live("bench-run", root, args.live)
    tour = Tournament(run_config, root, "bench-run", extra_sinks=run_sinks(live, metrics))
    tour.specs = [s.model_copy(update={"run_id": "bench-run"}) for s in specs]
    tour.total = len(specs)
    if live is not None:
        await live.open()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        results = await tour.run()  # preflight included, as in `arena run`
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        if live is not None:
            await live.close()
    return len(results), wall, cpu


async def main(args: argparse.Namespace) -> None:
    import yaml

    with ServerThread(ContextEngine(seed=1)) as server, tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        # warm-up: imports, the server, the specs both arms play
        report, _, _ = await selfplay_arm(server.url, args, base / "warm")
        play = base / "warm" / "r0" / "g000" / "play"
        store = Store(play / "arena.sqlite")
        specs = store.specs()
        store.close()
        entries = yaml.safe_load((play / "config.yaml").read_text())["agents"]
        await run_arm(entries, specs, args, base / "warm-run")
        sp_wall, sp_cpu, run_wall, run_cpu, ratio, ratio_cpu = [], [], [], [], [], []
        games = int(report["budget"]["total"]["games"])
        for b in range(args.blocks):
            arms = ["run", "sp"] if b % 2 == 0 else ["sp", "run"]
            timing: dict[str, tuple[float, float, int]] = {}
            for arm in arms:
                where = base / f"{arm}{b}"
                if arm == "sp":
                    rep, wall, cpu = await selfplay_arm(server.url, args, where)
                    timing[arm] = (wall, cpu, int(rep["budget"]["total"]["games"]))
                else:
                    n, wall, cpu = await run_arm(entries, specs, args, where)
                    timing[arm] = (wall, cpu, n)
            (sw, sc, sn), (rw, rc, rn) = timing["sp"], timing["run"]
            sp_wall.append(sw / sn)
            sp_cpu.append(sc / sn)
            run_wall.append(rw / rn)
            run_cpu.append(rc / rn)
            ratio.append((sw / sn) / (rw / rn))
            ratio_cpu.append((sc / sn) / (rc / rn))
        med = statistics.median
        path = "default (live bus, seat streams, metrics)" if args.live else "no live, no metrics"
        emit("selfplay_s_per_game", med(sp_wall), games=games, path=path)
        emit("run_s_per_game", med(run_wall), games=len(specs), path=path)
        emit(
            "selfplay_vs_run_per_game",
            med(ratio),
            target="<= 1.1",
            blocks=[round(r, 3) for r in ratio],
        )
        emit(
            "selfplay_vs_run_cpu_per_game", med(ratio_cpu), blocks=[round(r, 3) for r in ratio_cpu]
        )
        emit("selfplay_games_per_s", 1 / med(sp_wall), concurrency=args.concurrency)
        emit("load_average_1min", os.getloadavg()[0], cpus=os.cpu_count())


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--population", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--blocks", type=int, default=3)
    ap.add_argument(
        "--no-live", dest="live", action="store_false", help="no live bus and no metrics"
    )
    asyncio.run(main(ap.parse_args()))
