"""manage.py interview RUN AGENT "question" [--at-tick T]
   manage.py interview RUN --all "question" [--at-tick T] [--output answers.csv]"""
import csv

from django.core.management.base import BaseCommand, CommandError

from voyage.instruments.interviews import InterviewError, ask, ask_everyone
from voyage.management.run_arg import HELP as RUN_HELP, add_output_argument, run_from_arg
from world.models import AgentState

COLUMNS = ("agent", "rung", "tick", "question", "answer")


class Command(BaseCommand):
    help = ("Ask an agent a question as it stood at a tick (default: now), through the run's model; with --all, "
            "ask every agent alive then and write a CSV (agent, rung, tick, question, answer). Never changes the run.")

    def add_arguments(self, parser):
        parser.add_argument("run", help=RUN_HELP)
        parser.add_argument("words", nargs="+", metavar="AGENT QUESTION", help="the agent's persona key and the "
                            "question; with --all, the question only")
        parser.add_argument("--at-tick", type=int, default=None, help="as the agent stood at this tick (default: now)")
        parser.add_argument("--all", action="store_true", help="every agent alive at that tick; a CSV")
        add_output_argument(parser, "with --all: the CSV file to write (default: stdout)")

    def handle(self, *args, **options):
        run = run_from_arg(options["run"])
        words = options["words"]
        try:
            if options["all"]:
                if len(words) != 1:
                    raise CommandError('with --all give the question only (quote it): interview RUN --all "question"')
                self._csv(ask_everyone(run, words[0], options["at_tick"]), options.get("output"))
                return
            if len(words) != 2:
                raise CommandError('give the agent and the question (quote it): interview RUN AGENT "question"')
            agent = AgentState.objects.filter(run=run, persona__key=words[0]).first()
            if agent is None:
                raise CommandError(f"run {run.pk} has no agent {words[0]!r}")
            made = ask(run, agent, words[1], options["at_tick"])
        except InterviewError as exc:
            raise CommandError(str(exc)) from None
        if not made.call.answered:
            raise CommandError(f"the model gave no answer: {made.call.error}")
        self.stdout.write(made.call.raw_answer)

    def _csv(self, interviews, output):
        out = open(output, "w", newline="", encoding="utf-8") if output else None
        try:
            writer = csv.writer(out or self.stdout, lineterminator="\n")
            writer.writerow(COLUMNS)
            for iv in interviews:
                answer = iv.call.raw_answer if iv.call.answered else f"(no answer: {iv.call.error})"
                writer.writerow((iv.agent.persona.key, iv.rung, iv.tick, iv.question, answer))
        finally:
            if out:
                out.close()
        if output:
            self.stderr.write(f"{len(interviews)} answers written to {output}")
