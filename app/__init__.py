"""The application layer: the ``arena`` command line and what it wires together.

It sits above ``tournaments``, ``tui`` and ``personas``, which sit above the ``arena`` core;
nothing below imports it (``tests/test_layers.py`` checks the import graph). Modules:
:mod:`.cli` (the argparse tree, ``arena run``, ``arena envs``), :mod:`.commands` (the other
command groups), :mod:`.live` (live publishing around a run, ``--tui``) and :mod:`.progress`.
"""
