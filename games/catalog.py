"""Declarations of the built-in games (string entry points only: importing this is cheap)."""

from arena.registry import GameInfo

GAMES: list[GameInfo] = [
    GameInfo(
        game="werewolf",
        env_id="arena/Werewolf-v0",
        engine="games.werewolf.rules:WerewolfEngine",
        env="games.werewolf.env:env",
        bots="games.werewolf.bots:BOTS",
        description="Werewolf / Mafia: hidden roles, night actions, day discussion and votes.",
        variants={
            "classic8": {},
            "werewolf_arena": {"preset": "werewolf_arena"},
            "secret_mafia": {"preset": "secret_mafia"},
            "agentscope9": {"preset": "agentscope9"},
            "comm_games7": {"preset": "comm_games7"},
            "duskmire": {"preset": "duskmire"},
            "async_day": {"discussion_mode": "async"},
        },
    ),
]
