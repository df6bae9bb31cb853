"""English and French: the dashboard's words. English is the key; French is looked up."""

from __future__ import annotations

from functools import cache

from flask import current_app, session

LANGUAGES = ("en", "fr")

FRENCH = {
    # frame
    "Table": "Table",
    "Money": "Caisse",
    "Journal chain head": "Tête de chaîne du journal",
    "Calibration": "Calibrage",
    "Settings": "Réglages",
    "Users": "Utilisateurs",
    "Log out": "Déconnexion",
    "Log in": "Connexion",
    "User name": "Nom d'utilisateur",
    "Password": "Mot de passe",
    "Password again": "Mot de passe (encore)",
    "Role": "Rôle",
    "banker": "banquier",
    "viewer": "spectateur",
    "Seats": "Places",
    "Seat": "Place",
    "Player": "Joueur",
    "Players": "Joueurs",
    "Balance": "Solde",
    "On the table": "Sur le tapis",
    "Camera": "Caméra",
    "No camera": "Pas de caméra",
    "No camera is connected: enter each roll by hand below.":
        "Aucune caméra n'est branchée : saisissez chaque lancer à la main ci-dessous.",
    "Live": "En direct",
    "Reconnecting…": "Reconnexion…",
    "Journal": "Journal",
    "Read-only screen": "Écran en lecture seule",
    "Settlement": "Règlement",
    "Last settlement": "Dernier règlement",
    "Bet": "Mise",
    "Stake": "Enjeu",
    "Result": "Résultat",
    "Paid": "Payé",
    "win": "gagne",
    "won": "gagné",
    "rolls": "lancers",
    "lose": "perd",
    "push": "rendu",
    # roll confirmation
    "Confirm the roll": "Confirmer le lancer",
    "Confirm": "Confirmer",
    "Reject: read again": "Rejeter : relire",
    "Throw the dice (demo table)": "Lancer les dés (table de démonstration)",
    "The camera reads them once they settle.": "La caméra les lit dès qu'ils sont immobiles.",
    "Tap the face each die shows.": "Touchez la face que montre chaque dé.",
    "uncertain": "incertain",
    "not read": "non lu",
    "read by the camera": "lu par la caméra",
    # chips and bets
    "Chip": "Jeton",
    "Bets": "Mises",
    "Shooter": "Lanceur",
    "Caster": "Lanceur",
    "Roll": "Lancer",
    "Banker sits here": "Le banquier est assis ici",
    "round": "manche",
    "no camera": "pas de caméra",
    "nobody is seated": "personne n'est assis",
    # money
    "Buy in": "Achat de jetons",
    "Cash out": "Encaisser",
    "Join": "S'asseoir",
    "Leave": "Partir",
    "Amount": "Montant",
    "Filter": "Filtrer",
    "Export CSV": "Exporter CSV",
    "Export JSONL": "Exporter JSONL",
    "Statements": "Relevés",
    "Print": "Imprimer",
    "House result": "Résultat de la maison",
    "Odds and house edge": "Cotes et avantage de la maison",
    "Probability": "Probabilité",
    "Pays": "Paie",
    "House edge": "Avantage maison",
    "Worst edge": "Pire avantage",
    "favours the player": "favorise le joueur",
    "These bets favour the player at the house's pays:":
        "Ces mises favorisent le joueur aux paiements de la maison :",
    # calibration
    "Show this face to the camera, anywhere on the felt:":
        "Montrez cette face à la caméra, n'importe où sur le tapis :",
    "Every face has its captures.": "Chaque face a ses captures.",
    "Capture": "Capturer",
    "Captured": "Capturé",
    "Learn": "Apprendre",
    "Accuracy": "Précision",
    "Confused pairs": "Paires confondues",
    "Profiles": "Profils",
    "active": "actif",
    "Activate": "Activer",
    "Roll back": "Revenir en arrière",
    "Felt corners": "Coins du tapis",
    "Where the felt is in the picture: from the four corner markers, or tap its four corners "
    "here, clockwise from the top-left.":
        "Où est le tapis sur l'image : d'après les quatre repères des coins, ou touchez ici ses "
        "quatre coins, dans le sens horaire depuis le coin en haut à gauche.",
    "Now": "Actuellement",
    "the corner markers": "les repères des coins",
    "Save the corners": "Enregistrer les coins",
    "Use the corner markers": "Utiliser les repères des coins",
    # settings
    "Save": "Enregistrer",
    "Saved.": "Enregistré.",
    "Apply to the table now": "Appliquer à la table maintenant",
    "Language": "Langue",
    # wizard
    "Welcome to feltbank": "Bienvenue dans feltbank",
    "Create the banker's account": "Créez le compte du banquier",
    "Create": "Créer",
    "Add a user": "Ajouter un utilisateur",
    "Remove": "Supprimer",
}

#: Words the scripts need.
SCRIPT_WORDS = ("Live", "Reconnecting…", "uncertain", "Confirm")


def language() -> str:
    lang = session.get("lang") or current_app.config.get("LANGUAGE", "en")
    return lang if lang in LANGUAGES else "en"


def t(text: str) -> str:
    """`text` in the session's language (the shared words, then the modes' pages' own)."""
    if language() == "fr":
        return FRENCH.get(text) or mode_words().get(text, text)
    return text


@cache
def mode_words() -> dict[str, str]:
    """Every mode page's own French words (`ModePage.french`)."""
    from controller.modes import modes
    from web.modes import page_for

    words: dict[str, str] = {}
    for name in modes():
        words.update(page_for(name).french)
    return words


def script_words() -> dict[str, str]:
    return {w: t(w) for w in SCRIPT_WORDS}
