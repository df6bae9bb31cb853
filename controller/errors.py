"""The exception root of the controller; each subclass also inherits the builtin it resembles."""

from __future__ import annotations


class FeltbankError(Exception):
    """Root of every error feltbank raises on purpose; its message is for people."""


class IllegalCommand(FeltbankError, ValueError):
    """A command the rules or the ledger refuse, with the reason; the state is unchanged.

    The reason is English. When it names things, it is a template and its values
    (`IllegalCommand("the %(die)s is set aside", die="Earth die")`): the dashboard then
    translates the template and the values apart (web/i18n.py `refusal`). A value that is a
    list or tuple reads as its items joined with commas.
    """

    def __init__(self, reason: str, /, **values):
        self.template = reason
        self.values = values
        super().__init__(reason % {k: _words(v) for k, v in values.items()} if values
                         else reason)


def _words(value):
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return value


class ConfigError(FeltbankError, ValueError):
    """A configuration file or value that is not accepted; names the key and what is."""


class JournalError(FeltbankError, RuntimeError):
    """A journal file that cannot be used (corrupt, foreign, newer schema); nothing was written."""


class HistoryError(FeltbankError, ValueError):
    """A hand history that cannot be replayed; names the line."""
