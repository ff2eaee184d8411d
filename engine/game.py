"""Rounds and games: seating, roles, hands, turns, actions, round end, scoring, ranking.

A ``Round`` is a state machine driven by ``Move`` values; it returns ``Event`` values.
It runs in two modes:

* tracked hands (``Round.deal``): the engine holds the draw pile and every hand, as in a
  simulated game; a move must use a card from the mover's hand.
* table mode (``Round.at_table``): the cards are on a real table and the engine sees only
  what the camera and the phones report. Moves carry the card played but no hand is
  checked, and the end of the draw pile is declared by the players.

Randomness is injected: every function that shuffles takes a ``random.Random``.
All state is plain data, so a round and a game go to JSON and back exactly.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

from .board import Board, BoardError, Cell, Placement, placement_from_dict
from .catalogue import Catalogue, CatalogueError, default_catalogue
from .options import Rules
from .scoring import (
    MINER,
    SABOTEUR,
    SELFISH,
    base_payout,
    ranking,
    saboteur2_payout,
    take_worth,
    theft_order,
)

ROUNDS = 3


class MoveError(ValueError):
    """A move the rules do not allow now, with the reason in English words. ``code`` names
    the reason for a translation and ``params`` fill it in (seats as seat numbers, tools
    by id, an illegal placement's ``reasons``); "refused" is any reason without a code of
    its own."""

    def __init__(self, message: str, code: str = "refused", **params):
        super().__init__(message)
        self.code = code
        self.params = params


# ------------------------------------------------------------------ moves


@dataclass(frozen=True)
class Move:
    """A player's turn. ``card`` is the card used (a face id or an action id)."""

    seat: int
    kind: str  # place | break | repair | rockfall | map | theft | hands-off | swap-hats | swap-hands | trap | free | inspection | remove | pass
    card: str | None = None
    placement: Placement | None = None
    target: int | None = None  # a seat
    tool: str | None = None  # repair: which tool; remove: which card in front ("broken-pickaxe", "trapped", "theft")
    cell: Cell | None = None  # rockfall, map
    discards: tuple[str, ...] = ()  # pass, remove

    def to_json(self) -> dict:
        out: dict = {"seat": self.seat, "kind": self.kind}
        if self.card is not None:
            out["card"] = self.card
        if self.placement is not None:
            out["placement"] = self.placement.to_dict()
        if self.target is not None:
            out["target"] = self.target
        if self.tool is not None:
            out["tool"] = self.tool
        if self.cell is not None:
            out["cell"] = list(self.cell)
        if self.discards:
            out["discards"] = list(self.discards)
        return out

    @classmethod
    def from_json(cls, doc: dict) -> Move:
        return cls(
            seat=int(doc["seat"]),
            kind=str(doc["kind"]),
            card=doc.get("card"),
            placement=placement_from_dict(doc["placement"]) if "placement" in doc else None,
            target=doc.get("target"),
            tool=doc.get("tool"),
            cell=tuple(doc["cell"]) if "cell" in doc else None,
            discards=tuple(doc.get("discards", ())),
        )


@dataclass(frozen=True)
class Event:
    """Something that happened. ``private_to`` names the only seat allowed to see it."""

    kind: str
    text: str
    seat: int | None = None
    data: dict = field(default_factory=dict)
    private_to: int | None = None

    def to_json(self) -> dict:
        out = {"kind": self.kind, "text": self.text, "seat": self.seat, "data": self.data}
        if self.private_to is not None:
            out["private_to"] = self.private_to
        return out


# ------------------------------------------------------------------ deals


def table_for(rules: Rules, catalogue: Catalogue, players: int) -> dict:
    table = catalogue.tables[rules.game if rules.expansion else "base"]
    low, high = table["players"]
    if not low <= players <= high:
        name = "Saboteur 2" if rules.expansion else "Saboteur"
        raise MoveError(f"{name} is played by {low} to {high} players, not {players}")
    return table


def role_pool(rules: Rules, catalogue: Catalogue, players: int) -> list[str]:
    """The dwarf cards shuffled for a round: one more than players in the base game, all 15 in Saboteur 2."""
    table = table_for(rules, catalogue, players)
    if rules.expansion:
        return [role for role, n in catalogue.roles["saboteur2"].items() for _ in range(n)]
    pool = [SABOTEUR] * table["saboteurs"][str(players)] + [MINER] * table["miners"][str(players)]
    if rules.selfish_dwarf:
        pool.append(SELFISH)
    return pool


def hand_size(rules: Rules, catalogue: Catalogue, players: int) -> int:
    table = table_for(rules, catalogue, players)
    return table["hand"] if rules.expansion else table["hand"][str(players)]


def build_deck(rules: Rules, catalogue: Catalogue) -> list[str]:
    """Path and action cards, one entry per physical card (start and goals are not dealt)."""
    deck = [f.id for f in catalogue.path_faces(rules.sets) for _ in range(f.copies)]
    deck += [a.id for a in catalogue.action_cards(rules.sets) for _ in range(a.copies)]
    return deck


def gold_deck(catalogue: Catalogue) -> list[int]:
    return [value for value, copies in catalogue.gold_cards["base"] for _ in range(copies)]


def deal_goals(catalogue: Catalogue, rng: random.Random) -> list[str]:
    goals = [f.id for f in catalogue.faces.values() if f.kind == "goal" and f.set == "base"]
    rng.shuffle(goals)
    return goals


# ------------------------------------------------------------------ round


@dataclass
class SeatState:
    role: str
    hand: list[str] | None = None  # None in table mode
    broken: set[str] = field(default_factory=set)
    trapped: bool = False
    theft: int | None = None  # the turn number its theft card was laid (order of stealing)
    peeks: list[dict] = field(default_factory=list)  # what this seat alone has seen

    def to_json(self) -> dict:
        return {"role": self.role, "hand": self.hand, "broken": sorted(self.broken), "trapped": self.trapped,
                "theft": self.theft, "peeks": self.peeks}

    @classmethod
    def from_json(cls, doc: dict) -> SeatState:
        return cls(doc["role"], doc.get("hand"), set(doc.get("broken", ())), bool(doc.get("trapped", False)),
                   doc.get("theft"), list(doc.get("peeks", ())))


class Round:
    def __init__(self, rules: Rules, board: Board, seats: list[SeatState], *, first: int = 0,
                 draw_pile: list[str] | None = None, unused_roles: list[str] | None = None,
                 set_aside: list[str] | None = None, catalogue: Catalogue | None = None):
        self.rules = rules
        self.catalogue = catalogue or board.catalogue
        self.board = board
        self.seats = seats
        self.turn = first
        self.first = first
        self.turns_played = 0
        self.draw_pile = draw_pile  # None in table mode
        self.discard_pile: list[str] = []
        self.set_aside = set_aside or []
        self.unused_roles = unused_roles or []
        self.passes_in_a_row = 0
        self.last_player: int | None = None  # the next round starts at this player's left (see Rules.next_starter)
        self.finisher: int | None = None
        self.ended = False
        self.end_reason: str | None = None
        self.history: list[Move] = []

    # -------------------------------------------------------------- creation

    @classmethod
    def deal(cls, rules: Rules, players: int, rng: random.Random, *, first: int = 0,
             catalogue: Catalogue | None = None) -> Round:
        """A round with every card tracked: roles, goals, draw pile and hands dealt from ``rng``."""
        catalogue = catalogue or default_catalogue()
        roles = role_pool(rules, catalogue, players)
        rng.shuffle(roles)
        board = Board.standard(deal_goals(catalogue, rng), catalogue)
        deck = build_deck(rules, catalogue)
        rng.shuffle(deck)
        set_aside = []
        if rules.expansion:
            set_aside, deck = deck[: catalogue.tables["saboteur2"]["set_aside"]], deck[catalogue.tables["saboteur2"]["set_aside"]:]
        size = hand_size(rules, catalogue, players)
        seats = []
        for s in range(players):
            hand, deck = deck[:size], deck[size:]
            seats.append(SeatState(roles[s], hand))
        return cls(rules, board, seats, first=first, draw_pile=deck, unused_roles=roles[players:],
                   set_aside=set_aside, catalogue=catalogue)

    @classmethod
    def at_table(cls, rules: Rules, players: int, rng: random.Random, *, first: int = 0,
                 goals: list[str] | None = None, catalogue: Catalogue | None = None) -> Round:
        """A round whose cards are physical: the engine deals roles and keeps the goal secrets only."""
        catalogue = catalogue or default_catalogue()
        roles = role_pool(rules, catalogue, players)
        rng.shuffle(roles)
        board = Board.standard(goals if goals is not None else deal_goals(catalogue, rng), catalogue)
        seats = [SeatState(roles[s]) for s in range(players)]
        return cls(rules, board, seats, first=first, unused_roles=roles[players:], catalogue=catalogue)

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def tracked(self) -> bool:
        return self.draw_pile is not None

    @property
    def roles(self) -> list[str]:
        return [s.role for s in self.seats]

    # -------------------------------------------------------------- playing

    def play(self, move: Move, rng: random.Random | None = None) -> list[Event]:
        """Carry out one turn. Raises MoveError, leaving the round unchanged, if it is not allowed."""
        if self.ended:
            raise MoveError("the round is over", "round-over")
        if not 0 <= move.seat < self.players:
            raise MoveError(f"there is no seat {move.seat}")
        if self.tracked and move.seat != self.turn:
            raise MoveError(f"it is seat {self.turn}'s turn, not seat {move.seat}'s", "not-your-turn", seat=self.turn)
        handler = getattr(self, "_do_" + move.kind.replace("-", "_"), None)
        if handler is None:
            raise MoveError(f"unknown kind of move {move.kind!r}")
        me = self.seats[move.seat]
        # Only passes made once the pile is gone count toward "everyone passes in turn".
        pile_was_empty = self.draw_pile is not None and not self.draw_pile
        used = self._cards_used(move)
        if me.hand is not None:
            missing = _missing_from(me.hand, used)
            if missing:
                raise MoveError(f"seat {move.seat} does not hold {missing}")
        events = handler(move, me, rng)  # validates before it changes anything
        if me.hand is not None:
            for card in used:
                me.hand.remove(card)
        if move.kind == "place" or (move.kind not in ("pass", "remove") and self.rules.next_starter == "last-card"):
            self.last_player = move.seat
        self.discard_pile.extend(c for c in used if move.kind in ("pass", "remove") or self._action_discarded(move))
        self.history.append(move)
        self.turns_played += 1
        self.passes_in_a_row = self.passes_in_a_row + 1 if move.kind == "pass" and pile_was_empty else 0
        if not self.ended:
            self._draw(move, me)
            self._check_exhausted(events)
            self.turn = (move.seat + 1) % self.players
        return events

    def set_turn(self, seat: int) -> None:
        """Table mode: the players say whose turn it is (the camera cannot see who lays a card)."""
        if self.ended:
            raise MoveError("nobody has a turn: the round is over")
        if self.tracked:
            raise MoveError("with tracked hands the turn follows the play")
        if not 0 <= seat < self.players:
            raise MoveError(f"there is no seat {seat}")
        self.turn = seat

    def declare_exhausted(self) -> list[Event]:
        """Table mode: the players say the draw pile is empty and nobody can play."""
        if self.ended:
            raise MoveError("the round is over", "round-over")
        return self._end("exhausted", "the draw pile is empty and nobody can play: the gold was not reached")

    def _cards_used(self, move: Move) -> list[str]:
        if move.kind in ("pass", "remove"):
            return list(move.discards)
        if move.kind == "place" and move.placement is not None:
            return [move.placement.face]
        return [move.card] if move.card else []

    def _action_discarded(self, move: Move) -> bool:
        # Cards that stay in front of a player are not discarded when played.
        return move.kind not in ("place", "break", "theft", "trap")

    def _draw(self, move: Move, me: SeatState) -> None:
        if self.draw_pile is None:
            return
        # A pass draws as many as it discarded (one in the base game); every other turn draws one,
        # including Saboteur 2's discard-two removal.
        wanted = len(move.discards) if move.kind == "pass" else 1
        for _ in range(min(wanted, len(self.draw_pile))):
            me.hand.append(self.draw_pile.pop())

    def _check_exhausted(self, events: list[Event]) -> None:
        if self.draw_pile is None or self.draw_pile:
            return
        if self.passes_in_a_row >= self.players or all(not s.hand for s in self.seats):
            events.extend(self._end("exhausted", "the draw pile is empty and nobody can play: the gold was not reached"))

    def _end(self, reason: str, text: str) -> list[Event]:
        self.ended = True
        self.end_reason = reason
        return [Event("round-end", text, None, {"reason": reason, "finisher": self.finisher})]

    # -------------------------------------------------------------- handlers

    def _do_place(self, move: Move, me: SeatState, rng) -> list[Event]:
        p = move.placement
        if p is None:
            raise MoveError("a path card needs a placement")
        if move.card is not None and move.card != p.face:
            raise MoveError(f"the card played ({move.card}) is not the card placed ({p.face})")
        try:
            verdict = self.board.check(p, broken_tools=sorted(me.broken), trapped=me.trapped)
        except CatalogueError as exc:
            raise MoveError(str(exc)) from None
        if not verdict.legal:
            raise MoveError("; ".join(r.message for r in verdict.reasons), "illegal-placement", reasons=verdict.reasons)
        before = self.board.hidden_goals
        self.board.put(p)
        events = [Event("placed", str(verdict), move.seat, {"placement": p.to_dict()})]
        for cell in verdict.reveals:
            shown = self.board.at(cell)
            face = shown.face if shown.face != "goal-back" else before.get(cell)
            events.append(Event("goal-revealed", f"the goal at ({cell[0]},{cell[1]}) is {_goal_words(face)}",
                                move.seat, {"cell": list(cell), "face": face, "rotation": shown.rotation}))
        if verdict.gold_reached:
            self.finisher = move.seat
            events.extend(self._end("gold", f"seat {move.seat} reached the gold"))
        return events

    def _do_break(self, move: Move, me: SeatState, rng) -> list[Event]:
        action = self._action(move, "break")
        target = self._target(move)
        tool = action.tools[0]
        if tool in target.broken:
            raise MoveError(f"seat {move.target} already has a broken {tool}", "already-broken", seat=move.target, tool=tool)
        target.broken.add(tool)
        return [Event("tool-broken", f"seat {move.seat} broke seat {move.target}'s {tool}", move.seat,
                      {"target": move.target, "tool": tool})]

    def _do_repair(self, move: Move, me: SeatState, rng) -> list[Event]:
        action = self._action(move, "repair")
        target = self._target(move)
        tool = move.tool or (action.tools[0] if len(action.tools) == 1 else None)
        if tool is None or tool not in action.tools:
            raise MoveError(f"{action.id} repairs {' or '.join(action.tools)}; say which")
        if tool not in target.broken:
            raise MoveError(f"seat {move.target} has no broken {tool} to repair", "nothing-to-repair", seat=move.target,
                            tool=tool)
        target.broken.discard(tool)
        self.discard_pile.append(f"broken-{tool}")
        return [Event("tool-repaired", f"seat {move.seat} repaired seat {move.target}'s {tool}", move.seat,
                      {"target": move.target, "tool": tool})]

    def _do_rockfall(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "rockfall")
        if move.cell is None:
            raise MoveError("a rockfall names the card to remove")
        try:
            removed = self.board.remove(tuple(move.cell))
        except BoardError as exc:  # the start, a goal or an empty cell
            raise MoveError(str(exc)) from None
        return [Event("card-removed", f"rockfall: {removed.face} removed from ({removed.x},{removed.y})",
                      move.seat, {"placement": removed.to_dict()})]

    def _do_map(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "map")
        cell = tuple(move.cell) if move.cell else None
        if cell not in self.board.hidden_goals:
            raise MoveError("a map looks at a face-down goal card", "map-needs-hidden-goal")
        face = self.board.hidden_goals[cell]
        me.peeks.append({"kind": "goal", "cell": list(cell), "face": face})
        return [Event("map", f"seat {move.seat} looked at the goal at ({cell[0]},{cell[1]})", move.seat,
                      {"cell": list(cell)}),
                Event("peek", f"the goal at ({cell[0]},{cell[1]}) is {_goal_words(face)}", move.seat,
                      {"cell": list(cell), "face": face}, private_to=move.seat)]

    def _do_theft(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "theft")
        if me.theft is not None:
            raise MoveError("a player may not have two theft cards in front of them", "second-theft")
        me.theft = self.turns_played
        return [Event("theft-laid", f"seat {move.seat} laid a theft card", move.seat)]

    def _do_hands_off(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "hands-off")
        target = self._target(move)
        if target.theft is None:
            raise MoveError(f"seat {move.target} has no theft card", "no-theft-card", seat=move.target)
        target.theft = None
        self.discard_pile.append("theft")
        return [Event("theft-removed", f"seat {move.seat} removed seat {move.target}'s theft card", move.seat,
                      {"target": move.target})]

    def _do_swap_hats(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "swap-hats")
        target = self._target(move)
        if not self.unused_roles:
            raise MoveError("there is no unused dwarf card to draw")
        if rng is None:
            raise MoveError("swapping hats draws a random dwarf card: pass a random generator")
        old = target.role
        pick = rng.randrange(len(self.unused_roles))
        target.role = self.unused_roles.pop(pick)
        self.unused_roles.append(old)
        return [Event("hat-swapped", f"seat {move.target} drew a new dwarf card", move.seat, {"target": move.target}),
                Event("role", f"your new role is {target.role}", move.target, {"role": target.role},
                      private_to=move.target)]

    def _do_swap_hands(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "swap-hands")
        target = self._target(move, other=True)
        if me.hand is not None:
            mine = list(me.hand)
            mine.remove(move.card)  # the played card leaves before the hands change owners
            me.hand[:] = [move.card] + target.hand
            target.hand[:] = mine
            if self.draw_pile:
                target.hand.append(self.draw_pile.pop())
        return [Event("hands-swapped", f"seat {move.seat} swapped hands with seat {move.target}", move.seat,
                      {"target": move.target})]

    def _do_trap(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "trap")
        target = self._target(move, other=True)
        if target.trapped:
            raise MoveError(f"seat {move.target} is already trapped", "already-trapped", seat=move.target)
        target.trapped = True
        return [Event("trapped", f"seat {move.seat} trapped seat {move.target}", move.seat, {"target": move.target})]

    def _do_free(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "free")
        target = self._target(move)
        if not target.trapped:
            raise MoveError(f"seat {move.target} is not trapped", "not-trapped", seat=move.target)
        target.trapped = False
        self.discard_pile.append("trapped")
        return [Event("freed", f"seat {move.seat} freed seat {move.target}", move.seat, {"target": move.target})]

    def _do_inspection(self, move: Move, me: SeatState, rng) -> list[Event]:
        self._action(move, "inspection")
        target = self._target(move, other=True)
        me.peeks.append({"kind": "role", "seat": move.target, "role": target.role})
        return [Event("inspection", f"seat {move.seat} looked at seat {move.target}'s dwarf card", move.seat,
                      {"target": move.target}),
                Event("peek", f"seat {move.target} is a {target.role}", move.seat,
                      {"seat": move.target, "role": target.role}, private_to=move.seat)]

    def _do_remove(self, move: Move, me: SeatState, rng) -> list[Event]:
        """Saboteur 2: discard two cards to remove one card lying in front of yourself."""
        if not self.rules.expansion:
            raise MoveError("discarding two cards to clear a card in front of you is a Saboteur 2 rule")
        if len(move.discards) != 2:
            raise MoveError("remove a card in front of you by discarding exactly two cards")
        what = move.tool or ""
        if what.startswith("broken-") and what[7:] in me.broken:
            me.broken.discard(what[7:])
            self.discard_pile.append(what)
        elif what == "trapped" and me.trapped:
            me.trapped = False
            self.discard_pile.append("trapped")
        elif what == "theft" and me.theft is not None:
            me.theft = None
            self.discard_pile.append("theft")
        else:
            raise MoveError(f"there is no {what or 'such'} card in front of seat {move.seat}")
        return [Event("removed-own", f"seat {move.seat} discarded two cards to remove their {what} card",
                      move.seat, {"card": what})]

    def _do_pass(self, move: Move, me: SeatState, rng) -> list[Event]:
        count = len(move.discards)
        holding = None if me.hand is None else len(me.hand)
        if holding is None:  # table mode: the discards are face down on a real table
            allowed = range(0, 4)
            words = "at most 3 cards"
        elif self.rules.expansion:
            allowed = range(1, 4) if holding != 0 else range(0, 1)
            words = "1 to 3 cards"
        else:
            allowed = range(1, 2) if holding != 0 else range(0, 1)
            words = "one card"
        if count not in allowed:
            raise MoveError(f"a pass discards {words}" if holding != 0 else "a player with no cards passes without discarding")
        return [Event("passed", f"seat {move.seat} passed", move.seat, {"discarded": count})]

    def _action(self, move: Move, effect: str):
        try:
            action = self.catalogue.action(move.card or "")
        except CatalogueError as exc:
            raise MoveError(str(exc)) from None
        if action.effect != effect:
            raise MoveError(f"{action.id} is not a {effect} card")
        if action.set not in self.rules.sets:
            raise MoveError(f"{action.id} belongs to Saboteur 2")
        return action

    def _target(self, move: Move, other: bool = False) -> SeatState:
        if move.target is None or not 0 <= move.target < self.players:
            raise MoveError("this card needs a target seat", "needs-target")
        if other and move.target == move.seat:
            raise MoveError("this card is played on another player", "target-another")
        return self.seats[move.target]

    # -------------------------------------------------------------- simulation support

    def legal_moves(self, seat: int | None = None, *, placements: bool = True) -> list[Move]:
        """Every move the seat may make with its hand (tracked mode)."""
        seat = self.turn if seat is None else seat
        me = self.seats[seat]
        if me.hand is None or self.ended:
            return []
        moves: list[Move] = []
        n = self.players
        for card in sorted(set(me.hand)):
            if card in self.catalogue.faces:
                if placements:
                    moves += [Move(seat, "place", card, p) for p in
                              self.board.legal_placements(card, broken_tools=me.broken, trapped=me.trapped)]
                continue
            effect = self.catalogue.action(card).effect
            tools = self.catalogue.action(card).tools
            if effect == "break":
                moves += [Move(seat, "break", card, target=t) for t in range(n) if tools[0] not in self.seats[t].broken]
            elif effect == "repair":
                moves += [Move(seat, "repair", card, target=t, tool=tool) for t in range(n) for tool in tools
                          if tool in self.seats[t].broken]
            elif effect == "rockfall":
                moves += [Move(seat, "rockfall", card, cell=p.cell) for p in self.board.placements()
                          if self.catalogue.face(p.face).is_path]
            elif effect == "map":
                moves += [Move(seat, "map", card, cell=c) for c in sorted(self.board.hidden_goals)]
            elif effect == "theft":
                if me.theft is None:
                    moves.append(Move(seat, "theft", card))
            elif effect == "hands-off":
                moves += [Move(seat, "hands-off", card, target=t) for t in range(n) if self.seats[t].theft is not None]
            elif effect == "swap-hats":
                if self.unused_roles:
                    moves += [Move(seat, "swap-hats", card, target=t) for t in range(n)]
            elif effect == "swap-hands":
                moves += [Move(seat, "swap-hands", card, target=t) for t in range(n) if t != seat]
            elif effect == "trap":
                moves += [Move(seat, "trap", card, target=t) for t in range(n) if t != seat and not self.seats[t].trapped]
            elif effect == "free":
                moves += [Move(seat, "free", card, target=t) for t in range(n) if self.seats[t].trapped]
            elif effect == "inspection":
                moves += [Move(seat, "inspection", card, target=t) for t in range(n) if t != seat]
        if me.hand:
            moves += [Move(seat, "pass", discards=(card,)) for card in sorted(set(me.hand))]
        else:
            moves.append(Move(seat, "pass"))
        return moves

    # -------------------------------------------------------------- formats

    def to_json(self) -> dict:
        """A deep copy of the round as plain data: nothing in it is shared with the live round."""
        return copy.deepcopy({
            "rules": self.rules.to_json(),
            "board": self.board.to_json(),
            "seats": [s.to_json() for s in self.seats],
            "turn": self.turn,
            "first": self.first,
            "turns_played": self.turns_played,
            "draw_pile": self.draw_pile,
            "discard_pile": self.discard_pile,
            "set_aside": self.set_aside,
            "unused_roles": self.unused_roles,
            "passes_in_a_row": self.passes_in_a_row,
            "last_player": self.last_player,
            "finisher": self.finisher,
            "ended": self.ended,
            "end_reason": self.end_reason,
            "history": [m.to_json() for m in self.history],
        })

    @classmethod
    def from_json(cls, doc: dict, catalogue: Catalogue | None = None) -> Round:
        doc = copy.deepcopy(doc)  # the round must not share lists with the document it came from
        board = Board.from_json(doc["board"], catalogue)
        r = cls(Rules.from_json(doc["rules"]), board, [SeatState.from_json(s) for s in doc["seats"]],
                first=doc["first"], draw_pile=doc["draw_pile"], unused_roles=doc["unused_roles"],
                set_aside=doc["set_aside"], catalogue=board.catalogue)
        r.turn = doc["turn"]
        r.turns_played = doc["turns_played"]
        r.discard_pile = doc["discard_pile"]
        r.passes_in_a_row = doc["passes_in_a_row"]
        r.last_player = doc["last_player"]
        r.finisher = doc["finisher"]
        r.ended = doc["ended"]
        r.end_reason = doc["end_reason"]
        r.history = [Move.from_json(m) for m in doc["history"]]
        return r


def _missing_from(hand: list[str], used: list[str]) -> str | None:
    left = list(hand)
    for card in used:
        if card not in left:
            return card
        left.remove(card)
    return None


def _goal_words(face: str | None) -> str:
    if face is None:
        return "unknown"
    return "the gold" if face == "goal-gold" else "stone"


# ------------------------------------------------------------------ game


@dataclass
class Draft:
    """The base game's gold draft: miners pick one card each in turn, around and around."""

    cards: list[int]
    order: list[int]
    picks: list[tuple[int, int]] = field(default_factory=list)  # (seat, value)

    @property
    def done(self) -> bool:
        return not self.cards

    @property
    def picker(self) -> int | None:
        return None if self.done else self.order[len(self.picks) % len(self.order)]

    def pick(self, seat: int, index: int) -> int:
        if self.done:
            raise MoveError("the gold has all been taken")
        if seat != self.picker:
            raise MoveError(f"it is seat {self.picker}'s pick, not seat {seat}'s")
        if not 0 <= index < len(self.cards):
            raise MoveError(f"there is no gold card number {index}")
        value = self.cards.pop(index)
        self.picks.append((seat, value))
        return value

    def to_json(self) -> dict:
        return {"cards": self.cards, "order": self.order, "picks": [list(p) for p in self.picks]}

    @classmethod
    def from_json(cls, doc: dict) -> Draft:
        return cls(list(doc["cards"]), list(doc["order"]), [tuple(p) for p in doc["picks"]])


class Game:
    """Three rounds, the gold, and the final ranking.

    Each seat's gold is a list of amounts: gold card values in the base game, tokens paid
    in Saboteur 2 (thefts appear as -1 / +1). Both are kept secret from other players by
    whoever shows them (the web companion's player view).
    """

    def __init__(self, rules: Rules, names: list[str], *, catalogue: Catalogue | None = None, tracked: bool = True):
        self.rules = rules
        self.catalogue = catalogue or default_catalogue()
        table_for(rules, self.catalogue, len(names))
        self.names = list(names)
        self.tracked = tracked
        self.round_number = 0
        self.round: Round | None = None
        self.gold: list[list[int]] = [[] for _ in names]
        self.gold_deck: list[int] = []
        self.draft: Draft | None = None
        self.thefts: list[int] = []  # thieves still to steal, in order
        self.results: list[dict] = []  # one summary per finished round
        self.next_first = 0

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def over(self) -> bool:
        return self.round_number >= ROUNDS and self.round is not None and self.round.ended and self.settled

    @property
    def settled(self) -> bool:
        """The current round's gold has all been handed out."""
        return self.round is not None and self.round.ended and self.draft is None and not self.thefts and \
            len(self.results) == self.round_number

    def start_round(self, rng: random.Random, *, first: int | None = None) -> Round:
        if self.round is not None and not self.settled:
            raise MoveError("the current round is not finished and paid out yet")
        if self.round_number >= ROUNDS:
            raise MoveError("the game is over after three rounds")
        if self.round_number == 0 and not self.rules.expansion:
            self.gold_deck = gold_deck(self.catalogue)
        if self.gold_deck:
            rng.shuffle(self.gold_deck)
        first = self.next_first if first is None else first
        maker = Round.deal if self.tracked else Round.at_table
        self.round = maker(self.rules, self.players, rng, first=first, catalogue=self.catalogue)
        self.round_number += 1
        return self.round

    def play(self, move: Move, rng: random.Random | None = None) -> list[Event]:
        if self.round is None:
            raise MoveError("no round has started")
        events = self.round.play(move, rng)
        if self.round.ended:
            events += self.score_round()
        return events

    def end_round_exhausted(self) -> list[Event]:
        if self.round is None:
            raise MoveError("no round has started")
        return self.round.declare_exhausted() + self.score_round()

    def score_round(self) -> list[Event]:
        """Pay out the finished round: fixed payments at once, a draft or thefts to follow."""
        r = self.round
        if r is None or not r.ended:
            raise MoveError("the round has not ended")
        if len(self.results) >= self.round_number or self.draft is not None or self.thefts:
            return []
        gold_reached = r.end_reason == "gold"
        events: list[Event] = []
        if self.rules.expansion:
            payout = saboteur2_payout(
                r.roles, gold_reached=gold_reached, finisher=r.finisher,
                door_sets=r.board.gold_door_sets() if gold_reached else set(),
                trapped=[s.trapped for s in r.seats], crystals=r.board.crystals())
            for seat, amount in payout.pay.items():
                if amount:
                    self.gold[seat].append(amount)
                    events.append(Event("gold", f"you receive {amount} gold", seat, {"amount": amount}, private_to=seat))
            thieves = {s: st.theft for s, st in enumerate(r.seats) if st.theft is not None}
            self.thefts = theft_order(thieves, [s.trapped for s in r.seats], self.players)
            summary = {"winners": list(payout.winners), "roles": r.roles, "gold_reached": gold_reached,
                       "finisher": r.finisher}
        else:
            payout = base_payout(r.roles, self.rules, gold_reached=gold_reached, finisher=r.finisher,
                                 broken=[s.broken for s in r.seats])
            for seat, value in payout.fixed.items():
                cards = take_worth(self.gold_deck, value)
                self.gold[seat].extend(cards)
                events.append(Event("gold", f"you receive gold worth {sum(cards)}", seat, {"cards": cards},
                                    private_to=seat))
            if payout.draft_order:
                drawn = [self.gold_deck.pop() for _ in range(min(payout.draw, len(self.gold_deck)))]
                self.draft = Draft(drawn, list(payout.draft_order))
                events.append(Event("draft", f"seat {self.draft.picker} picks gold first", self.draft.picker,
                                    {"order": list(payout.draft_order), "cards": len(drawn)}))
            winners = {"miners": [s for s, role in enumerate(r.roles) if role == MINER],
                       "saboteurs": list(payout.fixed), "selfish-dwarf": list(payout.fixed), "nobody": []}
            summary = {"winners": winners[payout.winners], "side": payout.winners, "roles": r.roles,
                       "gold_reached": gold_reached, "finisher": r.finisher}
        if r.last_player is not None:
            self.next_first = (r.last_player + 1) % self.players
        self._pending_summary = summary
        events += self._settle_if_done()
        return events

    def pick_gold(self, seat: int, index: int) -> list[Event]:
        if self.draft is None:
            raise MoveError("no gold is being shared out")
        value = self.draft.pick(seat, index)
        events = [Event("gold", f"you took a gold card worth {value}", seat, {"cards": [value]}, private_to=seat)]
        self.gold[seat].append(value)
        if self.draft.done:
            self.draft = None
            events += self._settle_if_done()
        return events

    def steal(self, thief: int, victim: int) -> list[Event]:
        if not self.thefts:
            raise MoveError("nobody is stealing now")
        if thief != self.thefts[0]:
            raise MoveError(f"seat {self.thefts[0]} steals first")
        if victim == thief or not 0 <= victim < self.players or sum(self.gold[victim]) < 1:
            raise MoveError("steal from another player who has gold")
        self.gold[victim].append(-1)
        self.gold[thief].append(1)
        self.thefts.pop(0)
        events = [Event("theft", f"seat {thief} stole 1 gold from seat {victim}", thief, {"victim": victim})]
        return events + self._settle_if_done()

    def skip_theft(self, thief: int) -> list[Event]:
        """A thief gives up the theft (stealing is optional: "may steal", Czech seed)."""
        if not self.thefts or self.thefts[0] != thief:
            raise MoveError("it is not this seat's theft")
        self.thefts.pop(0)
        return self._settle_if_done()

    def _settle_if_done(self) -> list[Event]:
        if self.draft is not None or self.thefts or len(self.results) >= self.round_number:
            return []
        self.results.append(self._pending_summary)
        events = [Event("round-scored", f"round {self.round_number} is scored", None, self._pending_summary)]
        if self.round_number >= ROUNDS:
            events.append(Event("game-over", "the game is over", None, {"ranking": self.ranking()}))
        return events

    def totals(self) -> list[int]:
        return [sum(g) for g in self.gold]

    def ranking(self) -> list[dict]:
        return [{"rank": rank, "seat": seat, "name": self.names[seat], "gold": gold}
                for rank, seat, gold in ranking(self.totals())]

    # -------------------------------------------------------------- formats

    def to_json(self) -> dict:
        return copy.deepcopy({
            "rules": self.rules.to_json(),
            "names": self.names,
            "tracked": self.tracked,
            "round_number": self.round_number,
            "round": self.round.to_json() if self.round else None,
            "gold": self.gold,
            "gold_deck": self.gold_deck,
            "draft": self.draft.to_json() if self.draft else None,
            "thefts": self.thefts,
            "results": self.results,
            "next_first": self.next_first,
            "pending_summary": getattr(self, "_pending_summary", None),
        })

    @classmethod
    def from_json(cls, doc: dict, catalogue: Catalogue | None = None) -> Game:
        doc = copy.deepcopy(doc)
        game = cls(Rules.from_json(doc["rules"]), doc["names"], catalogue=catalogue, tracked=doc["tracked"])
        game.round_number = doc["round_number"]
        game.round = Round.from_json(doc["round"], game.catalogue) if doc["round"] else None
        game.gold = [list(g) for g in doc["gold"]]
        game.gold_deck = list(doc["gold_deck"])
        game.draft = Draft.from_json(doc["draft"]) if doc["draft"] else None
        game.thefts = list(doc["thefts"])
        game.results = list(doc["results"])
        game.next_first = doc["next_first"]
        if doc.get("pending_summary") is not None:
            game._pending_summary = doc["pending_summary"]
        return game

