"""The exception root of the controller; each subclass also inherits the builtin it resembles."""

from __future__ import annotations


class FeltbankError(Exception):
    """Root of every error feltbank raises on purpose; its message is for people."""


class IllegalCommand(FeltbankError, ValueError):
    """A command the rules or the ledger refuse, with the reason; the state is unchanged."""


class ConfigError(FeltbankError, ValueError):
    """A configuration file or value that is not accepted; names the key and what is."""


class JournalError(FeltbankError, RuntimeError):
    """A journal file that cannot be used (corrupt, foreign, newer schema); nothing was written."""


class HistoryError(FeltbankError, ValueError):
    """A hand history that cannot be replayed; names the line."""
