"""The ship's room graph: deterministic shortest paths. Pure."""
from __future__ import annotations

from collections import deque


class RoomGraph:
    def __init__(self, room_ids, exits):
        self.neighbours: dict[int, list[int]] = {rid: [] for rid in room_ids}
        for a, b in exits:
            self.neighbours[a].append(b)
            self.neighbours[b].append(a)
        for rid in self.neighbours:
            self.neighbours[rid].sort()
        self._next_hop: dict[tuple[int, int], int | None] = {}

    def next_hop(self, start: int, goal: int) -> int | None:
        """The first room on a shortest path from start to goal (ties broken by lowest id)."""
        if start == goal:
            return None
        key = (start, goal)
        if key not in self._next_hop:
            path = self.path(start, goal)
            self._next_hop[key] = path[1] if path and len(path) > 1 else None
        return self._next_hop[key]

    def path(self, start: int, goal: int) -> list[int] | None:
        previous = {start: None}
        queue = deque([start])
        while queue:
            room = queue.popleft()
            if room == goal:
                break
            for nxt in self.neighbours[room]:
                if nxt not in previous:
                    previous[nxt] = room
                    queue.append(nxt)
        if goal not in previous:
            return None
        path = [goal]
        while path[-1] != start:
            path.append(previous[path[-1]])
        return path[::-1]

    def is_connected(self) -> bool:
        if not self.neighbours:
            return True
        start = next(iter(self.neighbours))
        return all(self.path(start, rid) is not None for rid in self.neighbours)
