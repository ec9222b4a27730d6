"""Broker URLs: ``mqtt://[user:pass@]host:port`` or ``mqtts://...`` (TLS).

TLS options ride in the query: ``?ca=/path/ca.pem`` (trust this CA), ``&insecure=1`` (skip
hostname checks). A password may instead come from ``ARENA_MQTT_PASSWORD`` so it never sits on
a command line (and a username from ``ARENA_MQTT_USER`` when the URL names none).
:meth:`BrokerURL.public` is the only form that is ever printed or written.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict
from urllib.parse import parse_qs, quote, unquote, urlsplit

if TYPE_CHECKING:
    import ssl

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}


class ClientKwargs(TypedDict, total=False):
    """The keyword arguments :meth:`BrokerURL.client_kwargs` passes to ``aiomqtt.Client``."""

    hostname: str
    port: int
    username: str
    password: str | None
    tls_context: ssl.SSLContext


class BrokerURLError(ValueError):
    """A broker URL that cannot be used; the message never contains the password."""


@dataclass(frozen=True)
class BrokerURL:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    ca: str | None = None
    insecure: bool = False

    @classmethod
    def parse(cls, text: str) -> BrokerURL:
        if "://" not in text:
            text = "mqtt://" + text
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as err:
            raise BrokerURLError(f"bad broker URL {redact(text)!r}: {err}") from None
        scheme = parts.scheme.lower()
        if scheme not in DEFAULT_PORTS:
            raise BrokerURLError(f"broker URL scheme must be mqtt:// or mqtts://, not {scheme!r}")
        if not parts.hostname:
            raise BrokerURLError(f"broker URL {redact(text)!r} names no host")
        query = parse_qs(parts.query)
        ca = query.get("ca")
        password = unquote(parts.password) if parts.password else None
        username = unquote(parts.username) if parts.username else None
        if username is None and password is None:
            username = os.environ.get("ARENA_MQTT_USER") or None
        if username and password is None:
            password = os.environ.get("ARENA_MQTT_PASSWORD") or None
        return cls(
            host=parts.hostname,
            port=port or DEFAULT_PORTS[scheme],
            tls=scheme == "mqtts",
            username=username,
            password=password,
            ca=ca[0] if ca else None,
            insecure=(query.get("insecure") or ["0"])[0] in ("1", "true", "yes"),
        )

    def public(self) -> str:
        """The URL without credentials (safe for logs, run directories and the TUI)."""
        scheme = "mqtts" if self.tls else "mqtt"
        host = f"[{self.host}]" if ":" in self.host else self.host
        user = f"{quote(self.username)}@" if self.username else ""
        return f"{scheme}://{user}{host}:{self.port}"

    def __str__(self) -> str:
        return self.public()

    def __repr__(self) -> str:
        return f"BrokerURL({self.public()!r})"

    def client_kwargs(self) -> ClientKwargs:
        """Keyword arguments for ``aiomqtt.Client``."""
        kwargs: ClientKwargs = {"hostname": self.host, "port": self.port}
        if self.username:
            kwargs["username"] = self.username
            kwargs["password"] = self.password
        if self.tls:
            import ssl

            ctx = ssl.create_default_context(cafile=self.ca)
            if self.insecure:
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            kwargs["tls_context"] = ctx
        return kwargs


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def redact(text: str) -> str:
    """Hide the password of any ``scheme://user:pass@host`` inside ``text``."""
    import re

    return re.sub(r"(://[^:/@\s]*):[^@/\s]*@", r"\1:***@", text)


def cleartext_warning(url: BrokerURL) -> str | None:
    """A warning when a password would cross the network unencrypted (mqtt:// beyond loopback)."""
    if url.password is None or url.tls or is_loopback(url.host):
        return None
    return (
        f"the password for {url.public()} travels unencrypted (mqtt://); use mqtts:// "
        "beyond this machine"
    )
