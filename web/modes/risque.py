"""Risque's page for the game master: the characters, the Honour Reserve, a Risque's pool
builder (every bonus with what it is worth), the secret Mises revealed together, the chance of
reaching 10 before the roll, the roll, the Privilege and the Truths. In French by default."""

from __future__ import annotations

from flask import session

from controller.games.risque import HONOUR_REASONS, PIP_LABELS
from controller.settings import N_
from web.modes import ModePage, PageInput, reason

#: The page's own words in French (English -> French): the record's page gives them to the
#: dashboard's translations (`ModePage.french`). Risque is shown in French by default.
FRENCH = {
    'Characters': 'Personnages', 'Name': 'Nom', 'rank': 'rang', 'Points (+/−)': 'Points (+/−)',
    'Why': 'Pourquoi', 'Change the Reserve': 'Changer la Réserve',
    'Clan': 'Clan',
    'Virtues': 'Vertus',
    'Giri': 'Giri',
    'Aspects': 'Aspects',
    'Reputations': 'Réputations',
    'Glory': 'Gloire',
    'Handicaps': 'Handicaps',
    'Wounds': 'Blessures',
    'Equipment': 'Équipement',
    'Honour Reserve': "Réserve d'Honneur",
    'Risque': 'Risque',
    'Duel': 'Duel',
    'Seppuku': 'Seppuku',
    'Open a Risque (tap the characters clockwise)':
        "Ouvrir un Risque (touchez les personnages dans le sens des aiguilles d'une montre)",
    'Dice pool': 'Réserve de dés',
    'dice': 'dés',
    'Build with': 'Constituer avec',
    'Mises': 'Mises',
    'Stake (in secret)': 'Miser (en secret)',
    'staked': 'misé',
    'Reveal the Mises': 'Dévoiler les Mises',
    'Roll': 'Lancer',
    'to roll': 'à lancer',
    'Chance of reaching 10': "Chance d'atteindre 10",
    'Score': 'Score', 'the Privilege tells the result': 'le Privilège raconte le Résultat',
    'the Narrator tells the result': 'le Narrateur raconte le Résultat',
    'Truths to expect': 'Vérités à espérer',
    'Privilege': 'Privilège',
    'Mises kept': 'Mises conservées',
    'Truth': 'Vérité',
    'Start with': 'Commence par',
    '2 Mises → 1 Glory': '2 Mises → 1 Gloire',
    'Pass': 'Passer',
    'Whose Truth': 'À qui la Vérité',
    'The Narrator tells': 'Le Narrateur raconte',
    'dead': 'mort',
    'Last Risque': 'Dernier Risque',
    'Add a character': 'Ajouter un personnage',
    'worth': 'vaut',
    'costs 1 Honour': 'coûte 1 Honneur',
    'gives 1 Honour': 'donne 1 Honneur',
    'dice (e.g. 6 3 1)': 'dés (ex. 6 3 1)',
    "For the Clan's Honour": "Pour l'Honneur du Clan",
    "the Clan's direct interest": 'intérêt direct du Clan',
    "the Clan's dignity": 'dignité du Clan',
    'danger to fulfil a duty': 'danger pour une obligation',
    "the Clan's Bushido": 'Bushido du Clan',
    'A Truth for 1 Honour': "Une Vérité pour 1 Point d'Honneur",
}

#: The seed's reasons that add Honour, in words.
HONOUR_LABELS = dict(zip(HONOUR_REASONS, ("the Clan's direct interest", "the Clan's dignity",
                                          "danger to fulfil a duty", "the Clan's Bushido"),
                         strict=True))


def tr(text: str) -> str:
    """`text` in French unless this screen chose English: Risque speaks French by default."""
    return text if session.get("lang") == "en" else FRENCH.get(text, text)


def context(page: PageInput) -> dict:
    engine, state, view = page.engine, page.state, page.view
    risk = view["risque"]
    alive = [c["name"] for c in view["characters"] if c["alive"]]
    out = {"tr": tr, "characters": view["characters"], "honour": view["honour"],
           "risk": risk, "last": view["last"], "alive": alive,
           "honour_reasons": list(HONOUR_REASONS), "honour_labels": HONOUR_LABELS,
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


PAGE = ModePage("risque", "modes/risque.html", context, faces_for=faces_for, french=FRENCH,
                journal_words=JOURNAL)
