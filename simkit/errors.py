"""User-facing errors.

An :class:`InputError` is bad input from the user (a scenario file, a
command-line value). The CLI prints its message as one line on stderr and
exits with code 2; it never shows a traceback for one. An error that holds
several problems (every bad field of a card file, found in one pass) is
printed as one line per problem.
"""


class InputError(Exception):
    """Bad input: the message names the file or option, the field and the allowed values."""

    exit_code = 2

    @classmethod
    def of(cls, messages: list[str]) -> "InputError":
        """One error holding every problem of ``messages`` (its text joins them with "; ")."""
        exc = cls("; ".join(messages))
        exc._messages = list(messages)
        return exc

    @property
    def messages(self) -> list[str]:
        """The problems, one line each."""
        return list(getattr(self, "_messages", None) or [str(self)])
