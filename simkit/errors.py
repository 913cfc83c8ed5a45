"""User-facing errors.

An :class:`InputError` is bad input from the user (a scenario file, a
command-line value). The CLI prints its message as one line on stderr and
exits with code 2; it never shows a traceback for one.
"""


class InputError(Exception):
    """Bad input: the message names the file or option, the field and the allowed values."""

    exit_code = 2
