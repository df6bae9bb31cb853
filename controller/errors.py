"""The exception root of the controller; each subclass also inherits the builtin it resembles."""

from __future__ import annotations


class Words(str):
    """English words that name things: the English itself (a `str`), and the template and
    values it was made of, so that the dashboard translates them apart.

    `Words("the %(die)s die", die="Earth")` is "the Earth die"; web/i18n.py `refusal` reads
    it in the page's language. A value may be a string (a word the catalog translates, or a
    name it leaves alone), a number, a list or tuple (its items joined with commas) or Words
    again. A template without values is never %-formatted.
    """

    template: str
    values: dict

    def __new__(cls, template: str, /, **values):
        self = super().__new__(cls, fill(template, values, str))
        self.template = template
        self.values = values
        return self

    def __getnewargs__(self):  # a copy or a pickle is the English, as a plain template
        return (str(self),)

    @classmethod
    def of(cls, reason) -> str:
        """A refusal's reason as Words (a plain string stays one)."""
        template = getattr(reason, "template", None)
        if template is None:
            return str(reason)
        return cls(template, **getattr(reason, "values", {}))


def fill(template: str, values: dict, word) -> str:
    """`template` with its `values`, each string or Words read through `word` (e.g. English:
    `str`, or a translation); a list or tuple reads as its items joined with commas."""
    if not values:
        return word(template)

    def each(value):
        if isinstance(value, list | tuple):
            return ", ".join(str(each(v)) for v in value)
        if isinstance(value, Words):
            return fill(value.template, value.values, word)
        return word(value) if isinstance(value, str) else value

    return word(template) % {k: each(v) for k, v in values.items()}


class FeltbankError(Exception):
    """Root of every error feltbank raises on purpose; its message is for people.

    The message is English. When it names things, it is a template and its values
    (`IllegalCommand("the %(die)s is set aside", die="Earth die")`): the dashboard then
    translates the template and the values apart (web/i18n.py `refusal`; `Words` above says
    which values are read how). `str(exc)` is the English.
    """

    def __init__(self, reason: str = "", /, **values):
        self.template = reason
        self.values = values
        super().__init__(fill(reason, values, str))

    @classmethod
    def because(cls, exc: FeltbankError):
        """This kind of error with `exc`'s reason, template and values kept."""
        return cls(exc.template, **exc.values)


class IllegalCommand(FeltbankError, ValueError):
    """A command the rules or the ledger refuse, with the reason; the state is unchanged."""


class ConfigError(FeltbankError, ValueError):
    """A configuration file or value that is not accepted; names the key and what is."""


class JournalError(FeltbankError, RuntimeError):
    """A journal file that cannot be used (corrupt, foreign, newer schema); nothing was written."""


class HistoryError(FeltbankError, ValueError):
    """A hand history that cannot be replayed; names the line."""
