"""manage.py intervene RUN [--at-tick T] (--room KEY --event "text" [--sight] | --agent KEY --memory "text") [--fork]"""
import json

from django.core.management.base import BaseCommand, CommandError

from voyage.fork import ForkError, fork
from voyage.instruments.interventions import InterventionError, intervene
from voyage.models import Run


class Command(BaseCommand):
    help = ("Change a paused run's world at a tick: an event in a room (--room, --event; a loud sound, or with "
            "--sight a visible change) or a memory planted in one agent (--agent, --memory). With --fork, fork "
            "the run at --at-tick first and intervene in the fork. Prints the intervention as one JSON line.")

    def add_arguments(self, parser):
        parser.add_argument("run", help="run id, or 'latest'")
        parser.add_argument("--at-tick", type=int, default=None, help="default: the tick the run stands at")
        parser.add_argument("--room", help="the room's key (with --event)")
        parser.add_argument("--event", help="what happens in the room")
        parser.add_argument("--sight", action="store_true", help="a visible change (default: a loud sound)")
        parser.add_argument("--agent", help="the agent's persona key (with --memory)")
        parser.add_argument("--memory", help="the memory to plant, in the agent's own words")
        parser.add_argument("--fork", action="store_true", help="fork the run at --at-tick and intervene in the fork")

    def handle(self, *args, **options):
        runs = Run.objects.order_by("-pk")
        run = runs.first() if options["run"] == "latest" else runs.filter(pk=options["run"]).first()
        if run is None:
            raise CommandError(f"no run {options['run']!r}")
        if (options["event"] is None) == (options["memory"] is None):
            raise CommandError("give one of --event (with --room) or --memory (with --agent)")
        if options["fork"]:
            if options["at_tick"] is None:
                raise CommandError("--fork needs --at-tick")
            try:
                run = fork(run, options["at_tick"], memory_inline=True)
            except ForkError as exc:
                raise CommandError(str(exc)) from None
        kind, text = ("room_event", options["event"]) if options["event"] is not None else ("memory", options["memory"])
        try:
            made = intervene(run, kind, text, tick=options["at_tick"], room=options["room"],
                             how="sight" if options["sight"] else "sound", agent=options["agent"], made_by="manage.py")
        except InterventionError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps({"run_id": run.pk, "intervention": made.pk, "tick": made.tick, "kind": made.kind,
                                      "applied": made.applied}))
