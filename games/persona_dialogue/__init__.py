"""Persona dialogues (spec persona_dialogue.md). See ``games.persona_dialogue.env``."""
