"""Settings: a key, its default, and what values it accepts. Pure; loading lives in config.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.errors import ConfigError, Words


def N_(text: str) -> str:  # noqa: N802 - the gettext convention's name
    """Mark `text` for the dashboard's message catalog (web/i18n.py); it stays English here."""
    return text


#: What a value of each type is, in words (settings, and commands' arguments).
TYPE_WORDS = {
    bool: N_("true or false"),
    int: N_("a whole number"),
    float: N_("a number"),
    str: N_("a string"),
    list: N_("a list"),
    dict: N_("an object"),
}


class Name(str):
    """A proper name or a printed label (a suit's name, a card's label, a die face): the same
    in every language, so a screen in another language leaves it as it is."""

    __slots__ = ()


def phrase(template: str, **values: Any) -> tuple[str, tuple[str, dict]]:
    """`template` filled with `values` in English, and the template and its values apart (a
    `Setting`'s `help` and `words`, a page's bet words) for a screen in another language."""
    return template % values, (template, values)


@dataclass(frozen=True)
class Setting:
    """One setting. The value's type is the default's; `check` may narrow it further."""

    key: str
    default: Any
    help: str
    choices: tuple | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: Extra validation: raises ValueError with what is wrong; its return value is ignored.
    check: Callable[[Any], Any] | None = None
    #: Words for what `check` accepts, for error messages.
    accepts: str = ""
    #: `help` as a template and its values, when it names something ("pay of %(name)s"), so
    #: that a screen in another language translates the template and the values apart.
    words: tuple = ()

    @property
    def kind(self) -> type:
        return type(self.default)

    def describe(self) -> str:
        """What this setting accepts, in words (`Words`: the English, translated apart)."""
        if self.choices is not None:
            return Words("one of %(choices)s", choices=tuple(repr(c) for c in self.choices))
        words = self.accepts or TYPE_WORDS.get(self.kind, self.kind.__name__)
        if self.minimum is not None and self.maximum is not None:
            return Words("%(what)s from %(low)s to %(high)s", what=words, low=self.minimum,
                         high=self.maximum)
        if self.minimum is not None:
            return Words("%(what)s of at least %(low)s", what=words, low=self.minimum)
        if self.maximum is not None:
            return Words("%(what)s of at most %(high)s", what=words, high=self.maximum)
        return words

    def validate(self, value: Any, where: str = "") -> Any:
        """Return `value` (an int for a float setting may be widened) or raise ConfigError."""
        place = Words(" in %(where)s", where=where) if where else ""

        def bad(extra: str = "") -> ConfigError:
            return ConfigError("%(key)s = %(value)s%(place)s is not accepted: expected "
                               "%(accepts)s%(extra)s", key=Name(self.key), value=repr(value),
                               place=place, accepts=self.describe(), extra=extra)

        kind = self.kind
        if kind is float and type(value) is int:
            value = float(value)
        if kind is bool or kind is int:
            if type(value) is not kind:
                raise bad()
        elif not isinstance(value, kind):
            raise bad()
        if kind is list:
            # its items are of its default's kind (strings when it has none and no check)
            item = type(self.default[0]) if self.default else (str if self.check is None else None)
            if item is not None and not all(isinstance(v, item) for v in value):
                raise bad()
        if self.choices is not None and value not in self.choices:
            raise bad()
        if self.minimum is not None and value < self.minimum:
            raise bad()
        if self.maximum is not None and value > self.maximum:
            raise bad()
        if self.check is not None:
            try:
                self.check(value)
            except (ValueError, TypeError) as exc:
                raise bad(Words(" (%(why)s)", why=Words.of(exc))) from None
        return value


def resolve(schema: Iterable[Setting], given: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """Defaults of `schema` overridden by `given`; an unknown key or bad value raises ConfigError."""
    by_key = {s.key: s for s in schema}
    unknown = sorted(set(given) - set(by_key))
    if unknown:
        place = Words(" in %(where)s", where=where) if where else ""
        if not by_key:
            raise ConfigError("unknown setting %(key)s%(place)s; accepted: none",
                              key=repr(unknown[0]), place=place)
        raise ConfigError("unknown setting %(key)s%(place)s; accepted: %(keys)s",
                          key=repr(unknown[0]), place=place,
                          keys=tuple(Name(k) for k in sorted(by_key)))
    values = {key: s.default for key, s in by_key.items()}
    for key, value in given.items():
        values[key] = by_key[key].validate(value, where)
    return values
