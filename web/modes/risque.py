"""Risque's page for the game master: the characters, the Honour Reserve, a Risque's pool
builder (every bonus with what it is worth), the secret Mises revealed together, the chance of
reaching 10 before the roll, the roll, the Privilege and the Truths. In French by default."""

from __future__ import annotations

from controller.games.observation import PIP_LABELS
from controller.games.risque import HONOUR_REASONS
from controller.settings import N_
from web.i18n import t
from web.modes import ModePage, PageInput, reason

#: The seed's reasons that add Honour, in words.
HONOUR_LABELS = dict(zip(HONOUR_REASONS, (N_("the Clan's direct interest"),
                                          N_("the Clan's dignity"),
                                          N_("danger to fulfil a duty"), N_("the Clan's Bushido")),
                         strict=True))

#: The kinds of a pool's bonus ("aspect:Loyal", "clan"), in words.
BONUS_KINDS = {"virtue": N_("Virtue"), "giri": N_("Giri"), "clan": N_("Clan"),
               "name": N_("Name"), "aspect": N_("Aspect"), "reputation": N_("Reputation"),
               "equipment": N_("Equipment"), "honour": N_("Honour"),
               "handicap": N_("Handicap"), "daimyo": N_("Daimyo"), "wound": N_("Wound")}


def bonus_words(key: str) -> tuple[str, str]:
    """A bonus of a pool in words: its kind in the page's language, and the names it is about
    as the players wrote them ("wound:Bayushi Kachiko:Cut": "Wound", "Bayushi Kachiko · Cut")."""
    kind, _, about = key.partition(":")
    return t(BONUS_KINDS.get(kind, kind)), about.replace(":", " · ")


def context(page: PageInput) -> dict:
    engine, state, view = page.engine, page.state, page.view
    risk = view["risque"]
    alive = [c["name"] for c in view["characters"] if c["alive"]]
    out = {"characters": view["characters"], "honour": view["honour"], "bonus": bonus_words,
           "risk": risk, "last": view["last"], "alive": alive,
           "honour_reasons": list(HONOUR_REASONS), "honour_labels": HONOUR_LABELS,
           "open_reason": reason(engine, state, "risque", characters=alive[:1])
           if alive else t("add a character first")}
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


#: The journal's words for the mode's own commands, arguments and events.
JOURNAL = {
    "about": N_("about"),
    "aspect": N_("Aspect"),
    "award-glory": N_("award Glory"),
    "bonuses": N_("bonuses"),
    "character": N_("character"),
    "character-added": N_("character added"),
    "characters": N_("characters"),
    "compel": N_("compel"),
    "duel": N_("duel"),
    "glory": N_("spend Mises for Glory"),
    "glory-won": N_("Glory won"),
    "honour": N_("spend Honour"),
    "honour-changed": N_("Honour changed"),
    "honour-truth": N_("Truth with Honour"),
    "honour_for": N_("Honour for"),
    "kept": N_("kept"),
    "mise": N_("stake Mises"),
    "mises": N_("Mises"),
    "mises-revealed": N_("Mises revealed"),
    "mises-staked": N_("Mises staked"),
    "passed": N_("passed"),
    "points": N_("points"),
    "pool": N_("build a pool"),
    "pool-built": N_("pool built"),
    "privilege": N_("Privilege"),
    "privilege-tied": N_("Privilege tied"),
    "reputation": N_("Reputation"),
    "reputation-grown": N_("Reputation grown"),
    "reveal": N_("reveal the Mises"),
    "risque": N_("open a Risque"),
    "risque-opened": N_("Risque opened"),
    "risque-rolled": N_("Risque rolled"),
    "seppuku": N_("seppuku"),
    "text": N_("text"),
    "truth": N_("a Truth"),
    "truths-from": N_("Truths from"),
    "virtue": N_("Virtue"),
    "why": N_("why"),
}


PAGE = ModePage("risque", "modes/risque.html", context, faces_for=faces_for,
                default_language="fr",
                journal_words=JOURNAL)
