"""Where things sit on the ship map: rooms laid out deck by deck (decks top to bottom in the order
the scenario lists them, rooms left to right), the exits between them, and a spot for every agent
marker inside its room. Pure: plain data in, coordinates out; the template draws the SVG, and the
page's JavaScript moves markers to the spots the server computed."""
from __future__ import annotations

from dataclasses import dataclass

ROOM_W, ROOM_H = 150, 78
GAP_X, GAP_Y = 14, 30
LEFT = 96  # room for the deck names
TOP = 12
MARKER_R, MARKER_STEP = 5, 12
MARKER_TOP = 22  # below the room's name


@dataclass(frozen=True)
class RoomBox:
    key: str
    name: str
    deck: str
    private: bool
    x: int
    y: int
    w: int = ROOM_W
    h: int = ROOM_H

    @property
    def label(self) -> str:
        return self.name if len(self.name) <= 24 else self.name[:23] + "…"


@dataclass(frozen=True)
class ShipLayout:
    width: int
    height: int
    decks: tuple[tuple[str, int], ...]  # (deck, y of its band)
    rooms: dict[str, RoomBox]
    exits: tuple[str, ...]  # SVG path data, one per exit

    band_height: int = ROOM_H + 12  # the shaded band behind each deck's rooms


def lay_out(rooms: list[tuple[str, str, str, bool]], exits: list[tuple[str, str]]) -> ShipLayout:
    """rooms: (key, name, deck, private) in the scenario's order; exits: (room key, room key)."""
    decks: dict[str, list] = {}
    for room in rooms:
        decks.setdefault(room[2], []).append(room)
    boxes: dict[str, RoomBox] = {}
    deck_rows = []
    for row, (deck, members) in enumerate(decks.items()):
        y = TOP + row * (ROOM_H + GAP_Y)
        deck_rows.append((deck, y))
        for col, (key, name, _, private) in enumerate(members):
            boxes[key] = RoomBox(key, name, deck, private, LEFT + col * (ROOM_W + GAP_X), y)
    widest = max((len(m) for m in decks.values()), default=0)
    width = LEFT + widest * (ROOM_W + GAP_X)
    height = TOP + len(decks) * (ROOM_H + GAP_Y)
    return ShipLayout(width, height, tuple(deck_rows), boxes, tuple(exit_path(boxes[a], boxes[b]) for a, b in exits))


def exit_path(a: RoomBox, b: RoomBox) -> str:
    """Rooms on one deck: an arc over the top of the row (a straight line would run through the
    rooms between them). Rooms on different decks: a line from the upper room's bottom edge to the
    lower room's top edge."""
    if a.y == b.y:
        left, right = sorted((a, b), key=lambda r: r.x)
        x1, x2 = left.x + left.w // 2 + 10, right.x + right.w // 2 - 10
        lift = 8 + 4 * round((x2 - x1) / (ROOM_W + GAP_X))
        return f"M{x1},{a.y} Q{(x1 + x2) // 2},{a.y - lift} {x2},{a.y}"
    upper, lower = sorted((a, b), key=lambda r: r.y)
    return f"M{upper.x + upper.w // 2},{upper.y + upper.h} L{lower.x + lower.w // 2},{lower.y}"


def marker_spots(layout: ShipLayout, where: dict[str, str]) -> dict[str, tuple[int, int]]:
    """A spot for each agent (key -> room key) inside its room, in rows, agents ordered by key so a
    marker keeps its place while the room's company stays the same."""
    per_row = (ROOM_W - 2 * MARKER_R) // MARKER_STEP
    rows = (ROOM_H - MARKER_TOP) // MARKER_STEP
    by_room: dict[str, list[str]] = {}
    for agent in sorted(where):
        by_room.setdefault(where[agent], []).append(agent)
    spots = {}
    for room_key, agents in by_room.items():
        box = layout.rooms[room_key]
        for n, agent in enumerate(agents):
            n = min(n, per_row * rows - 1)  # a crowd beyond the room's rows piles on its last spot
            spots[agent] = (box.x + MARKER_R + 4 + (n % per_row) * MARKER_STEP,
                            box.y + MARKER_TOP + MARKER_R + (n // per_row) * MARKER_STEP)
    return spots
