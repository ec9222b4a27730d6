"""Declarations of the built-in games (string entry points only: importing this is cheap)."""

from arena.registry import GameInfo

# Every event type each engine emits besides its speech types (the conformance tests fail on
# an undeclared one).
WEREWOLF_EVENTS = (
    "setup", "role", "wolf_team", "phase", "turn", "tick", "bid", "poll", "belief", "wolf_vote",
    "wolf_target", "wolf_retry", "protect", "witch_info", "witch_action", "seer_result",
    "death", "dawn", "accusation", "seer_claim", "reveal", "ballot", "vote_result", "exile",
    "hunter_shot", "game_over",
)  # fmt: skip

AVALON_EVENTS = (
    "setup", "role", "sees_evil", "sees_merlin_candidates", "round", "proposal", "vote_ballots",
    "vote_result", "quest_cards", "quest_result", "lady", "lady_result", "belief_request",
    "belief", "assassination_phase", "evil_revealed", "assassination", "deal", "game_over",
)  # fmt: skip

DEALORNODEAL_EVENTS = (
    "game_start", "scenario", "private_info", "proposal", "accept", "reject", "pass",
    "fallback_pass", "walk_away", "end_dialogue", "selection_start", "selections", "payoff",
    "result", "game_end",
)  # fmt: skip

PRICE_EVENTS = (
    "game_start", "scenario", "private_info", "offer", "accept", "reject", "pass",
    "fallback_pass", "walk_away", "payoff", "result", "game_end",
)  # fmt: skip

PIE_EVENTS = (
    "game_start", "scenario", "private_info", "proposal", "pass", "fallback_pass", "votes",
    "payoff", "result", "game_end",
)  # fmt: skip

AUCTION_EVENTS = (
    "game_start", "scenario", "private_info", "fallback_pass", "bidding_open", "bid", "tick",
    "payoff", "result", "game_end",
)  # fmt: skip

# The old id plays any of the three.
BARGAINING_EVENTS = tuple(dict.fromkeys(PRICE_EVENTS + PIE_EVENTS + AUCTION_EVENTS))

PERSONA_DIALOGUE_EVENTS = (
    "scenario", "scenario_truth", "briefing", "stage", "agree", "pass", "leave", "probe", "qa",
    "slip", "goal_result", "end",
)  # fmt: skip

GAMES: list[GameInfo] = [
    GameInfo(
        game="werewolf",
        env_id="arena/Werewolf-v0",
        engine="games.werewolf.rules:WerewolfEngine",
        env="games.werewolf.env:env",
        bots="games.werewolf.bots:BOTS",
        prompts="games.werewolf.prompts:briefing",
        knowledge="games.werewolf.knowledge:KNOWLEDGE",
        speech_types=("message", "last_words", "wolf_message"),
        event_types=WEREWOLF_EVENTS,
        measures="games.werewolf.measures:agent_measures",
        measure_info="games.werewolf.measures:MEASURE_INFO",
        description="Werewolf / Mafia: hidden roles, night actions, day discussion and votes.",
        variants={
            "classic8": {},
            "werewolf_arena": {"preset": "werewolf_arena"},
            "secret_mafia": {"preset": "secret_mafia"},
            # TextArena's SecretMafia-v0 as played: 6 players, no wolf talk, no belief
            # reports (about 32 decisions a game with random legal answers, as there)
            "secret_mafia6": {
                "preset": "secret_mafia",
                "n_players": 6,
                "wolf_discussion_rounds": 0,
                "belief_reports": "none",
            },
            "agentscope9": {"preset": "agentscope9"},
            "comm_games7": {"preset": "comm_games7"},
            "duskmire": {"preset": "duskmire"},
            "async_day": {"discussion_mode": "async"},
        },
    ),
    GameInfo(
        game="avalon",
        env_id="arena/Avalon-v0",
        engine="games.avalon.rules:AvalonEngine",
        env="games.avalon.env:env",
        bots="games.avalon.bots:BOTS",
        prompts="games.avalon.prompts:briefing",
        knowledge="games.avalon.knowledge:KNOWLEDGE",
        speech_types=("message",),
        event_types=AVALON_EVENTS,
        measures="games.avalon.measures:agent_measures",
        measure_info="games.avalon.measures:MEASURE_INFO",
        description="The Resistance: Avalon, 5-10 players: hidden roles, team votes, secret quests.",
        variants={
            "basic5": {"n_players": 5},
            "basic7": {"n_players": 7},
            "percival7": {"n_players": 7, "role_preset": "percival_morgana"},
            "basic10": {"n_players": 10},
            "full10": {
                "n_players": 10,
                "roles": [
                    "merlin",
                    "percival",
                    "servant",
                    "servant",
                    "servant",
                    "servant",
                    "assassin",
                    "morgana",
                    "mordred",
                    "oberon",
                ],
                "lady_of_the_lake": True,
            },
            "avalonbench": {"preset": "avalonbench"},
        },
    ),
    GameInfo(
        game="dealornodeal",
        env_id="arena/DealOrNoDeal-v0",
        engine="games.negotiation.dealornodeal:DealOrNoDealEngine",
        env="games.negotiation.dealornodeal_env:env",
        bots="games.negotiation.bots:BOTS_DEALORNODEAL",
        prompts="games.negotiation.prompts:briefing",
        knowledge="games.negotiation.knowledge:ITEM_SPLIT",
        speech_types=("message",),
        event_types=DEALORNODEAL_EVENTS,
        measures="games.negotiation.measures:agent_measures",
        measure_info="games.negotiation.measure_info:MEASURE_INFO",
        people_labels="games.negotiation.split_texts:people_label",
        description="Deal or No Deal: split a pool of items; private per-item values.",
        variants={
            "default": {},
            "private_batna": {"no_deal_payoff": "private_batna"},
            "selection": {"protocol": "selection"},
            "five_items": {"item_types": ["book", "hat", "ball", "pen", "cup"]},
        },
    ),
    GameInfo(
        game="price_bargaining",
        env_id="arena/PriceBargaining-v0",
        engine="games.negotiation.price:PriceBargainingEngine",
        env="games.negotiation.price_env:env",
        bots="games.negotiation.bots:BOTS_PRICE",
        prompts="games.negotiation.prompts:briefing",
        knowledge="games.negotiation.knowledge:BARGAINING",
        speech_types=("message",),
        event_types=PRICE_EVENTS,
        measures="games.negotiation.measures:agent_measures",
        measure_info="games.negotiation.measure_info:MEASURE_INFO",
        description="Buyer-seller price bargaining with private reservation prices.",
        variants={
            "default": {},
            "discount": {"discount": 0.9},
            "outside_options": {"outside_options": "private", "block_irrational_accept": True},
        },
    ),
    GameInfo(
        game="pie_division",
        env_id="arena/PieDivision-v0",
        engine="games.negotiation.pie:PieDivisionEngine",
        env="games.negotiation.pie_env:env",
        bots="games.negotiation.bots:BOTS_PIE",
        prompts="games.negotiation.prompts:briefing",
        knowledge="games.negotiation.knowledge:BARGAINING",
        speech_types=("message",),
        event_types=PIE_EVENTS,
        measures="games.negotiation.measures:agent_measures",
        measure_info="games.negotiation.measure_info:MEASURE_INFO",
        description="n parties divide a pie by rotating proposals and votes; private outside "
        "options.",
        variants={
            "default": {},
            "five_majority": {"n_parties": 5, "quota": "majority"},
        },
    ),
    GameInfo(
        game="auction",
        env_id="arena/Auction-v0",
        engine="games.negotiation.auction:AuctionEngine",
        env="games.negotiation.auction_env:env",
        bots="games.negotiation.bots:BOTS_AUCTION",
        prompts="games.negotiation.prompts:briefing",
        knowledge="games.negotiation.knowledge:BARGAINING",
        speech_types=("message",),
        event_types=AUCTION_EVENTS,
        measures="games.negotiation.measures:agent_measures",
        measure_info="games.negotiation.measure_info:MEASURE_INFO",
        description="Single-item auction with private values: sealed second or first price, "
        "or an ascending clock.",
        variants={
            "default": {},
            "first_price": {"format": "sealed_first"},
            "ascending": {"format": "ascending", "reserve_price": 10},
        },
    ),
    GameInfo(  # the old id of the three games above, kept for existing configs
        game="bargaining",
        env_id="arena/Bargaining-v0",
        engine="games.negotiation.bargaining:BargainingEngine",
        env="games.negotiation.bargaining_env:env",
        bots="games.negotiation.bots:BOTS_BARGAINING",
        prompts="games.negotiation.prompts:briefing",
        knowledge="games.negotiation.knowledge:BARGAINING",
        speech_types=("message",),
        event_types=BARGAINING_EVENTS,
        measures="games.negotiation.measures:agent_measures",
        measure_info="games.negotiation.measure_info:MEASURE_INFO",
        description="Old id: price_bargaining, pie_division or auction, picked by mode "
        "(price|pie|auction); prefer the new ids.",
        variants={
            "default": {},
            "discount": {"discount": 0.9},
            "outside_options": {"outside_options": "private", "block_irrational_accept": True},
            "pie3": {"mode": "pie"},
            "pie5_majority": {"mode": "pie", "n_parties": 5, "quota": "majority"},
            "auction": {"mode": "auction"},
            "auction_first_price": {"mode": "auction", "format": "sealed_first"},
            "auction_ascending": {"mode": "auction", "format": "ascending", "reserve_price": 10},
        },
    ),
    GameInfo(
        game="persona_dialogue",
        env_id="arena/PersonaDialogue-v0",
        engine="games.persona_dialogue.rules:PersonaDialogueEngine",
        env="games.persona_dialogue.env:env",
        bots="games.persona_dialogue.bots:BOTS",
        prompts="games.persona_dialogue.prompts:briefing",
        speech_types=("utterance", "act"),
        event_types=PERSONA_DIALOGUE_EVENTS,
        description="Persona dialogues: characters with cards, private goals and secrets talk; "
        "interrogation and off-record retest probes.",
        variants={
            "round_robin": {"scenario": "bakery-loan"},
            "free_for_all": {"scenario": "bakery-loan", "turn_mode": "free_for_all"},
            "random_order": {"scenario": "allotment-water", "turn_mode": "random_order"},
            "interrogation": {"interrogation": True, "subject": "lena", "interrogation_q": 8},
            "party4": {"scenario": "wedding-budget"},
        },
    ),
]
