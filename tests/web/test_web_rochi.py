"""The Rochi page: the six stacks with their price, owner, pot and state, the players' hands
and shields, cards entered by hand (deal or play), the last settlement with every penalty."""

from __future__ import annotations

import html as html_lib
import re

from tests.web.support import open_table

SEEDS = ["KIN-6-DAY-01", "COMMONS-7-DAY-01", "COMMONS-7-DAY-02", "MAGES-2-DAY-01",
         "MAGES-2-NIGHT-01", "REALM-3-DAY-01"]


def panel(client) -> str:
    return html_lib.unescape(client.get("/table/panel").text)


def test_a_hand_of_rochi_played_from_the_page(tmp_path, make_app, auth):
    table = open_table(tmp_path / "rochi.sqlite3", mode="rochi",
                       players=("Chance", "Benedict", "Aubrey"), coins=100)
    try:
        client = make_app(table).test_client()
        auth.client = client
        auth.setup()
        assert auth.command("start-hand").status_code == 201
        for card in SEEDS:
            assert auth.command("deal", card=card).status_code == 201
        page = panel(client)
        # Mages was cut by the seeds: locked, no price; Kin shows its count against its cut.
        mages = re.search(r'data-suit="mages">(.*?)</ol>', page, re.S).group(1)
        assert "locked" in mages and "Price" not in mages
        kin = re.search(r'data-suit="kin">(.*?)</ol>', page, re.S).group(1)
        assert "1 / 6" in kin and "Price 2" in kin and "unclaimed" in kin
        # The card buttons: a seen card's deal is greyed with the reason.
        button = re.search(r'<button[^>]*"card": "KIN-6-DAY-01"[^>]*>', page).group(0)
        assert 'aria-disabled="true"' in button and "KIN-6-DAY-01 is already seen" in button, button
        play = re.search(r'<button[^>]*"card": "KIN-6-DAY-02"[^>]*"kind": "play"[^>]*>', page)
        assert play and '"player": "Chance"' in play.group(0) and "aria-disabled" not in play.group(0)
        assert auth.command("play", player="Chance", card="KIN-6-DAY-02").status_code == 201
        page = panel(client)
        kin = re.search(r'data-suit="kin">(.*?)</ol>', page, re.S).group(1)
        assert "Chance" in kin and "2 / 6" in kin and ">2<" in kin  # the pot
        # What a player owns is said in the suits' words, not their keys.
        chance = re.search(r'data-player="Chance">(.*?)</div>\s*</div>', page, re.S).group(1)
        assert '<span class="owns">Kin</span>' in chance
        refused = auth.command("play", player="Chance", card="KIN-6-DAY-03")
        assert refused.status_code == 422 and "played a card this turn" in refused.text
        # Benedict and Aubrey fold: Chance is the last standing with Kin and wins its pot.
        for cmd in (("end-turn", "Chance"), ("fold", "Benedict"), ("fold", "Aubrey")):
            assert auth.command(cmd[0], player=cmd[1]).status_code == 201
        page = panel(client)
        assert "the last player standing wins" in page and 'id="rochi-result"' in page
        assert "Winner: <strong>Chance</strong> · Kin · Pot 2" in page
        # The table's last settlement: no bet was settled, so each player's coins won or lost
        # (Chance takes back the 2 coins she paid into Kin's pot).
        moved = re.search(r'id="coins-moved">(.*?)</table>', page, re.S).group(1)
        assert re.findall(r"<td>(\w+)</td><td[^>]*>([^<]+)</td>", moved) == [("Chance", "+2")]
    finally:
        table.journal.close()


def test_a_card_read_unsure_waits_for_the_bankers_correction(tmp_path, make_app, auth):
    """The camera's card, read without confidence: the banker is offered the cards of its suit
    (every card one tap away), and the corrected card is dealt as the seed it is."""
    from controller.games.observation import Observation, Seen
    from controller.live import LiveTable
    from web.camera import StillCamera

    table = open_table(tmp_path / "rochi.sqlite3", mode="rochi",
                       players=("Chance", "Benedict", "Aubrey"), coins=100)
    try:
        door = LiveTable(table)
        app = make_app(table, camera=StillCamera(b"\xff\xd8\xff\xe0fake\xff\xd9"), live=door)
        auth.client = app.test_client()
        auth.setup()
        assert auth.command("start-hand").status_code == 201
        door.observe(Observation((Seen("KIN-6-DAY-02", 0.55, (100.0, 50.0)),)))
        page = panel(auth.client)
        row = re.search(r'<div class="die-row([^"]*)" data-row="i0"(.*?)</div>', page, re.S)
        assert row and "uncertain" in row.group(0)
        faces = re.findall(r'data-face="([A-Z0-9-]+)"', row.group(0))
        assert faces[:12] == [f"KIN-6-{h}-{n:02d}" for h in ("DAY", "NIGHT") for n in range(1, 7)]
        response = auth.client.post("/api/live/confirm", headers={"X-CSRF-Token": auth.token},
                                    json={"pending": door.pending.id,
                                          "corrections": {"0": "KIN-6-DAY-03"}})
        assert response.status_code == 200, response.json
        assert table.state.hand.seen == ("KIN-6-DAY-03",) and table.state.hand.seeds_left == 5
    finally:
        table.journal.close()


def test_a_captains_game_cut_and_stopped_from_the_page(tmp_path, make_app, auth):
    """Captain's Rochi on the page: the cut's settlement names winner and penalty; stopping by
    agreement shows how the game ended and each share; a drop-out button per player."""
    table = open_table(tmp_path / "captains.sqlite3", mode="captains-rochi",
                       players=("Ann", "Bob"), coins=100)
    try:
        client = make_app(table).test_client()
        auth.client = client
        auth.setup()
        # Between games the page gives the button: Bob moves first, then Ann.
        button = re.search(r'id="leader-button"(.*?)</div>', panel(client), re.S).group(1)
        assert re.findall(r"data-cmd='([^']*)'", button) == [
            '{"kind": "button", "player": "Ann"}', '{"kind": "button", "player": "Bob"}']
        assert auth.command("button", player="Bob").status_code == 201
        assert auth.command("start-game").status_code == 201
        assert table.state.game.players == ("Bob", "Ann")
        assert auth.command("stop").status_code == 201
        assert auth.command("button", player="Ann").status_code == 201
        assert auth.command("start-game").status_code == 201
        assert 'id="leader-button"' not in panel(client)
        for card in ["VALOR-5-DAY-01", "VALOR-5-DAY-02", "VALOR-5-DAY-03", "KIN-6-DAY-01",
                     "COMMONS-7-DAY-01", "WORLD-4-DAY-01", "REALM-3-DAY-01", "COMMONS-7-DAY-02"]:
            assert auth.command("deal", card=card).status_code == 201
        page = panel(client)
        assert re.findall(r'<button[^>]*drop-out[^>]*>\s*(\w+)', page) == ["Ann", "Bob"]
        for cmd in (("play", "Ann", "VALOR-5-DAY-04"), ("play", "Bob", "VALOR-5-NIGHT-01")):
            assert auth.command(cmd[0], player=cmd[1], card=cmd[2]).status_code == 201
        assert auth.command("deal", player="Bob", card="VALOR-5-NIGHT-02").status_code == 201
        page = panel(client)
        result = re.search(r'id="rochi-result">(.*?)</section>', page, re.S).group(1)
        assert "the suit cut: its owner wins" in result and "Winner: <strong>Bob</strong>" in result
        assert re.search(r"<td>Ann</td><td[^>]*>1</td><td[^>]*>3</td><td[^>]*>2 \+ 1</td>", result)
        # Bob won the penalty (2) and the pot less one (5); Ann paid 2, the odd coin and the ante.
        moved = re.search(r'id="coins-moved">(.*?)</table>', page, re.S).group(1)
        assert re.findall(r"<td>(\w+)</td><td[^>]*>([^<]+)</td>", moved) == [("Ann", "-4"),
                                                                             ("Bob", "+7")]
        # The drop-out waits for Ann's odd coin: its button says why.
        button = re.search(r'<button[^>]*drop-out[^>]*>', page).group(0)
        assert "odd penalty coin waits for a pot" in button
        assert auth.command("stop").status_code == 201
        result = re.search(r'id="rochi-result">(.*?)</section>', panel(client), re.S).group(1)
        assert "the players stop and divide the pots" in result
        assert "Pots divided: Ann 6, Bob 7" in result and "no winner" not in result
    finally:
        table.journal.close()


def test_a_refused_play_says_why_in_french(tmp_path, make_app, auth):
    """A Rochi refusal is a template with named values: in French the words are French and the
    names stay as they are."""
    table = open_table(tmp_path / "rochi.sqlite3", mode="rochi",
                       players=("Chance", "Benedict", "Aubrey"), coins=100)
    try:
        client = make_app(table).test_client()
        auth.client = client
        auth.setup()
        assert auth.command("start-hand").status_code == 201
        refused = auth.command("play", player="Benedict", card="KIN-6-DAY-02")
        assert refused.json["error"] == "the stacks are being seeded (seed cards to deal: 6); " \
                                        "Benedict cannot play yet"
        client.post("/language/fr", data={"csrf_token": auth.token, "next": "/"})
        refused = auth.command("play", player="Benedict", card="KIN-6-DAY-02")
        assert refused.json["error"] == ("les piles sont en cours d'ensemencement (cartes de "
                                         "semis à donner : 6) ; Benedict ne peut pas encore jouer")
        for card in SEEDS:
            assert auth.command("deal", card=card).status_code == 201
        refused = auth.command("play", player="Benedict", card="KIN-6-DAY-02")
        assert refused.json["error"] == "c'est le tour de Chance, pas celui de Benedict"
    finally:
        table.journal.close()


def test_between_hands_the_page_moves_the_button_takes_a_joining_fee_and_grants_markers(
        tmp_path, make_app, auth):
    """The table business of Rochi between hands, from the page's own buttons: the leader
    button given to a player, a newcomer's joining fee into the pot she chooses, a leaver's
    marker (the table's settings joining_fee and markers on)."""
    import json

    table = open_table(tmp_path / "rochi.sqlite3", mode="rochi",
                       players=("Chance", "Benedict", "Aubrey"), coins=100,
                       settings={"joining_fee": True, "markers": True})

    def tap(page: str, selector: str, words: str):
        """Send the command of the button in `selector`'s block whose label is `words`."""
        block = re.search(selector + r"(.*?)</div>", page, re.S).group(1)
        found = re.search(r"data-cmd='([^']*)'[^>]*>" + re.escape(words) + "</button>", block)
        args = json.loads(found.group(1))
        return auth.command(args.pop("kind"), **args)

    try:
        auth.client = make_app(table).test_client()
        auth.setup()
        # A hand leaves 2 coins in Kin's pot (Benedict wins Commons' as the last standing).
        assert auth.command("start-hand").status_code == 201
        for cmd in [("deal", {"card": c}) for c in SEEDS] + [
                ("play", {"player": "Chance", "card": "KIN-6-DAY-02"}),
                ("end-turn", {"player": "Chance"}),
                ("play", {"player": "Benedict", "card": "COMMONS-7-DAY-03"}),
                ("end-turn", {"player": "Benedict"}), ("fold", {"player": "Aubrey"}),
                ("fold", {"player": "Chance"})]:
            assert auth.command(cmd[0], **cmd[1]).status_code == 201, cmd
        assert table.state.hand is None and table.state.leader == "Benedict"
        # The leader button, given to Chance from the page.
        assert tap(panel(auth.client), 'id="leader-button"', "Chance").status_code == 201
        assert table.state.leader == "Chance"
        # Dora joins: ceil(2 / 3) = 1 coin, into the pot of her choice.
        assert auth.command("join", player="Dora").status_code == 201
        assert auth.command("buy-in", player="Dora", amount=10).status_code == 201
        page = panel(auth.client)
        assert "Dora: joining fee 1 into" in page
        assert tap(page, 'class="actions joining-fee" data-player="Dora"', "Valor"
                   ).status_code == 201
        assert table.state.ledger.balance("pot:rochi-valor") == 1 and not table.state.owes("Dora")
        assert "joining fee" not in panel(auth.client)
        # Benedict sits out with a marker: floor(3 / 4) = 0 coins credited.
        assert tap(panel(auth.client), 'id="markers"', "Benedict").status_code == 201
        assert table.state.markers == (("Benedict", 0),) and "Benedict" not in table.state.seats
        # The Last Hand, agreed from the page and taken back (a player refused).
        page = panel(auth.client)
        assert tap(page, 'class="actions"', "Last Hand").status_code == 201
        assert table.state.last_hand
        assert tap(panel(auth.client), 'class="actions"', "Take back the Last Hand"
                   ).status_code == 201
        assert not table.state.last_hand
        # In a hand, the between-hands business is not offered.
        assert auth.command("start-hand").status_code == 201
        assert 'id="leader-button"' not in panel(auth.client)
    finally:
        table.journal.close()
