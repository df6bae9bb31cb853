"""Risque's page for the game master: the characters, the Honour Reserve, a Risque's pool
builder (every bonus with what it is worth), the secret Mises revealed together, the chance of
reaching 10 before the roll, the roll, the Privilege and the Truths. In French by default."""

from __future__ import annotations

from flask import session

from controller.games.risque import HONOUR_REASONS, PIP_LABELS
from web.modes import ModePage, PageInput, reason

#: The page's words: the game's own French terms by default, English available (one place for
#: this mode; the dashboard's catalogs take them over).
WORDS = {
    "fr": {"characters": "Personnages", "clan": "Clan", "virtues": "Vertus", "giri": "Giri",
           "aspects": "Aspects", "reputations": "Réputations", "glory": "Gloire",
           "handicaps": "Handicaps", "wounds": "Blessures", "equipment": "Équipement",
           "honour": "Réserve d'Honneur", "risque": "Risque", "duel": "Duel",
           "seppuku": "Seppuku", "open": "Ouvrir un Risque (touchez les personnages dans le "
           "sens des aiguilles d'une montre)", "pool": "Réserve de dés", "dice": "dés",
           "build": "Constituer avec", "mises": "Mises", "stake": "Miser (en secret)",
           "staked": "misé", "reveal": "Dévoiler les Mises", "roll": "Lancer",
           "to_roll": "à lancer", "reach": "Chance d'atteindre 10", "score": "Score",
           "privilege": "Privilège", "kept": "Mises conservées", "truth": "Vérité",
           "truth_from": "Commence par", "glory_for_mises": "2 Mises → 1 Gloire",
           "pass": "Passer", "speaker": "À qui la Vérité", "narrator": "Le Narrateur raconte",
           "dead": "mort", "last": "Dernier Risque", "add": "Ajouter un personnage",
           "worth": "vaut", "costs_honour": "coûte 1 Honneur", "gives_honour":
           "donne 1 Honneur", "dice_entry": "dés (ex. 6 3 1)",
           "honour_for": "Pour l'Honneur du Clan",
           "clan-interest": "intérêt direct du Clan", "clan-dignity": "dignité du Clan",
           "duty-in-danger": "danger pour une obligation", "bushido": "Bushido du Clan",
           "honour_truth": "Une Vérité pour 1 Point d'Honneur"},
    "en": {"characters": "Characters", "clan": "Clan", "virtues": "Virtues", "giri": "Giri",
           "aspects": "Aspects", "reputations": "Reputations", "glory": "Glory",
           "handicaps": "Handicaps", "wounds": "Wounds", "equipment": "Equipment",
           "honour": "Honour Reserve", "risque": "Risque", "duel": "Duel",
           "seppuku": "Seppuku", "open": "Open a Risque (tap the characters clockwise)",
           "pool": "Dice pool", "dice": "dice", "build": "Build with", "mises": "Mises",
           "stake": "Stake (in secret)", "staked": "staked", "reveal": "Reveal the Mises",
           "roll": "Roll", "to_roll": "to roll", "reach": "Chance of reaching 10",
           "score": "Score", "privilege": "Privilege", "kept": "Mises kept",
           "truth": "Truth", "truth_from": "Start with", "glory_for_mises": "2 Mises → 1 Glory",
           "pass": "Pass", "speaker": "Whose Truth", "narrator": "The Narrator tells",
           "dead": "dead", "last": "Last Risque", "add": "Add a character", "worth": "worth",
           "costs_honour": "costs 1 Honour", "gives_honour": "gives 1 Honour",
           "dice_entry": "dice (e.g. 6 3 1)", "honour_for": "For the Clan's Honour",
           "clan-interest": "the Clan's direct interest", "clan-dignity": "the Clan's dignity",
           "duty-in-danger": "danger to fulfil a duty", "bushido": "the Clan's Bushido",
           "honour_truth": "A Truth for 1 Honour"},
}


def words() -> dict[str, str]:
    """French unless this screen chose English (Risque is shown in French by default)."""
    return WORDS["en"] if session.get("lang") == "en" else WORDS["fr"]


def context(page: PageInput) -> dict:
    engine, state, view = page.engine, page.state, page.view
    risk = view["risque"]
    alive = [c["name"] for c in view["characters"] if c["alive"]]
    out = {"w": words(), "characters": view["characters"], "honour": view["honour"],
           "risk": risk, "last": view["last"], "alive": alive,
           "honour_reasons": list(HONOUR_REASONS),
           "open_reason": reason(engine, state, "risque", characters=alive[:1])
           if alive else "add a character first"}
    if risk is not None:
        for p in risk["participants"]:
            who = p["character"]
            if risk["phase"] == "building" and p["pool"] is not None:
                p["mise_buttons"] = [{"mises": m, "reason": None}
                                     for m in range(p["pool"]["dice"])]
            if risk["phase"] == "truths":
                p["from_reason"] = reason(engine, state, "truths-from", character=who)
            if risk["phase"] == "rolling" and not p["rolled_all"]:
                p["roll_reason"] = reason(engine, state, "roll", character=who, dice=[1])
        out["reveal_reason"] = reason(engine, state, "reveal")
        if risk["phase"] == "truths":
            speaker = risk["speaker"]
            out["truth_reason"] = reason(engine, state, "truth", character=speaker)
            out["glory_reason"] = reason(engine, state, "glory", character=speaker)
        if risk["phase"] == "privilege":
            best = max(p["score"] for p in risk["participants"])
            out["tied"] = [p["character"] for p in risk["participants"] if p["score"] == best]
    return out


def faces_for(label: str | None) -> list[str]:
    return list(PIP_LABELS)


PAGE = ModePage("risque", "modes/risque.html", context, faces_for=faces_for)
