"""The house dashboard's own words in French; the rest comes from the table's (web.i18n)."""

from __future__ import annotations

from web.i18n import language
from web.i18n import t as table_t

FRENCH = {
    "Bought in": "Cave",
    "CSV export": "Export CSV",
    "Cashed out": "Encaissé",
    "Chain head": "Tête de chaîne",
    "Fees": "Frais",
    "House result by day": "Résultat de la maison par jour",
    "House result by mode": "Résultat de la maison par jeu",
    "House result by shift": "Résultat de la maison par équipe",
    "House result by table": "Résultat de la maison par table",
    "Last shipment": "Dernier envoi",
    "Lost": "Perdu",
    "Mode": "Jeu",
    "Net": "Net",
    "No player yet": "Aucun joueur pour l'instant",
    "No table yet: feltbank house add-table ID":
        "Aucune table pour l'instant : feltbank house add-table ID",
    "Pots paid": "Mis aux pots",
    "Pots won": "Gagné aux pots",
    "Refused": "Refusé",
    "Refused shipments": "Envois refusés",
    "Results": "Résultats",
    "Shifts and days by the table clock, in UTC: night 0-8 h, day 8-16 h, evening 16-24 h.":
        "Équipes et jours selon l'horloge de la table, en UTC : nuit 0-8 h, jour 8-16 h, "
        "soir 16-24 h.",
    "Staked": "Misé",
    "Statements across tables": "Relevés de toutes les tables",
    "Tables": "Tables",
    "The house": "La maison",
    "Won": "Gagné",
    "all tables": "toutes les tables",
    "the house": "la maison",
}

#: The results page's charts, by what they group the house result by.
RESULT_TITLES = {"table": "House result by table", "mode": "House result by mode",
                 "shift": "House result by shift", "day": "House result by day"}


def t(text: str) -> str:
    """`text` in the session's language: the house's words, else the table's."""
    if language() == "fr" and text in FRENCH:
        return FRENCH[text]
    return table_t(text)
