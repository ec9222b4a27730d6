"""The two extra kinds of game a self-play generation may play beyond its units.

* **Replicates of flipped units** (``selection.replicates``): a select unit whose outcome
  differs between candidates (or between replicates) is the one that tells them apart; every
  candidate plays it again, the same deal with fresh agent seeds
  (:attr:`arena.results.MatchSpec.replicate`), at most ``selection.replicate_share`` of the
  generation's select games. Replicates are select games: rated, and averaged per unit in the
  gate's screen. Budget phase ``play``; directory ``gGGG/replicates``.
* **Prioritised replay** (``replay``): states drawn from the repeat's
  :class:`tournaments.selfplay.replay_buffer.ReplayBuffer` are played on from an engine restored from their
  snapshot. Replayed games are never rated nor gated; the reflector reads them beside the
  train games, and their outcomes update the buffer. Budget phase ``replay``; directory
  ``gGGG/replay``. Gate games never enter the buffer (the gate split is never shown to the
  reflector).

Both are pure functions of the config and the games on disk, in episode order, so a resumed
run schedules exactly the same games.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from arena.engine import RulesEngine
from arena.memory.trajectory import load_events
from arena.results import MatchResult
from arena.seeding import derive_seed
from arena.types import InvalidAction
from tournaments.selfplay.config import SelfPlayConfig
from tournaments.selfplay.phase import Job
from tournaments.selfplay.replay_buffer import ReplayBuffer, decisions_of, reach, restored
from tournaments.selfplay.state import Play, Played, RepeatState, score
from tournaments.selfplay.units import Unit, flipping, replicate_plan

REPLICATE_OFFSET = 2_000_000  # plan indices of replicates follow the generation's play games


def _won(res: MatchResult, unit: Unit) -> bool:
    return unit.seat < len(res.seats) and res.seats[unit.seat].result == "win"


async def replicate_flipped(
    config: SelfPlayConfig,
    play: Play,
    state: RepeatState,
    g: int,
    select: list[Unit],
    played: Played,
    gdir: Path,
) -> Played:
    """Every candidate plays the flipped select units again (bounded); [] when off."""
    cfg = config.selection
    if cfg.replicates <= 0:
        return []
    scores = [
        (e.unit.key, score(config.metric, res, e.unit))
        for e, res in played
        if res is not None and e.unit.split == "select"
    ]
    flipped = flipping(scores)
    max_units = int(cfg.replicate_share * len(select))  # x population = the games
    plan = replicate_plan(select, flipped, cfg.replicates, max_units)
    jobs = [Job(c, u, r) for u, r in plan for c in state.population]
    if not jobs:
        return []
    return await play(state, "play", g, jobs, gdir / "replicates", offset=REPLICATE_OFFSET)


def feed_buffer(
    config: SelfPlayConfig, state: RepeatState, batches: list[tuple[Played, Path]]
) -> None:
    """Offer the finished train/select games (in episode order) to the replay buffer."""
    cfg = config.replay
    if cfg.fraction <= 0:
        return
    if state.buffer is None:
        state.buffer = ReplayBuffer(cfg.buffer, cfg.rare, cfg.split, cfg.alpha)
    for played, run_dir in batches:
        for e, res in played:
            if res is None or res.status != "finished" or not res.jsonl:
                continue
            if e.unit.split not in ("train", "select"):
                continue
            steps = decisions_of(load_events(run_dir / res.jsonl))
            state.buffer.add_game(e.unit, steps, _won(res, e.unit))


async def replay_states(
    cfg: SelfPlayConfig, play: Play, state: RepeatState, g: int, play_games: int, gdir: Path
) -> Played:
    """Replay ``replay.fraction`` × ``play_games`` states drawn from the buffer, each from its
    restored snapshot, the population taking them in turn; [] when off or empty."""
    buffer = state.buffer
    n = cfg.replay.games(play_games)
    if buffer is None or not len(buffer) or n <= 0:
        return []
    rng = random.Random(derive_seed(cfg.master_seed, state.repeat, g, "replay"))
    jobs, prefixes = [], {}
    for j, st in enumerate(buffer.sample(n, rng)):
        try:
            blob = reach(cfg.game, cfg.rules, st.unit.seed, st.prefix).snapshot()
        except InvalidAction:  # a recorded action the engine no longer takes: skip the state
            continue
        candidate = state.population[j % len(state.population)]

        def start(blob: bytes = blob) -> RulesEngine[Any]:
            return restored(cfg.game, cfg.rules, blob)

        # the record starts at the restored state; the row says how it was reached
        note = {
            "prefix_key": st.key,
            "prefix": [list(step) for step in st.prefix],
            "seen": st.seen,
            "wins": st.wins,
        }
        jobs.append(Job(candidate, st.unit, j, start, note))
        prefixes[j] = st.prefix
    if not jobs:
        return []
    where = gdir / "replay"
    played = await play(state, "replay", g, jobs, where)
    for e, res in played:
        if res is None or res.status != "finished" or not res.jsonl:
            continue
        state.train_results.setdefault(e.candidate, []).append((e.unit, res, where))
        steps = [*prefixes[e.replicate], *decisions_of(load_events(where / res.jsonl))]
        buffer.add_game(e.unit, steps, _won(res, e.unit))
    return played


def replay_summary(state: RepeatState, replayed: Played) -> dict[str, Any] | None:
    """What generation.json says about replay (None when replay is off)."""
    if state.buffer is None:
        return None
    done = [(e, r) for e, r in replayed if r is not None and r.status == "finished"]
    wins = sum(_won(r, e.unit) for e, r in done)
    return {
        "games": len(done),
        "buffer": len(state.buffer),
        "win_rate": wins / len(done) if done else None,
    }
