"""Settings: a key, its default, and what values it accepts. Pure; loading lives in config.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.errors import ConfigError

_TYPE_WORDS = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "a string",
    list: "a list",
}


def N_(text: str) -> str:  # noqa: N802 - the gettext convention's name
    """Mark `text` for the dashboard's message catalog (web/i18n.py); it stays English here."""
    return text


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
        """What this setting accepts, in words."""
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        words = self.accepts or _TYPE_WORDS.get(self.kind, self.kind.__name__)
        if self.minimum is not None and self.maximum is not None:
            words += f" from {self.minimum} to {self.maximum}"
        elif self.minimum is not None:
            words += f" of at least {self.minimum}"
        elif self.maximum is not None:
            words += f" of at most {self.maximum}"
        return words

    def validate(self, value: Any, where: str = "") -> Any:
        """Return `value` (an int for a float setting may be widened) or raise ConfigError."""
        place = f" in {where}" if where else ""

        def bad(extra: str = "") -> ConfigError:
            return ConfigError(
                f"{self.key} = {value!r}{place} is not accepted: expected {self.describe()}{extra}"
            )

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
                raise bad(f" ({exc})") from None
        return value


def resolve(schema: Iterable[Setting], given: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """Defaults of `schema` overridden by `given`; an unknown key or bad value raises ConfigError."""
    by_key = {s.key: s for s in schema}
    unknown = sorted(set(given) - set(by_key))
    if unknown:
        place = f" in {where}" if where else ""
        raise ConfigError(
            f"unknown setting {unknown[0]!r}{place}; accepted: {', '.join(sorted(by_key)) or 'none'}"
        )
    values = {key: s.default for key, s in by_key.items()}
    for key, value in given.items():
        values[key] = by_key[key].validate(value, where)
    return values
