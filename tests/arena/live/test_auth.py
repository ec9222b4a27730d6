"""The live bus is locked: per-run credentials, topic rules, on the real embedded broker.

Every broker here is the one ``arena run`` starts (a child process on 127.0.0.1 with the run's
credentials file); the clients are real MQTT clients.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import aiomqtt
import pytest

from arena.live import topics
from arena.live.auth import (
    GOD,
    PUBLISHER,
    BusCredentials,
    Credential,
    CredentialsError,
    allowed,
    credentials_path,
)
from arena.live.broker import BrokerProcess
from arena.live.bus import not_authorised
from arena.live.url import BrokerURL

RUN = "run1"
MATCH = "toy-r0-m0001"
GOD_TOPIC = topics.god(RUN, MATCH)
STATUS = topics.status(RUN)


def seat_topic(n: int, match: str = MATCH) -> str:
    return topics.seat(RUN, match, n)


# -- the rules, pure ------------------------------------------------------------------------
def test_the_publisher_publishes_under_its_run_and_reads_nothing() -> None:
    assert allowed(RUN, PUBLISHER, "publish", GOD_TOPIC)
    assert allowed(RUN, PUBLISHER, "publish", STATUS)
    assert not allowed(RUN, PUBLISHER, "publish", topics.status("other-run"))
    assert not allowed(RUN, PUBLISHER, "publish", "arena/v1/runs/run1")
    for action in ("subscribe", "receive"):
        assert not allowed(RUN, PUBLISHER, action, GOD_TOPIC)  # type: ignore[arg-type]


def test_the_god_credential_reads_the_whole_run_and_publishes_nothing() -> None:
    for topic in (GOD_TOPIC, STATUS, seat_topic(3), topics.run_filter(RUN)):
        assert allowed(RUN, GOD, "subscribe", topic) and allowed(RUN, GOD, "receive", topic)
        assert not allowed(RUN, GOD, "publish", topic)
    for wider in ("arena/v1/#", "arena/v1/runs/+/status", "#", topics.run_filter("other")):
        assert not allowed(RUN, GOD, "subscribe", wider)


def test_a_seat_credential_reads_its_own_seat_topic_only() -> None:
    seat = BusCredentials.generate(RUN).seat(MATCH, 2).username
    assert allowed(RUN, seat, "subscribe", seat_topic(2))
    assert allowed(RUN, seat, "receive", seat_topic(2))
    refused = [
        seat_topic(1), seat_topic(2, "toy-r0-m0002"), GOD_TOPIC, STATUS,
        topics.summary(RUN, MATCH), topics.match_root(RUN, MATCH) + "/seats/+",
        topics.match_root(RUN, MATCH) + "/#", "arena/v1/#", "#",
    ]  # fmt: skip
    for topic in refused:
        assert not allowed(RUN, seat, "subscribe", topic), topic
        assert not allowed(RUN, seat, "receive", topic), topic
    assert not allowed(RUN, seat, "publish", seat_topic(2))


def test_nobody_else_may_do_anything() -> None:
    for user in (None, "", "anonymous", "seat:x:m", "seat:1:", "arena-gods"):
        for action in ("publish", "subscribe", "receive"):
            assert not allowed(RUN, user, action, GOD_TOPIC)  # type: ignore[arg-type]


def test_credentials_check_only_their_own_passwords() -> None:
    creds, other = BusCredentials.generate(RUN), BusCredentials.generate(RUN)
    seat = creds.seat(MATCH, 1)
    assert creds.check(GOD, creds.god.password) and creds.check(seat.username, seat.password)
    assert not creds.check(GOD, other.god.password)
    assert not creds.check(seat.username, other.seat(MATCH, 1).password)
    assert not creds.check(creds.seat(MATCH, 2).username, seat.password)  # another seat's
    assert not creds.check(None, None) and not creds.check(GOD, None) and not creds.check("", "")
    assert creds.god.password not in repr(creds) + repr(creds.god) + repr(seat)


def test_the_credentials_file_is_owner_only_and_refused_otherwise(tmp_path: Path) -> None:
    creds = BusCredentials.generate(RUN)
    old = os.umask(0)  # the most permissive umask: the file is 0600 all the same
    try:
        path = creds.save(credentials_path(tmp_path))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert BusCredentials.load(path) == creds
    path.chmod(0o640)
    with pytest.raises(CredentialsError, match="0600"):
        BusCredentials.load(path)
    path.chmod(0o600)
    path.write_text("{}")
    with pytest.raises(CredentialsError, match="not a credentials file"):
        BusCredentials.load(path)


# -- the real embedded broker -----------------------------------------------------------------
@contextlib.asynccontextmanager
async def run_broker(tmp: Path) -> AsyncIterator[tuple[BrokerURL, BusCredentials]]:
    creds = BusCredentials.generate(RUN)
    broker = BrokerProcess(credentials_file=creds.save(credentials_path(tmp)))
    url = await asyncio.to_thread(broker.start)
    try:
        yield url, creds
    finally:
        await asyncio.to_thread(broker.stop)


def client(url: BrokerURL, cred: Credential | None, **kw: object) -> aiomqtt.Client:
    auth = {"username": cred.username, "password": cred.password} if cred else {}
    return aiomqtt.Client(hostname=url.host, port=url.port, timeout=10, **auth, **kw)  # type: ignore[arg-type]


def granted(codes: object) -> bool:
    return all(int(getattr(c, "value", c)) < 0x80 for c in codes)  # type: ignore[attr-defined]


async def next_message(c: aiomqtt.Client) -> aiomqtt.Message:
    async with asyncio.timeout(60):  # only matters when the message never comes
        return await anext(aiter(c.messages))


async def test_anonymous_and_wrong_passwords_are_refused(tmp_path: Path) -> None:
    async with run_broker(tmp_path) as (url, creds):
        other = BusCredentials.generate(RUN)
        bad = [None, Credential(GOD, other.god.password), Credential(PUBLISHER, ""),
               Credential("nobody", "x"), Credential(creds.seat(MATCH, 0).username, "0" * 64)]  # fmt: skip
        for cred in bad:
            with pytest.raises(aiomqtt.MqttError) as info:
                async with client(url, cred):
                    pass
            assert not_authorised(info.value), (cred, info.value)
        async with client(url, creds.god):  # the right one connects
            pass


async def test_seats_read_only_their_topic_and_spoofed_publishes_go_nowhere(
    tmp_path: Path,
) -> None:
    async with run_broker(tmp_path) as (url, creds):
        seat0 = creds.seat(MATCH, 0)
        async with (
            client(url, creds.publisher) as pub,
            client(url, creds.god) as god,
            client(url, seat0) as seat,
        ):
            await pub.publish(STATUS, b'{"status": "running"}', qos=1, retain=True)
            # what a seat may not read, and what the publisher may not read
            for filt in (GOD_TOPIC, seat_topic(1), STATUS, topics.run_filter(RUN), "arena/v1/#"):
                assert not granted(await seat.subscribe(filt, qos=1)), filt
            assert not granted(await pub.subscribe(topics.run_filter(RUN), qos=1))
            assert not granted(await god.subscribe("arena/v1/#", qos=1))
            assert granted(await seat.subscribe(seat_topic(0), qos=1))
            assert granted(await god.subscribe(topics.run_filter(RUN), qos=1))
            assert (await next_message(god)).payload == b'{"status": "running"}'  # retained
            # spoofs: from the spectator and from a seat, retained and not
            for spoofer in (god, seat):
                await spoofer.publish(STATUS, b'{"status": "spoofed"}', qos=1, retain=True)
                await spoofer.publish(GOD_TOPIC, b"spoofed", qos=1)
                await spoofer.publish(seat_topic(0), b"spoofed", qos=1)
            # the real stream, in order; seat 0's own event last: a fence for both readers
            await pub.publish(GOD_TOPIC, b"god-event", qos=1)
            await pub.publish(seat_topic(1), b"seat1-event", qos=1)
            await pub.publish(seat_topic(0), b"seat0-event", qos=1)
            got_god = [(await next_message(god)).payload for _ in range(3)]
            assert got_god == [b"god-event", b"seat1-event", b"seat0-event"]
            assert (await next_message(seat)).payload == b"seat0-event"  # nothing before it
        async with client(url, creds.god) as late:  # the retained status was never replaced
            await late.subscribe(STATUS, qos=1)
            assert (await next_message(late)).payload == b'{"status": "running"}'


async def test_retained_messages_follow_the_rules_whoever_subscribed_first(
    tmp_path: Path,
) -> None:
    # amqtt alone hands every connecting client the retained messages of every filter any
    # client subscribed to: a seat connecting after the spectator got the run's status
    retained = [STATUS, topics.leaderboard(RUN), topics.summary(RUN, MATCH)]
    async with (
        run_broker(tmp_path) as (url, creds),
        client(url, creds.publisher) as pub,
        client(url, creds.god) as god,
    ):
        for topic in retained:
            await pub.publish(topic, topic.encode(), qos=1, retain=True)
        await god.subscribe(topics.run_filter(RUN), qos=1)
        got = {(await next_message(god)).payload for _ in retained}
        assert got == {t.encode() for t in retained}
        async with client(url, creds.seat(MATCH, 0)) as seat, client(url, creds.god) as god2:
            assert granted(await seat.subscribe(seat_topic(0), qos=1))
            assert granted(await god2.subscribe(STATUS, qos=1))
            await pub.publish(seat_topic(0), b"seat0-event", qos=1)  # fences
            await pub.publish(STATUS, b"status-event", qos=1)
            assert (await next_message(seat)).payload == b"seat0-event"  # nothing before
            # the second spectator: the retained message of its own filter only
            second = [(await next_message(god2)).payload for _ in range(2)]
            assert second == [STATUS.encode(), b"status-event"]


async def test_a_reader_may_not_leave_a_will(tmp_path: Path) -> None:
    # the broker publishes wills without the topic check: they would be a way round it
    async with run_broker(tmp_path) as (url, creds):
        will = aiomqtt.Will(STATUS, b'{"status": "spoofed"}', qos=1, retain=True)
        for cred in (creds.god, creds.seat(MATCH, 0)):
            with pytest.raises(aiomqtt.MqttError) as info:
                async with client(url, cred, will=will):
                    pass
            assert not_authorised(info.value)


async def test_default_run_locks_its_broker_and_watch_reads_the_run_dir(tmp_path: Path) -> None:
    from app.commands.watch import cmd_watch
    from app.live import LiveOptions
    from tests.arena.live.helpers import live_tournament

    t, live = live_tournament(tmp_path, LiveOptions(require=True), matches=2)
    root = t.dir.root
    async with live:
        await t.run()
        secret = credentials_path(root)
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
        info = json.loads((root / "broker.json").read_text())
        assert live.url is not None and info["url"] == f"mqtt://127.0.0.1:{live.url.port}"
        text = (root / "broker.json").read_text()
        creds = BusCredentials.load(secret)
        assert creds.god.password not in text and creds.publisher.password not in text
        url = BrokerURL.parse(info["url"])
        with pytest.raises(aiomqtt.MqttError) as refused:
            async with client(url, None):
                pass
        assert not_authorised(refused.value)
        args = argparse.Namespace(
            run_dir=str(root), broker=None, live=True, run_id=None, match=None, once=True,
            seat=None,
        )  # fmt: skip
        # arena watch RUN_DIR --live --once: the run's credentials, found in the run directory
        assert await asyncio.to_thread(cmd_watch, args) == 0
        # the spectator credential reads this run, named; it may not list every run's status
        god = f"mqtt://{GOD}:{creds.god.password}@127.0.0.1:{url.port}"
        named = argparse.Namespace(**{**vars(args), "run_dir": None, "live": False, "broker": god})
        assert await asyncio.to_thread(cmd_watch, named) == 3
        named.run_id = RUN
        assert await asyncio.to_thread(cmd_watch, named) == 0
        # --live --match M --seat 0: that seat's own credential, its stream only
        as_seat = argparse.Namespace(**{**vars(args), "match": t.specs[0].match_id, "seat": 0})
        assert await asyncio.to_thread(cmd_watch, as_seat) == 0
    assert not secret.exists()  # the broker is gone: so are its credentials
    assert cmd_watch(args) == 4  # and --live says so at once
