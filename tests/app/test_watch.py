"""`arena watch --once` says why it saw nothing (exit 3 not authorised, 4 unreachable), `arena run`
tells a refused login from an unreachable broker, and `arena broker --user` never runs open."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from app.cli import main
from app.commands.watch import NOT_AUTHORISED, UNREACHABLE
from app.live import LiveOptions
from arena.live.broker import EmbeddedBroker
from arena.sinks import read_jsonl
from tests.arena.live.helpers import free_port, live_tournament, toy_tournament


def test_watch_once_exits_3_when_the_broker_refuses_the_credentials(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_MQTT_PASSWORD", raising=False)
    with EmbeddedBroker(username="ann", password="right-pw") as broker:
        port = broker.url.port
        for url in (f"mqtt://127.0.0.1:{port}", f"mqtt://ann:wrong-pw@127.0.0.1:{port}"):
            assert main(["watch", "--broker", url, "--once"]) == NOT_AUTHORISED == 3
            err = capsys.readouterr().err
            assert "not authorised" in err and "unreachable" not in err
            assert "wrong-pw" not in err
        monkeypatch.setenv("ARENA_MQTT_PASSWORD", "right-pw")  # the password from the env
        assert main(["watch", "--broker", f"mqtt://ann@127.0.0.1:{port}", "--once"]) == 0
        assert "[connected" in capsys.readouterr().out


def test_watch_once_exits_4_when_the_broker_cannot_be_reached(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["watch", "--broker", f"mqtt://127.0.0.1:{free_port()}", "--once"]) == 4
    assert UNREACHABLE == 4 and "unreachable" in capsys.readouterr().err


def test_watch_live_needs_a_run_that_published(tmp_path: Path) -> None:
    (tmp_path / "matches").mkdir()
    assert main(["watch", "--live"]) == 2
    assert main(["watch", str(tmp_path), "--live", "--once"]) == 2  # no broker.json


async def test_run_reports_refused_credentials_as_not_authorised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with EmbeddedBroker(username="ann", password="right-pw") as broker:
        url = f"mqtt://ann:wrong-pw@127.0.0.1:{broker.url.port}"
        t, live = live_tournament(tmp_path, LiveOptions(broker=url, connect_timeout_s=2), matches=1)
        async with live:
            await t.run()
        err = capsys.readouterr().err
        assert "not authorised" in err and "unreachable" not in err and "wrong-pw" not in err
        assert live.publisher is not None and live.publisher.published == 0
        t2, live2 = live_tournament(
            tmp_path / "b", LiveOptions(broker=url, require=True, connect_timeout_s=2), matches=1
        )
        with pytest.raises(SystemExit) as info:
            async with live2:
                await t2.run()
        assert info.value.code == 1 and "not authorised" in capsys.readouterr().err


def test_broker_user_without_a_password_refuses_to_start(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_BROKER_PASSWORD", raising=False)
    port = free_port()
    assert main(["broker", "--user", "ann", "--port", str(port)]) == 2
    assert "no password" in capsys.readouterr().err
    # nothing was left listening
    with pytest.raises(OSError):
        asyncio.run(asyncio.open_connection("127.0.0.1", port))


def test_watch_once_names_the_rating_family_of_its_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = toy_tournament(tmp_path, matches=2, concurrency=2)
    asyncio.run(t.run())
    assert main(["watch", str(t.dir.root), "--once"]) == 0
    out = capsys.readouterr().out
    assert "leaderboard: TrueSkill μ ± σ" in out and "Bradley–Terry" in out
    assert "r1" in out and "TrueSkill μ" in out.split("r1", 1)[1].splitlines()[0]
    # harness health beside each entry's live rating
    assert "refused 0.0%" in out.split("r1", 1)[1].splitlines()[0]


def test_replay_print_says_what_each_decision_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = toy_tournament(tmp_path, matches=1, concurrency=1)
    asyncio.run(t.run())
    record = next(t.dir.matches.glob("*.jsonl"))
    decisions = sum(1 for e in read_jsonl(record) if e.type == "decision")
    assert main(["replay", str(record), "--print"]) == 0
    lines = capsys.readouterr().out.splitlines()
    said = [
        ln for ln in lines if re.search(r"\(\w+\)$", ln) and (" chose " in ln or " says " in ln)
    ]
    assert decisions and len(said) == decisions  # "P0 chose P2 (vote)", not "P0: decision"
    assert not any('{"' in ln or ln.endswith(": decision") for ln in lines)
