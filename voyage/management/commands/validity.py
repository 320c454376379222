"""manage.py validity RUN --instrument NAME [--at-tick T] [--retest-tick T2] [--reference FILE.csv] [--year Y]
[--profile NAME] [--agents K1,K2] [--page-size N] [--answers answers.csv] [-o validity.json]"""
import csv
import json

from django.core.management.base import BaseCommand, CommandError

from voyage.instruments.distances import ReferenceCSVError, read_reference
from voyage.instruments.standard_instruments import NAMES, UnknownInstrument
from voyage.instruments.surveys import SurveyError
from voyage.instruments.validity import TIDY_COLUMNS, save_report, tidy_rows, validity
from voyage.management.run_arg import HELP as RUN_HELP, add_output_argument, run_from_arg


class Command(BaseCommand):
    help = ("Ask a standard instrument (in pages) of a run's agents at a tick, and report its reliability per domain "
            "(alpha, omega, retest ICC, with bootstrap intervals) beside people's figures, and the distance of "
            "answers to people's where a reference exists. Never changes the run. The last line printed is the "
            "report as one line of JSON.")

    def add_arguments(self, parser):
        parser.add_argument("run", help=RUN_HELP)
        parser.add_argument("--instrument", required=True, help=f"one of {', '.join(NAMES)}")
        parser.add_argument("--at-tick", type=int, default=None, help="as the agents stood at this tick (default: now)")
        parser.add_argument("--retest-tick", type=int, default=None,
                            help="ask again at this tick for the retest ICC (the same tick: asked a second time)")
        parser.add_argument("--reference", metavar="FILE.csv", help="people's answers: item, option, share[, group]")
        parser.add_argument("--year", type=int, default=None, help="the year of the bundled GSS shares "
                            "(default: the latest published)")
        parser.add_argument("--profile", default=None, help="the model profile that answers (default: the run's "
                            "instruments route)")
        parser.add_argument("--agents", default="", metavar="K1,K2", help="only these agents (persona keys), "
                            "asked afresh")
        parser.add_argument("--page-size", type=int, help="items a call (default: the answering model profile's "
                                                           "instrument_page_size; 30 on the offline policy)")
        parser.add_argument("--answers", metavar="FILE.csv", help="write the item answers as a tidy CSV")
        add_output_argument(parser, "write the report (JSON) to this file too")

    def handle(self, *args, **options):
        run = run_from_arg(options["run"])
        reference = []
        if options.get("reference"):
            path = options["reference"]
            try:
                with open(path, encoding="utf-8") as f:
                    reference = read_reference(f.read(), f"--reference {path}")
            except FileNotFoundError:
                raise CommandError(f"--reference {path}: no such file") from None
            except ReferenceCSVError as exc:
                raise CommandError(str(exc)) from None
        try:
            report = validity(run, options["instrument"], at_tick=options["at_tick"],
                              retest_tick=options["retest_tick"], reference=reference, year=options["year"],
                              profile=options["profile"], page_size=options["page_size"],
                              agents=[k for k in options["agents"].split(",") if k.strip()] or None)
        except (UnknownInstrument, SurveyError) as exc:
            raise CommandError(str(exc)) from None
        save_report(run, report, "manage.py validity")
        if options.get("answers"):
            with open(options["answers"], "w", newline="", encoding="utf-8") as out:
                writer = csv.DictWriter(out, fieldnames=TIDY_COLUMNS, lineterminator="\n")
                writer.writeheader()
                writer.writerows(tidy_rows(run, report["instrument"], report["administration"]))
        line = json.dumps(report, ensure_ascii=False)
        if options.get("output"):
            with open(options["output"], "w", encoding="utf-8") as out:
                out.write(line + "\n")
        self.stdout.write(summary(report))
        self.stdout.write(line)


def summary(report: dict) -> str:
    lines = [f"{report['title']} at tick {report['tick']} of run {report['run']}: {report['agents']} agents"
             + (" (scripted: the offline policy, not a model)" if report["scripted"] else "")]
    for d, row in (report.get("domains") or {}).items():
        parts = []
        for key in ("alpha", "omega", "retest_icc"):
            fig = row[key]
            shown = "—" if fig["value"] is None else f"{fig['value']:.3f}"
            if fig.get("interval"):
                shown += f" [{fig['interval'][0]:.3f}, {fig['interval'][1]:.3f}]"
            people = (fig.get("people") or {}).get("value")
            shown += f" (people {people})" if people is not None else " (people: not published here)"
            parts.append(f"{key} {shown}")
        lines.append(f"  {row['name']}: " + "; ".join(parts))
    for ref in report.get("references") or []:
        tv, w = ref["tv_distance"], ref["wasserstein"]
        if tv["value"] is None:
            lines.append(f"  {ref['item']}: {tv.get('reason', '')}")
            continue
        lines.append(f"  {ref['item']}: agents {ref['agents_shares']} vs people {ref['people_shares']}: "
                     f"TV {tv['value']:.3f} [{tv['interval'][0]:.3f}, {tv['interval'][1]:.3f}], "
                     f"Wasserstein {w['value']:.3f} [{w['interval'][0]:.3f}, {w['interval'][1]:.3f}]")
    return "\n".join(lines)
