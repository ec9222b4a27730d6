"""The embedded broker: loopback by default, remote binding only with an opt-in and a password."""

from __future__ import annotations

import aiomqtt
import pytest

from arena.live.broker import BrokerSecurityError, EmbeddedBroker, is_loopback
from arena.live.url import BrokerURL


def test_embedded_broker_listens_on_loopback_on_a_free_port() -> None:
    with EmbeddedBroker() as a, EmbeddedBroker() as b:
        assert a.url.host == "127.0.0.1" and a.url.port > 0 and a.url.port != b.url.port
        assert a.running
    assert not a.running


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.org"])
def test_binding_beyond_loopback_is_refused_without_opt_in(host: str) -> None:
    with pytest.raises(BrokerSecurityError, match="loopback only"):
        EmbeddedBroker(host)
    with pytest.raises(BrokerSecurityError, match="password"):
        EmbeddedBroker(host, allow_remote=True)
    with pytest.raises(BrokerSecurityError, match="password"):
        EmbeddedBroker(host, allow_remote=True, username="u")


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.1")


async def test_password_protected_broker_refuses_wrong_or_missing_credentials() -> None:
    broker = EmbeddedBroker(username="ann", password="correct horse")
    url = broker.start()
    try:
        assert "correct horse" not in url.public() and "correct horse" not in repr(url)
        async with aiomqtt.Client(**url.client_kwargs()) as client:
            await client.publish("arena/v1/ping", b"1")
        for bad in (
            BrokerURL(url.host, url.port),
            BrokerURL(url.host, url.port, False, "ann", "no"),
        ):
            with pytest.raises(aiomqtt.MqttError):
                async with aiomqtt.Client(**bad.client_kwargs(), timeout=3):
                    pass
        files = list(broker._tmp.iterdir()) if broker._tmp else []
        assert files and "correct horse" not in files[0].read_text()
    finally:
        broker.stop()
    assert broker._tmp is None


async def test_broker_process_serves_loopback_and_stops_with_its_owner() -> None:
    import asyncio

    from arena.live.broker import BrokerProcess
    from tests.arena.live.helpers import Collector

    broker = BrokerProcess()
    url = await asyncio.to_thread(broker.start)
    try:
        assert url.host == "127.0.0.1" and url.port > 0 and broker.running
        async with Collector(url, "arena/v1/#") as col:
            async with aiomqtt.Client(**url.client_kwargs()) as client:
                await client.publish("arena/v1/ping", b"1")
            await col.wait_for(lambda: len(col.messages) == 1)
        assert col.messages[0][:2] == ("arena/v1/ping", b"1")
    finally:
        await asyncio.to_thread(broker.stop)
    assert not broker.running
    with pytest.raises(aiomqtt.MqttError):  # nothing listens any more
        async with aiomqtt.Client(**url.client_kwargs(), timeout=3):
            pass
    with pytest.raises(BrokerSecurityError, match="loopback only"):
        BrokerProcess("0.0.0.0")
