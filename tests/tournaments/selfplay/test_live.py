"""Every game a self-play run plays goes on the live bus, as `arena run`'s do: each event of
each record on its match's spectator topic (as ``rR-<episode>``), the streaming metrics on
theirs, and a retained status counting the run's games."""

from __future__ import annotations

import json
from pathlib import Path

from app.commands.selfplay import selfplay_live
from app.live import LiveOptions
from arena.live import topics
from arena.live.broker import EmbeddedBroker
from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from arena.sinks import read_jsonl
from tests.arena.live.helpers import Collector
from tests.tournaments.selfplay.selfplay_setup import seed_bank, small_config
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay
from tournaments.selfplay.live import selfplay_sinks


def _records(root: Path) -> dict[str, list[dict]]:  # type: ignore[type-arg]
    """Every game's record, by its live match id."""
    out = {}
    for path in sorted(root.glob("r*/g*/*/matches/*.jsonl")):
        repeat = path.relative_to(root).parts[0]
        live_id = f"{repeat}-{path.stem}"
        out[live_id] = [
            {**e.model_dump(mode="json"), "match_id": live_id} for e in read_jsonl(path)
        ]
    return out


async def test_a_selfplay_run_publishes_every_game_on_an_embedded_broker(tmp_path: Path) -> None:
    root = tmp_path / "sp"
    with ServerThread(ContextEngine(seed=1)) as server, EmbeddedBroker() as broker:
        raw = small_config(server.url, seed_bank(tmp_path / "seed.sqlite"), repeats=2)
        live = selfplay_live("sp", root, LiveOptions(broker=broker.url.public()))
        selfplay = SelfPlay(parse(raw), root, extra_sinks=selfplay_sinks(live, root))
        live.selfplay = selfplay
        async with Collector(broker.url.public(), topics.run_filter("sp")) as col:
            async with live:
                report = await selfplay.run()
            records = _records(root)
            n = sum(len(v) for v in records.values())
            await col.wait_for(
                lambda: sum(len(col.events(topics.god("sp", m))) for m in records) >= n
            )
            await col.wait_for(
                lambda: (col.last(topics.status("sp")) or {}).get("status") == "complete"
            )
            # the retained status and the event stream reach a subscriber on their own paths:
            # "complete" can arrive while the last metric events are still on their way
            metric_files = list(root.glob("r*/metrics/*.live.jsonl"))
            on_disk = sum(len(p.read_text().splitlines()) for p in metric_files)
            await col.wait_for(
                lambda: sum(len(col.events(topics.metrics("sp", m))) for m in records) >= on_disk
            )
    games = int(report["budget"]["total"]["games"])
    assert len(records) == games > 0
    assert {m.split("-")[0] for m in records} == {"r0", "r1"}  # both repeats, apart
    for match_id, events in records.items():
        assert col.events(topics.god("sp", match_id)) == events  # complete, in order
        summary = col.last(topics.summary("sp", match_id))
        assert summary is not None and summary["status"] == "finished"
    # the streaming metrics ran for the games and reached the bus too
    assert metric_files
    published = sum(len(col.events(topics.metrics("sp", m))) for m in records)
    assert published == on_disk > 0
    status = col.last(topics.status("sp"))
    assert status["done"] == games and status["total"] >= games
    assert status["selfplay"]["repeats"] == 2
    assert json.loads((root / "broker.json").read_text())["run_id"] == "sp"
    assert live.publisher.dropped == 0
