"""A mode's user-visible words in one place, gettext-style: English msgids, translations by language.

    _ = Catalog({"fr": {"the roll": "le jet"}}, default="fr")
    _("the roll", "fr")  ->  "le jet";   _("the roll", "en")  ->  "the roll"

The msgid is the English text (with `{name}` fields), as gettext's is, so the dashboard's Babel
catalogs can take these words over later (extract the `_(...)` calls, or the dicts as they
stand). A msgid without a translation falls back to English, as gettext does.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

#: Languages the modes speak.
LANGUAGES = ("en", "fr")


class Catalog:
    """Translations of English msgids, by language; calling it translates and fills fields."""

    def __init__(self, translations: Mapping[str, Mapping[str, str]], default: str = "en"):
        unknown = set(translations) - set(LANGUAGES)
        if unknown or default not in LANGUAGES:
            raise ValueError(f"languages {sorted(unknown) or default!r}: expected "
                             f"{', '.join(LANGUAGES)}")
        self.translations = MappingProxyType({k: MappingProxyType(dict(v))
                                              for k, v in translations.items()})
        self.default = default

    def __call__(self, msgid: str, lang: str | None = None, **fields: Any) -> str:
        lang = lang or self.default
        text = self.translations.get(lang, {}).get(msgid, msgid)
        return text.format(**fields) if fields else text

    def words(self, msgids: Mapping[str, str], lang: str | None = None) -> dict[str, str]:
        """A key -> translated text table for the screens (`{"mise": "stake"}` -> French)."""
        return {key: self(msgid, lang) for key, msgid in msgids.items()}

    def missing(self, msgids: list[str], lang: str) -> list[str]:
        """The msgids with no translation in `lang` (for the tests)."""
        have = self.translations.get(lang, {})
        return [m for m in msgids if m not in have]
