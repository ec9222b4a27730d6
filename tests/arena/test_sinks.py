"""Optional sinks never break a match; the JSONL record stays complete."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.events import Event
from arena.sinks import GuardedSink, JsonlSink, read_jsonl
from tests.tournaments.test_executor import make_config
from tournaments.executor import Tournament


class Exploding:
    def __init__(self) -> None:
        self.seen = 0

    def write(self, event: Event) -> None:
        self.seen += 1
        if self.seen == 3:
            raise OSError("broker went away")

    def close(self) -> None:
        raise OSError("still gone")


def test_guarded_sink_switches_off_after_the_first_error(capsys) -> None:  # type: ignore[no-untyped-def]
    inner = Exploding()
    guarded = GuardedSink(inner)
    for seq in range(5):
        guarded.write(Event(type="x", seq=seq, match_id="m"))
    guarded.close()
    assert inner.seen == 3 and guarded.dropped == 3 and guarded.failed
    assert "broker went away" in capsys.readouterr().err


def test_a_failing_extra_sink_does_not_lose_matches(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, matches=4)
    t = Tournament(cfg, tmp_path / "run", "run", extra_sinks=lambda spec: [Exploding()])
    results = asyncio.run(t.run())
    assert [r.status for r in results] == ["finished"] * 4
    for r in results:
        events = list(read_jsonl(tmp_path / "run" / r.jsonl))  # type: ignore[operator]
        assert events[-1].type == "match_end" and len(events) == r.n_events


def _record(tmp_path: Path, n: int) -> tuple[Path, list[str]]:
    lines = [
        Event(match_id="m", seq=i, type="say", phase="day").model_dump_json() for i in range(n)
    ]
    return tmp_path / "m.jsonl", lines


def test_read_jsonl_skips_only_a_bad_last_line(tmp_path: Path) -> None:
    path, lines = _record(tmp_path, 4)
    path.write_text("\n".join(lines) + "\n" + lines[0][:9] + "\n\n", encoding="utf-8")
    assert [e.seq for e in read_jsonl(path)] == [0, 1, 2, 3]


def test_read_jsonl_names_a_bad_line_before_the_end(tmp_path: Path) -> None:
    import pytest

    from arena.sinks import RecordError

    path, lines = _record(tmp_path, 4)
    lines[1] = '{"not": "an event"}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    events = read_jsonl(path)
    assert next(events).seq == 0
    with pytest.raises(RecordError, match=r"m\.jsonl:2: not an event"):
        next(events)


def test_a_jsonl_record_is_on_disk_before_the_match_waits(tmp_path: Path) -> None:
    """Events written in one burst are flushed together, but before the loop runs anything
    else: a reader tailing the file (the TUI on a run directory) sees every event of a
    decision while the match waits on its next agent; synchronous writers flush at once."""
    path = tmp_path / "m.jsonl"

    def lines() -> int:
        return len(path.read_text(encoding="utf-8").splitlines())

    async def burst() -> list[int]:
        sink = JsonlSink(path)
        for seq in range(3):
            sink.write(Event(type="x", seq=seq, match_id="m"))
        await asyncio.sleep(0)  # the match awaits its next agent
        seen = [lines()]
        sink.write(Event(type="x", seq=3, match_id="m"))
        await asyncio.sleep(0)
        seen.append(lines())
        sink.close()
        return seen

    assert asyncio.run(burst()) == [3, 4]
    sink = JsonlSink(path)  # no running loop: flushed as written
    sink.write(Event(type="x", seq=0, match_id="m"))
    assert lines() == 1
    sink.close()
    assert [e.seq for e in read_jsonl(path)] == [0]
