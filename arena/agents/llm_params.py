"""The ``params`` of an ``llm`` agent entry (:class:`LLMAgentParams`): the backend, the prompt
options, memory, and how moves and speech are chosen."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from arena.llm.config import BackendConfig, PromptOptions, bundled
from arena.llm.prompt import is_turn_to_speak
from arena.memory.spec import MemorySpec
from arena.types import Decision


class LLMAgentParams(PromptOptions):
    """The ``params`` of an ``llm`` agent entry in a tournament config: the backend, the prompt
    options, and memory: static notes (a list) or an insight bank read once per match."""

    model_config = ConfigDict(extra="forbid")

    backend: BackendConfig = Field(default_factory=BackendConfig)
    memory: list[str] | MemorySpec = Field(default_factory=list)  # docs/memory.md
    # how moves are chosen: ``rank`` takes every decision with a finite set of legal moves by
    # ranking the moves by the model's likelihood (local, or a server returning prompt
    # logprobs) and asks for plain words on a turn to speak; ``generate`` asks for a written
    # answer first (a local model still ranks choice-only decisions, see
    # BackendConfig.rank_choices, and a decision with moves when re-asked); ``auto``: rank for
    # the bundled model, generate otherwise
    decide: Literal["auto", "rank", "generate"] = "auto"
    # on a turn to speak that offers a menu (the game's own sentences this seat could say,
    # ``Decision.menu``): ``menu`` says the likeliest of them; ``free`` writes its own words;
    # ``auto``: the menu when moves are ranked (``decide``). Free words from the bundled model
    # copied the last speaker ("I suspect Sana." said by Sana) whatever it knew (docs/llm.md)
    speech: Literal["auto", "menu", "free"] = "auto"

    @model_validator(mode="after")
    def _menu_needs_ranking(self) -> LLMAgentParams:
        if self.speech == "menu" and self.backend.type == "local" and not self.backend.rank_choices:
            raise ValueError(
                "speech: menu ranks the menu's sentences, but this local backend has "
                "rank_choices: false (it would write its words); drop one of the two"
            )
        return self

    def ranks_moves(self) -> bool:
        """Moves are ranked by likelihood, never written first (``decide``)."""
        return self.decide == "rank" or (self.decide == "auto" and bundled(self.backend))

    def speaks_from_menu(self, decision: Decision) -> bool:
        """This turn to speak is answered with the likeliest sentence of its menu."""
        if not decision.menu or not is_turn_to_speak(decision):
            return False
        if self.backend.type == "local" and not self.backend.rank_choices:
            return False  # a local model told not to rank writes its words
        return self.speech == "menu" or (self.speech == "auto" and self.ranks_moves())

    @property
    def notes(self) -> list[str]:
        """The static notes, or none when memory is a bank."""
        return self.memory if isinstance(self.memory, list) else []
