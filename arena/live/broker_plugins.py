"""amqtt plugins enforcing a run's credentials and topic rules (:mod:`arena.live.auth`), and
the broker class that applies those rules to retained messages too.

Loaded by the embedded broker only (they import amqtt). Configured with the path of the run's
credentials file, read once when the broker starts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from amqtt.broker import Broker
from amqtt.contexts import Action as BrokerAction
from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin

from arena.live.auth import PUBLISHER, Action, BusCredentials, allowed

ACTIONS: dict[str, Action] = {"publish": "publish", "subscribe": "subscribe", "receive": "receive"}


class RunAuthPlugin(BaseAuthPlugin):  # type: ignore[misc]
    """Only the run's credentials connect; anonymous clients and wrong passwords are refused.

    A client other than the publisher may not leave a will: the broker publishes wills
    without the topic check, so a will would be a way round it.
    """

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.credentials = BusCredentials.load(self.config.credentials_file)

    async def authenticate(self, *, session: Any) -> bool:
        if session is None or not self.credentials.check(session.username, session.password):
            return False
        return not (session.will_flag and session.username != PUBLISHER)

    @dataclass
    class Config:
        credentials_file: str = ""


class RunTopicPlugin(BaseTopicPlugin):  # type: ignore[misc]
    """Publish, subscribe and receive as :func:`arena.live.auth.allowed` says."""

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.run_id = BusCredentials.load(self.config.credentials_file).run_id

    async def topic_filtering(
        self, *, session: Any = None, topic: str | None = None, action: Any = None
    ) -> bool:
        if session is None or topic is None or action is None:
            return False
        kind = ACTIONS.get(str(getattr(action, "value", action)))
        return kind is not None and allowed(self.run_id, session.username, kind, topic)

    @dataclass
    class Config:
        credentials_file: str = ""


class CheckedBroker(Broker):  # type: ignore[misc]
    """amqtt's broker, handing out retained messages only as the topic rules allow.

    amqtt 0.12 sends retained messages without asking the topic plugins, and on every
    connection it sends a client the retained messages of *every* filter any client ever
    subscribed to, its own or not: a seat credential connecting after a spectator got the run's
    status, leaderboard and match summaries. Here a client gets a retained message only for a
    filter it holds itself and only when it may receive that topic.
    """

    async def _publish_retained_messages_for_subscription(
        self, subscription: tuple[str, int], session: Any
    ) -> None:
        topic_filter, qos = subscription
        holders = self._subscriptions.get(topic_filter, [])
        if not any(s.client_id == session.client_id for s, _ in holders):
            return  # another client's filter
        handler = self._get_handler(session)
        if handler is None:
            return
        sends = []
        for topic, retained in list(self._retained_messages.items()):
            if not self._matches(topic, topic_filter):
                continue
            if not await self._topic_filtering(session, topic=topic, action=BrokerAction.RECEIVE):
                continue
            sends.append(
                asyncio.ensure_future(
                    handler.mqtt_publish(
                        retained.topic, retained.data, min(qos, retained.qos or qos), retain=True
                    )
                )
            )
        if sends:
            await asyncio.wait(sends)
