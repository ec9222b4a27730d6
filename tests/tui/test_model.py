"""The TUI view model: folding events, seats per view, bad input counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.events import Event, GameEvent, Visibility
from arena.live import topics
from arena.sinks import read_jsonl
from tui.match_model import MatchModel
from tui.model import RunModel, per_second, rating_title, sparkline
from tui.sources import MqttSource, RunDirSource, replay_events


def ev(seq: int, type: str = "message", **kw) -> Event:  # type: ignore[no-untyped-def]
    return Event.stamp(GameEvent(type=type, **kw), run_id="r", match_id="m", seq=seq)


def test_run_dir_source_reads_progress_matches_and_leaderboard(run_dir: Path) -> None:
    model = RunModel()
    n = RunDirSource(run_dir).poll(model)
    records = sorted((run_dir / "matches").glob("*.jsonl"))
    assert n == sum(len(list(read_jsonl(p))) for p in records)
    assert (model.run_id, model.status, model.total, model.done) == ("run1", "complete", 4, 4)
    assert {m.status for m in model.matches.values()} == {"finished"}
    assert {r["agent"] for r in model.leaderboard} == {"r1", "r2"}
    assert model.history["r1"] and model.running == 0


def test_tailing_takes_only_complete_lines_and_picks_up_the_rest(tmp_path: Path) -> None:
    (tmp_path / "matches").mkdir()
    path = tmp_path / "matches" / "m.jsonl"
    lines = [ev(i, text=f"line {i}").model_dump_json() for i in range(3)]
    path.write_text(lines[0] + "\n" + lines[1][:20])
    src, model = RunDirSource(tmp_path), RunModel()
    assert src.poll(model) == 1
    with open(path, "a") as fh:
        fh.write(lines[1][20:] + "\n" + lines[2] + "\n")
    assert src.poll(model) == 2
    assert [e.seq for e in model.matches["m"].events] == [0, 1, 2] and model.malformed == 0


def test_seat_panel_is_game_agnostic_and_respects_the_view() -> None:
    m = MatchModel("m")
    m.add(ev(0, "match_start", payload={"game": "g", "names": ["A", "B", "C"],
                                         "seats": {"0": "x", "1": "y", "2": "z"}}))  # fmt: skip
    m.add(ev(1, "ground_truth", visibility=Visibility.god(),
             payload={"roles": {"0": "wolf", "1": "seer", "2": "villager"},
                      "teams": {"0": "wolves", "1": "village", "2": "village"}}))  # fmt: skip
    m.add(ev(2, "death", visibility=Visibility.god(), payload={"seat": 2}))
    m.add(ev(3, "exile", payload={"seat": 0}))
    m.add(ev(4, "votes", payload={"ballots": {"1": 0, "0": 1}}))
    spectator = m.seats(None)
    assert [s.alive for s in spectator] == [False, True, False]
    assert [s.role for s in spectator] == ["wolf", "seer", "villager"]
    as_b = m.seats(1)
    assert [s.role for s in as_b] == ["", "seer", ""]  # only its own role
    assert [s.alive for s in as_b] == [False, True, True]  # the night kill is god-only
    assert as_b[1].last_vote == "A" and as_b[0].agent == "x"
    assert not m.add(ev(4, "votes"))  # duplicate sequence number ignored


def test_the_match_model_shows_which_insights_each_seat_was_given() -> None:
    m = MatchModel("m")
    m.add(ev(0, "match_start", payload={"game": "g", "names": ["A", "B"]}))
    rec = {"bank": "b.sqlite", "version": 7, "namespace": "g/*", "ids": ["in_a", "in_b"]}
    m.add(ev(1, "llm_call", actor=1, visibility=Visibility.god(), payload={"memory": rec}))
    m.add(ev(2, "llm_call", actor=1, visibility=Visibility.god(), payload={"ok": True}))
    assert m.insight_lines() == ["B: bank v7 g/* [in_a, in_b]"]
    assert m.insight_lines(0) == [] and m.insight_lines(1) == m.insight_lines()


def test_malformed_and_foreign_bus_messages_are_counted_not_raised() -> None:
    model = RunModel()
    good = json.dumps({"v": 1, "events": [ev(0, text="hi").model_dump(mode="json")]})
    god = topics.god("r", "m")
    for topic, payload in [
        (god, good),
        (god, b"\xff\xfe not json"),
        (god, '{"events": "nope"}'),
        (god, '{"v": 1, "events": [{"seq": "x"}]}'),
        (topics.status("r"), "[1, 2]"),
        (topics.leaderboard("r"), "{"),
        (topics.summary("r", "m"), '{"no_match_id": 1}'),
        ("some/other/topic", good),
        ("arena/v1/runs/r/matches/m/unknown", good),
    ]:
        MqttSource.handle(model, topic, payload)
    assert model.events_seen == 1 and model.malformed == 6 and model.foreign == 2


def test_replay_of_a_truncated_record_stops_at_the_last_complete_event(
    record: Path, tmp_path: Path
) -> None:
    data = record.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) - 25])
    full, truncated_full = replay_events(record)
    part, truncated = replay_events(cut)
    assert not truncated_full and truncated
    assert part == full[: len(part)] and len(part) == len(full) - 1


def test_sparkline_and_rates() -> None:
    assert sparkline([1, 2, 3, 4]) == "▁▃▆█"
    assert sparkline([5, 5]) == "▄▄" and sparkline([]) == ""


class Clock:
    """A clock the test moves: rates are counted from arrival times, never the wall clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_rates_count_arrivals_over_a_recent_window() -> None:
    clock = Clock()
    model = RunModel(clock=clock)
    model.rates()
    for i in range(60):  # 50 decisions over 20 s, 10 of them answered by an LLM seat
        clock.now += 20 / 60
        model.add_event(ev(2 * i, "llm_call" if i % 6 == 0 else "decision"))
        model.add_event(ev(2 * i + 1, "speech"))
    # slow streams read as their real rates, however often (or seldom) the screen asks
    r = model.rates()
    assert r == pytest.approx({"events": 120 / 20, "decisions": 50 / 20, "llm": 10 / 20})
    assert per_second(r["llm"]) == "0.50" and per_second(r["events"]) == "6.0"
    clock.now += 25.0  # the last 5 s of arrivals are still within the 30 s window
    assert model.rates()["llm"] == pytest.approx(2 / 30)
    clock.now += 30.0
    assert model.rates() == {"events": 0.0, "decisions": 0.0, "llm": 0.0}


def test_status_carries_matches_running_per_node() -> None:
    model = RunModel()
    model.apply_status({"run_id": "r", "nodes": {"vm:aa": 2, "vm:bb": "x"}})
    assert model.nodes == {"vm:aa": 2}  # a malformed count is dropped, never shown
    model.apply_status({"run_id": "r", "nodes": {}})
    assert model.nodes == {}


def test_the_boards_rating_family_comes_from_its_rows_fit() -> None:
    model = RunModel()
    row = {"agent": "a", "mu": 25.0, "sigma": 1.0, "conservative": 22.0, "games": 1}
    model.apply_leaderboard({"rows": [{**row, "fit": "trueskill"}]})
    assert model.rating == "TrueSkill" and "Bradley–Terry" in rating_title(model.rating)
    model.apply_leaderboard({"rows": [{**row, "fit": "batch"}]})
    assert model.rating == "Bradley–Terry"
    assert rating_title(model.rating) == "Bradley–Terry μ ± σ, the fit `arena leaderboard` shows"


def test_a_secret_seating_is_the_spectators_and_each_seats_own() -> None:
    m = MatchModel("m")
    m.add(ev(0, "match_start", payload={"game": "g", "names": ["A", "B"], "seats": {}}))
    m.add(ev(1, "ground_truth", visibility=Visibility.god(),
             payload={"seats": {"0": "gpt", "1": "bot"}, "kinds": {"0": "llm", "1": "rule"}}))  # fmt: skip
    assert [s.agent for s in m.seats(None)] == ["gpt (llm)", "bot (rule)"]
    assert [s.agent for s in m.seats(0)] == ["gpt (llm)", ""]
    assert [s.agent for s in m.seats(1)] == ["", "bot (rule)"]
    public = MatchModel("p")
    public.add(ev(0, "match_start", payload={"names": ["A", "B"], "seats": {"0": "gpt", "1": "bot"},
                                             "kinds": {"0": "llm", "1": "bot"}}))  # fmt: skip
    assert [s.agent for s in public.seats(1)] == ["gpt (llm)", "bot"]  # kind = entry: once


def test_the_seats_a_model_plays_are_named_for_the_match_list() -> None:
    """The demo's point is the model's seat: the spectator sees which one it is, a player
    only its own."""
    m = MatchModel("m")
    m.add(ev(0, "match_start", payload={"game": "g", "names": ["A", "B", "C"], "seats": {}}))
    m.add(ev(1, "ground_truth", visibility=Visibility.god(),
             payload={"seats": {"0": "bot", "1": "smollm2", "2": "bot"},
                      "kinds": {"0": "rule", "1": "llm", "2": "rule"}}))  # fmt: skip
    assert m.model_seats() == "B (smollm2)"
    assert [m.is_model(s) for s in range(3)] == [False, True, False]
    assert m.model_seats(view=0) == "" and m.model_seats(view=1) == "B (smollm2)"
