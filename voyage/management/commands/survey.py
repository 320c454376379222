"""manage.py survey RUN --questionnaire FILE [--at-tick T] [--agents K1,K2] [-o answers.csv]"""
import sys

from django.core.management.base import BaseCommand, CommandError

from voyage.instruments.questionnaire import QuestionnaireError, read_questionnaire
from voyage.instruments.survey_table import write_csv
from voyage.instruments.surveys import SurveyError, take_survey
from voyage.management.run_arg import HELP as RUN_HELP, add_output_argument, run_from_arg


def read_file(path: str, stdin) -> str:
    if path == "-":
        return stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise CommandError(f"--questionnaire {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"--questionnaire {path}: cannot read it ({exc})") from None


class Command(BaseCommand):
    help = ("Put a questionnaire (YAML) to every agent alive at a tick (default: now), or to those listed, through "
            "the run's model; write the answers as a tidy CSV (run, tick, agent, rung, item, kind, answer, "
            "missing_reason). Never changes the run.")
    stealth_options = ("stdin",)

    def add_arguments(self, parser):
        parser.add_argument("run", help=RUN_HELP)
        parser.add_argument("--questionnaire", required=True, metavar="FILE", help="the questionnaire's YAML file "
                            "('-': standard input)")
        parser.add_argument("--at-tick", type=int, default=None, help="as the agents stood at this tick (default: now)")
        parser.add_argument("--agents", default="", metavar="K1,K2", help="only these agents (persona keys)")
        add_output_argument(parser, "the CSV file to write (default: stdout)")

    def handle(self, *args, **options):
        run = run_from_arg(options["run"])
        text = read_file(options["questionnaire"], options.get("stdin") or sys.stdin)
        try:
            questionnaire = read_questionnaire(text)
        except QuestionnaireError as exc:
            raise CommandError(f"--questionnaire {options['questionnaire']}: " + "\n".join(exc.problems)) from None
        agents = [k for k in options["agents"].split(",") if k.strip()]
        try:
            survey = take_survey(run, questionnaire, options["at_tick"], agents or None)
        except SurveyError as exc:
            raise CommandError(str(exc)) from None
        if options.get("output"):
            with open(options["output"], "w", newline="", encoding="utf-8") as out:
                n = write_csv([survey], out)
            self.stderr.write(f"survey {survey.pk}: {n} answers ({survey.agents} agents × "
                              f"{len(questionnaire.items)} items) written to {options['output']}")
        else:
            write_csv([survey], self.stdout)
