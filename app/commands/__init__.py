"""Command groups of ``arena``; each module exposes ``add_commands(subparsers)``.

Heavy dependencies are imported inside the commands, so ``arena --help`` stays fast and works
without the extras installed.
"""
