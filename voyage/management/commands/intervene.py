"""manage.py intervene RUN [--at-tick T] [--fork] WHAT, WHAT one of
    --room KEY --event "text" [--sight]          an event in a room
    --agent KEY --memory "text"                  a memory planted in one agent
    --place NAME --room KEY --text "description" an object placed in a room
    --move NAME --room KEY                       an object moved
    --remove NAME                                an object taken away
    --agent KEY --persona FIELD --text "text"    a persona's history, fear or secret, for this run"""
import json

from django.core.management.base import BaseCommand, CommandError

from voyage.instruments.interventions import InterventionError, intervene
from voyage.management.run_arg import HELP as RUN_HELP, run_from_arg
from voyage.runs.fork import ForkError, fork

WHATS = {"event": "room_event", "memory": "memory", "place": "object_place", "move": "object_move",
         "remove": "object_remove", "persona": "persona"}


class Command(BaseCommand):
    help = ("Change a paused run's world at a tick: an event in a room (--room, --event; a loud sound, or with "
            "--sight a visible change), a memory planted in one agent (--agent, --memory), an object placed "
            "(--place NAME, --room, --text), moved (--move NAME, --room) or taken away (--remove NAME), or a "
            "persona's text changed for this run (--agent, --persona FIELD, --text). With --fork, fork the run "
            "at --at-tick first and intervene in the fork. Prints the intervention as one JSON line.")

    def add_arguments(self, parser):
        parser.add_argument("run", help=RUN_HELP)
        parser.add_argument("--at-tick", type=int, default=None, help="default: the tick the run stands at")
        parser.add_argument("--room", help="the room's key (with --event)")
        parser.add_argument("--event", help="what happens in the room")
        parser.add_argument("--sight", action="store_true", help="a visible change (default: a loud sound)")
        parser.add_argument("--agent", help="the agent's persona key (with --memory)")
        parser.add_argument("--memory", help="the memory to plant, in the agent's own words")
        parser.add_argument("--fork", action="store_true", help="fork the run at --at-tick and intervene in the fork")
        parser.add_argument("--place", metavar="NAME", help="place a new object called NAME in --room")
        parser.add_argument("--move", metavar="NAME", help="move the object called NAME to --room")
        parser.add_argument("--remove", metavar="NAME", help="take the object called NAME away")
        parser.add_argument("--persona", metavar="FIELD", choices=("history", "fear", "secret"),
                            help="change --agent's persona text FIELD to --text, for this run")
        parser.add_argument("--text", help="a placed object's description, or a persona's new text")

    def handle(self, *args, **options):
        run = run_from_arg(options["run"])
        whats = [w for w in WHATS if options[w] is not None]
        if len(whats) != 1:
            raise CommandError("give one of --event, --memory, --place, --move, --remove or --persona")
        if options["fork"]:
            if options["at_tick"] is None:
                raise CommandError("--fork needs --at-tick")
            try:
                run = fork(run, options["at_tick"], memory_inline=True)
            except ForkError as exc:
                raise CommandError(str(exc)) from None
        what = whats[0]
        kind, text, name, field = WHATS[what], options["text"] or "", "", ""
        if what in ("event", "memory"):
            text = options[what]
        elif what == "persona":
            field = options["persona"]
        else:
            name = options[what]
        try:
            made = intervene(run, kind, text, tick=options["at_tick"], room=options["room"],
                             how="sight" if options["sight"] else "sound", agent=options["agent"], name=name,
                             field=field, made_by="manage.py")
        except InterventionError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps({"run_id": run.pk, "intervention": made.pk, "tick": made.tick, "kind": made.kind,
                                      "applied": made.applied}))
