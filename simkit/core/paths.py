"""Output paths the user names (``--out``, ``--plot``, ``--baselines``): validated before anything runs.

A light module (click only): the command line imports it for ``--help``.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from simkit.errors import InputError

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


class OutPath(click.Path):
    """A ``click.Path`` that refuses an empty value (which would write into the current folder)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("must not be empty (give a file or folder name)", param, ctx)
        return super().convert(value, param, ctx)


def check_out_path(path: Path | str | None, option: str = "--out") -> Path | None:
    """Refuse an output path that cannot be written: empty, under a file, under /proc or an unwritable folder,
    or in a folder that does not exist: like ``git``, only the last level (the run folder, the plot file) is
    created, never its missing parents."""
    if path is None:
        return None
    if not str(path).strip():
        raise InputError(f"{option}: must not be empty (give a file or folder name)")
    p = Path(path)
    for parent in [p, *p.parents]:
        if parent.exists() or parent.is_symlink():
            if parent != p and not parent.is_dir():
                raise InputError(f"{option} {path}: {parent} is a file, not a folder")
            resolved = str(parent.resolve())
            if resolved == "/proc" or resolved.startswith(("/proc/", "/sys/")) or resolved == "/sys" \
                    or not os.access(parent if parent.is_dir() else parent.parent, os.W_OK):
                raise InputError(f"{option} {path}: {parent} is not writable")
            break
    if not (p.exists() or p.is_symlink()) and not p.parent.is_dir():
        raise InputError(f"{option} {path}: folder {p.parent} does not exist (only the last level is created; "
                         f"create {p.parent} first)")
    return p


def check_plot_path(path: Path | str | None, option: str = "--plot") -> Path | None:
    """An output path for a plot: writable, with an extension matplotlib writes."""
    p = check_out_path(path, option)
    if p is not None and p.suffix.lower() not in PLOT_SUFFIXES:
        raise InputError(f"{option} {path}: unknown plot format {p.suffix or '(no extension)'!r}; allowed "
                         f"extensions: {', '.join(PLOT_SUFFIXES)}")
    return p


def check_scheduler(address: str) -> str:
    """A Dask scheduler address, ``[tcp://]HOST:PORT`` (checked before anything connects or is written)."""
    import re

    m = re.fullmatch(r"(?:(tcp|tls|ws|wss|inproc|ucx)://)?(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.-]+):(\d{1,5})",
                     str(address).strip())
    if m is None or not 0 < int(m.group(3)) < 65536:
        raise InputError(f"--scheduler: {address!r} is not a scheduler address; expected tcp://HOST:PORT "
                         "(e.g. tcp://10.0.0.5:8786)")
    return address
