"""Reading ``--citizens`` (a light module: no numba, so input errors are reported at once)."""

from __future__ import annotations

from simkit.errors import InputError

NUMBERS = range(1, 13)


def parse_citizens(text: str) -> list[tuple[int, ...]]:
    """Parse ``--citizens`` such as ``"1,2,6"`` or ``"1,2,9/10"`` (empty: no Citizens).

    Each Citizen is one activation number 1..12, or two joined by ``/``;
    repeats are separate Citizens.
    """
    if not text.strip():
        return []
    citizens = []
    for token in text.split(","):
        parts = [p.strip() for p in token.strip().split("/")]
        ok = len(parts) <= 2 and all(p.isascii() and p.isdigit() and int(p) in NUMBERS for p in parts)
        if not ok or (len(parts) == 2 and int(parts[0]) == int(parts[1])):
            raise InputError(
                f"--citizens: bad token {token.strip()!r}; allowed: comma-separated "
                "activation numbers 1..12, a two-number Citizen as two different numbers, e.g. 9/10"
            )
        citizens.append(tuple(int(p) for p in parts))
    return citizens
