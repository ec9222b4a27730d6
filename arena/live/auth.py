"""Who may do what on a run's bus: per-run credentials and the topic rules the broker enforces.

``arena run`` generates a :class:`BusCredentials` for every run and its embedded broker accepts
nobody else (no anonymous client, no wrong password):

* the **publisher** credential may publish under the run's topics, and read nothing;
* the **god** (spectator) credential may read every topic of the run, and publish nothing;
* a **seat** credential (``seat:<n>:<match_id>``) may read only that seat's topic of that match.
  Seat passwords are derived (HMAC-SHA256 of the username under the run's seat key), so a run
  of 10 000 matches needs no table of 70 000 passwords: :meth:`BusCredentials.seat` makes one
  for whoever hands a seat's stream to that seat's agent process.

The credentials live in ``RUN_DIR/broker.credentials.json``, created with mode 0600 (owner
only), read by ``arena watch``, and removed when the run's broker stops. :func:`allowed` is
the rule itself, pure, so it is tested without a broker.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena.live import topics

CREDENTIALS_FILE = "broker.credentials.json"
PUBLISHER = "arena-publisher"
GOD = "arena-god"
SEAT_PREFIX = "seat:"

Action = Literal["publish", "subscribe", "receive"]


class CredentialsError(ValueError):
    """A credentials file that is missing, malformed or readable by others."""


@dataclass(frozen=True)
class Credential:
    username: str
    password: str

    def __repr__(self) -> str:  # never show the password, not even in a traceback
        return f"Credential({self.username!r}, password=***)"


@dataclass(frozen=True)
class BusCredentials:
    """The credentials of one run's bus (see the module docstring for what each may do)."""

    run_id: str
    publisher: Credential
    god: Credential
    seat_key: str  # hex; whoever holds it can mint any seat's credential, so god-level secret

    def __repr__(self) -> str:
        return f"BusCredentials({self.run_id!r}, ***)"

    @classmethod
    def generate(cls, run_id: str) -> BusCredentials:
        return cls(
            run_id=run_id,
            publisher=Credential(PUBLISHER, secrets.token_urlsafe(24)),
            god=Credential(GOD, secrets.token_urlsafe(24)),
            seat_key=secrets.token_hex(32),
        )

    def seat(self, match_id: str, seat: int) -> Credential:
        """The credential that reads only ``seat``'s topic of ``match_id``."""
        username = f"{SEAT_PREFIX}{int(seat)}:{match_id}"
        return Credential(username, self._seat_password(username))

    def _seat_password(self, username: str) -> str:
        key = bytes.fromhex(self.seat_key)
        return hmac.new(key, username.encode("utf-8"), hashlib.sha256).hexdigest()

    def check(self, username: str | None, password: str | None) -> bool:
        """True when ``username``/``password`` is one of this run's credentials."""
        if not username or password is None:
            return False
        if username == self.publisher.username:
            expected = self.publisher.password
        elif username == self.god.username:
            expected = self.god.password
        elif _seat_of(username) is not None:
            expected = self._seat_password(username)
        else:
            return False
        return hmac.compare_digest(expected.encode("utf-8"), password.encode("utf-8"))

    # -- the file ------------------------------------------------------------------------
    def save(self, path: Path) -> Path:
        """Write to ``path`` with mode 0600 (replacing any older file atomically)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        doc = {
            "run_id": self.run_id,
            "publisher": [self.publisher.username, self.publisher.password],
            "god": [self.god.username, self.god.password],
            "seat_key": self.seat_key,
        }
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
                fh.write("\n")
            os.chmod(tmp, 0o600)  # whatever the umask said
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        return path

    @classmethod
    def load(cls, path: Path) -> BusCredentials:
        """Read a credentials file; refused when group or others may read or write it."""
        path = Path(path)
        try:
            mode = path.stat().st_mode
            if mode & (stat.S_IRWXG | stat.S_IRWXO):
                raise CredentialsError(
                    f"{path} is accessible to other users (mode {stat.S_IMODE(mode):o}); "
                    "it must be 0600"
                )
            doc = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                run_id=str(doc["run_id"]),
                publisher=Credential(*map(str, doc["publisher"])),
                god=Credential(*map(str, doc["god"])),
                seat_key=bytes.fromhex(str(doc["seat_key"])).hex(),
            )
        except CredentialsError:
            raise
        except OSError as err:
            raise CredentialsError(f"cannot read {path}: {err.strerror or err}") from None
        except (ValueError, TypeError, KeyError) as err:
            raise CredentialsError(f"{path} is not a credentials file ({err})") from None


def _seat_of(username: str) -> tuple[int, str] | None:
    """(seat, match id) of a seat username ``seat:<n>:<match_id>``."""
    if not username.startswith(SEAT_PREFIX):
        return None
    seat, _, match_id = username[len(SEAT_PREFIX) :].partition(":")
    if not seat.isdigit() or not match_id:
        return None
    return int(seat), match_id


def _under(filt: str, root: str) -> bool:
    return filt.startswith(root + "/")


def allowed(run_id: str, username: str | None, action: Action, topic: str) -> bool:
    """May ``username`` (already authenticated) do ``action`` on ``topic`` (a filter, for a
    subscription) on run ``run_id``'s broker?

    Subscriptions are checked strictly: the broker hands retained messages to a new subscription
    without a per-message check, so a filter is allowed only if everything it can match is.
    """
    root = topics.run_root(run_id)
    if username == PUBLISHER:
        return action == "publish" and _under(topic, root) and not _wild(topic)
    if username == GOD:
        return action in ("subscribe", "receive") and _under(topic, root)
    seat = _seat_of(username or "")
    if seat is not None:
        return action in ("subscribe", "receive") and topic == topics.seat(run_id, seat[1], seat[0])
    return False


def _wild(topic: str) -> bool:
    return "+" in topic or "#" in topic


def credentials_path(run_dir: Path) -> Path:
    return Path(run_dir) / CREDENTIALS_FILE


def load_run_credentials(run_dir: Path) -> BusCredentials | None:
    """The credentials of the run in ``run_dir`` while its embedded broker runs, else None."""
    path = credentials_path(run_dir)
    if not path.exists():
        return None
    return BusCredentials.load(path)
