"""The pictures' series and drawing, and the room transcript's lines: pure functions on small
hand-built data."""
from voyage.web.charts import _trust_colour, occupancy_svg, rungs_svg, trust_svg
from voyage.web.rooms import by_tick, room_line
from voyage.web.series import Ev, RungStep, TrustRow, occupancy, rung_steps, sample_ticks, trust_at

NAMES = {"ann": "Ann Ash", "bob": "Bob Birch", "cy": "Cy Cole", "dot": "Dot <b>Dane</b>"}


def test_rung_steps_count_each_rung_and_the_dead_per_tick():
    events = [
        Ev(5, "rung", "ann", {"rung": 1}),
        Ev(5, "rung", "bob", {"rung": 1}),  # same tick: one step
        Ev(6, "move", "cy", {"to": "deck"}),  # not a rung change: no step
        Ev(7, "death", "bob", {}),
        Ev(8, "rung", "bob", {"rung": 2}),  # the dead climb no more
        Ev(9, "rung", "ann", {"rung": 2}),
    ]
    steps = rung_steps(["ann", "bob", "cy"], 3, events)
    assert steps == [
        RungStep(0, (3, 0, 0), 0),
        RungStep(5, (1, 2, 0), 0),
        RungStep(7, (1, 1, 0), 1),
        RungStep(9, (1, 0, 1), 1),
    ]


def test_occupancy_follows_moves_and_deaths_at_sampled_ticks():
    start = {"ann": "cabin", "bob": "cabin", "cy": "deck"}
    events = [
        Ev(2, "move", "ann", {"to": "corridor"}),
        Ev(3, "move", "ann", {"to": "deck"}),
        Ev(4, "death", "bob", {}),
        Ev(6, "move", "cy", {"to": "corridor"}),
    ]
    counts = occupancy(start, events, [0, 2, 3, 5, 6])
    assert counts == {
        "cabin": [2, 1, 1, 0, 0],
        "corridor": [0, 1, 0, 0, 1],  # a room nobody started in appears when entered
        "deck": [1, 1, 2, 2, 1],
    }


def test_trust_at_takes_each_pairs_last_row_up_to_the_tick():
    rows = [
        TrustRow("ann", "bob", 10, -0.4, "suspect"),
        TrustRow("ann", "bob", 2, 0.1, "acquaintance"),
        TrustRow("bob", "ann", 4, 0.2, "acquaintance"),
        TrustRow("bob", "ann", 4, 0.6, "ally"),  # same tick: the later row wins
        TrustRow("cy", "ann", 12, 0.9, "spouse"),  # after the tick: not yet
    ]
    state = trust_at(rows, 10)
    assert state[("ann", "bob")].label == "suspect"
    assert state[("bob", "ann")].score == 0.6
    assert ("cy", "ann") not in state
    assert trust_at(rows, 3)[("ann", "bob")].label == "acquaintance"


def test_sample_ticks_span_the_run():
    assert sample_ticks(0, 10) == [0]
    assert sample_ticks(4, 10) == [0, 1, 2, 3, 4]
    ticks = sample_ticks(1440, 5)
    assert ticks == [0, 360, 720, 1080, 1440]


def test_a_vast_room_whisper_line_names_who_heard_and_who_only_saw():
    line = room_line(41, 100, "communicate", "ann", "Meet me below.",
                     {"volume": "whisper", "target": "bob",
                      "delivered": {"bob": "HEARD", "cy": "WHISPERED", "dot": "WHISPERED"}}, NAMES)
    assert line["actor"] == "Ann Ash" and line["text"] == "Meet me below."
    assert line["speech"]["volume"] == "whisper" and line["speech"]["target"] == "Bob Birch"
    groups = {g["mode"]: g["names"] for g in line["speech"]["groups"]}
    assert groups == {"HEARD": ["Bob Birch"], "WHISPERED": ["Cy Cole", "Dot <b>Dane</b>"]}


def test_lines_without_text_say_what_happened_and_group_by_tick():
    lines = [room_line(1, 7, "wake", "ann", "", {}, NAMES), room_line(2, 7, "sleep", "bob", "", {}, NAMES),
             room_line(3, 9, "move", "cy", "Cy Cole → Deck", {"to": "deck"}, NAMES)]
    assert [l["text"] for l in lines] == ["wakes", "falls asleep", "Cy Cole → Deck"]
    assert lines[2]["speech"] is None
    groups = by_tick(lines)
    assert [(g["tick"], len(g["lines"])) for g in groups] == [(7, 2), (9, 1)]


def test_svg_text_is_escaped():
    people = [("ann", "Ann <script>alert(1)</script>"), ("bob", 'Bob "onload=x"')]
    state = {("ann", "bob"): TrustRow("ann", "bob", 3, -0.5, "<img src=x onerror=alert(1)>")}
    svg = trust_svg(people, state, 3)
    assert "<script>" not in svg and "<img" not in svg
    assert "&lt;script&gt;" in svg and "&lt;img src=x onerror=alert(1)&gt;" in svg
    assert svg.count('class="cell"') == 1
    heat = occupancy_svg([("deck", "Deck <i>A</i>")], {"deck": [0, 2]}, [0, 10])
    assert "<i>" not in heat and "Deck &lt;i&gt;A&lt;/i&gt;: 2" in heat
    chart = rungs_svg([RungStep(0, (2, 0), 0), RungStep(4, (1, 1), 0)], 8, ["Panic", "<Name>"])
    assert chart.count("<polygon") == 3 and "&lt;Name&gt;" in chart


def test_trust_colour_diverges():
    assert _trust_colour(0.9).startswith("rgb(76,220")  # green for trust
    assert _trust_colour(-0.9).startswith("rgb(220,76")  # red for suspicion
    assert _trust_colour(0.0) == "rgb(220,220,220)"
