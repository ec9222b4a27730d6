"""Topic layout and broker URLs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.live import topics
from arena.live.url import BrokerURL, BrokerURLError, cleartext_warning, redact


def test_topic_layout_is_versioned_and_parses_back() -> None:
    assert topics.status("r1") == "arena/v1/runs/r1/status"
    assert topics.leaderboard("r1") == "arena/v1/runs/r1/leaderboard"
    assert topics.god("r1", "m-2") == "arena/v1/runs/r1/matches/m-2/god"
    assert topics.seat("r1", "m-2", 3) == "arena/v1/runs/r1/matches/m-2/seats/3"
    assert topics.parse(topics.seat("r1", "m", 3)) == topics.TopicRef("r1", "seat", "m", 3)
    assert topics.parse(topics.summary("r1", "m")) == topics.TopicRef("r1", "summary", "m")
    assert topics.parse(topics.status("r1")) == topics.TopicRef("r1", "status")
    assert topics.metrics("r1", "m-2") == "arena/v1/runs/r1/matches/m-2/metrics"
    assert topics.parse(topics.metrics("r1", "m")) == topics.TopicRef("r1", "metrics", "m")
    for foreign in ("x/y", "arena/v2/runs/r/status", "arena/v1/runs/r/matches/m/bogus", ""):
        assert topics.parse(foreign) is None


@given(st.text(max_size=40))
def test_ids_never_inject_wildcards_or_levels(name: str) -> None:
    seg = topics.segment(name)
    assert seg and not ({"#", "+", "/", "\x00"} & set(seg))
    ref = topics.parse(topics.god(name, name))
    assert ref is not None and ref.kind == "god" and ref.match_id == seg


def test_broker_urls_parse_and_never_show_passwords() -> None:
    u = BrokerURL.parse("mqtt://bob:pa%3Ass@broker.lan:1884")
    assert (u.host, u.port, u.username, u.password, u.tls) == (
        "broker.lan",
        1884,
        "bob",
        "pa:ss",
        False,
    )
    assert u.public() == "mqtt://bob@broker.lan:1884" and "pa" not in repr(u).replace("bob", "")
    assert BrokerURL.parse("localhost").port == 1883
    t = BrokerURL.parse("mqtts://h?ca=/etc/ca.pem&insecure=1")
    assert t.tls and t.port == 8883 and t.ca == "/etc/ca.pem" and t.insecure
    with pytest.raises(BrokerURLError):
        BrokerURL.parse("http://h:1")
    with pytest.raises(BrokerURLError) as err:
        BrokerURL.parse("mqtt://u:topsecret@h:notaport")
    assert "topsecret" not in str(err.value)
    assert redact("failed mqtt://u:topsecret@h:1 now") == "failed mqtt://u:***@h:1 now"


def test_password_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_MQTT_PASSWORD", "envpw")
    assert BrokerURL.parse("mqtt://carol@h:1").password == "envpw"
    assert BrokerURL.parse("mqtt://h:1").password is None


def test_the_user_may_come_from_the_environment_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_MQTT_USER", "dave")
    monkeypatch.setenv("ARENA_MQTT_PASSWORD", "envpw")
    u = BrokerURL.parse("mqtt://h:1")
    assert (u.username, u.password) == ("dave", "envpw") and "envpw" not in u.public()
    assert BrokerURL.parse("mqtt://erin:own@h:1").username == "erin"  # the URL's wins


def test_a_password_in_clear_beyond_loopback_is_warned_about() -> None:
    assert cleartext_warning(BrokerURL("broker.lan", 1883, False, "u", "pw")) is not None
    assert "pw" not in (cleartext_warning(BrokerURL("broker.lan", 1883, False, "u", "pw")) or "")
    assert cleartext_warning(BrokerURL("broker.lan", 8883, True, "u", "pw")) is None  # TLS
    assert cleartext_warning(BrokerURL("127.0.0.1", 1883, False, "u", "pw")) is None
    assert cleartext_warning(BrokerURL("broker.lan", 1883)) is None  # no password to leak
