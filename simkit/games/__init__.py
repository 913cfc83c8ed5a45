"""The games. Each sub-package exposes a ``GAME`` registered through the
``simkit.games`` entry points; a game never imports another game."""
