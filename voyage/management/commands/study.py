"""Studies from the command line:

    manage.py study create --name N --scenario 1912 --days 1 --vary seed=1,2,3 --vary profile=offline,local \
        --vary hot_memory_limit=30,50 [--budget-cost X] [--parallel K] [--set NAME=V] [--no-start]
    manage.py study status N [--json]
    manage.py study run N                      # the whole study in the foreground, one progress bar
    manage.py study results N -o results.csv   # one row per run and day
    (create --survey FILE@TICK, repeatable: a questionnaire put to every run at TICK; its items are measures)
    (create --judge RUBRIC@DAY, repeatable: the judge scores DAY of every run; each dimension is a measure)
    manage.py study compare N --measure M [--day D] [--baseline ARM] [-o file.csv]   # each arm vs the baseline
    manage.py study rank N [--battery FILE@TICK] [--rubric FILE] [--judge PROFILE] [--agents K1,K2]
                           [--packet-tokens N] [--dimensions D1,D2]   # cut down for a small judge
                                               # the arms ranked from the judge's pairwise verdicts
    manage.py study compare N --all [--adjust holm|bh] [-o file.csv]               # every measure, p adjusted
"""
from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand, CommandError

from voyage.gateway import providers
from voyage.judging.packets import PACKET_TOKENS
from voyage.management.model_options import profile_from_options
from voyage.models import Run
from voyage.studies import scheduler
from voyage.studies.arms import SHORT, ArmError, parse_spec
from voyage.studies.adjust import HOLM, METHODS, with_adjusted
from voyage.studies.between import CompareError, all_comparisons, study_comparisons, write_csv as write_comparisons
from voyage.studies.config import StudyError, StudyPlan, create_study
from voyage.studies.foreground import run_study
from voyage.studies.grid import GridError, parse_vary
from voyage.studies.models import Study
from voyage.judging.answers import BatteryError
from voyage.judging.job import JudgeError
from voyage.judging.rubric import RubricError, load_rubric
from voyage.studies.progress import study_progress
from voyage.studies.rank import RankError, rank_study, save as save_ranking
from voyage.studies.results import write_csv
from voyage.studies.study_judging import StudyJudgeError, judge_due, parse_judge
from voyage.studies.study_surveys import StudySurveyError, parse_instrument, parse_survey, take_due
from world.time import TICKS_PER_DAY


def find_study(ref: str) -> Study:
    study = Study.objects.filter(name=ref).first()
    if study is None and ref.isdigit():
        study = Study.objects.filter(pk=int(ref)).first()
    if study is None:
        known = ", ".join(Study.objects.values_list("name", flat=True)[:20]) or "none"
        raise CommandError(f"there is no study {ref!r} (studies: {known})")
    return study


def parse_set(pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise CommandError(f"--set {pair!r}: write NAME=VALUE (e.g. attrition_threshold=60)")
        out[name.strip().replace("-", "_")] = value.strip()
    return out


def parse_interventions(specs: list[str]) -> dict[str, dict]:
    """Each --intervention as (name, its fields); checked with the rest of the study by create_study."""
    out = {}
    for spec in specs:
        try:
            name, fields = parse_spec(spec)
        except ArmError as exc:
            raise CommandError(str(exc)) from None
        if name in out:
            raise CommandError(f"--intervention {name!r} is given twice")
        out[name] = fields
    return out


def provider_profile(options, base) -> dict:
    """{"profile": NAME} for --provider (run_voyage's one-off profile, made or reused), else {}."""
    if not options.get("provider"):
        if options.get("base_url") or options.get("model") or options.get("api_key_env"):
            raise CommandError("--base-url, --model and --api-key-env go with --provider NAME")
        return {}
    if "profile" in base:
        raise CommandError("give --provider or --set profile=NAME, not both")
    picked = {k: options.get(k) for k in ("provider", "base_url", "model", "api_key_env")}
    return {"profile": profile_from_options(picked).name}


class Command(BaseCommand):
    help = "Create, follow, run and tabulate studies: grids of runs over seeds, model profiles and parameters."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="make the study's runs and queue them on the worker")
        create.add_argument("--name", required=True)
        create.add_argument("--scenario", default="1912", help="scenario slug (default 1912)")
        length = create.add_mutually_exclusive_group(required=True)
        length.add_argument("--days", type=float, help="simulated days per run (480 ticks each)")
        length.add_argument("--ticks", type=int, help="ticks per run")
        create.add_argument("--vary", action="append", default=[], metavar="NAME=V1,V2",
                            help="an axis: seed, seeds (a count), profile, or a run parameter; repeatable")
        create.add_argument("--seed", type=int, help="the seed of every run when seed does not vary (default 1912)")
        create.add_argument("--schedule", choices=[Run.SEQUENTIAL, Run.SIMULTANEOUS])
        create.add_argument("--set", action="append", default=[], metavar="NAME=V",
                            help="a run parameter every run shares (e.g. attrition_threshold=60); repeatable")
        create.add_argument("--intervention", action="append", default=[], metavar="NAME:KIND@TICK:WHERE:TEXT",
                            help="a value of the intervention axis (--vary intervention=none,NAME), written "
                                 f"{SHORT} (the API's fields, any kind); the arms fork from one base run at its "
                                 "TICK; repeatable")
        create.add_argument("--survey", action="append", default=[], metavar="FILE@TICK",
                            help="put the questionnaire in FILE (YAML) to every run as it stood at TICK, once the run "
                                 "has finished; its items become measures (survey_t<TICK>_<item>_...); repeatable")
        create.add_argument("--instrument", action="append", default=[], metavar="NAME@TICK",
                            help="ask a standard instrument (ipip-neo-120, gss-trust) of every run as it stood at "
                                 "TICK, once the run has finished; its figures become measures (validity_t<TICK>_...); "
                                 "repeatable")
        create.add_argument("--judge", action="append", default=[], metavar="RUBRIC@DAY[:scenes=N]",
                            help="judge DAY of every run against RUBRIC (default, a shipped rubric's name or a YAML "
                                 "file) once the run has finished, by each run's judge route (else its profile, else "
                                 "the offline scripted judge); each dimension becomes a measure (judge_d<DAY>_<dim>), "
                                 "carried with the judge's verdict; :scenes=N judges the day's N busiest scenes too "
                                 "(judge_d<DAY>_scene_<dim>); repeatable, one rubric a day")
        create.add_argument("--provider", choices=providers.NAMES,
                            help="every run on a one-off endpoint of this provider (as run_voyage --provider): "
                                 "sets profile to a profile with the provider's defaults, made or reused")
        create.add_argument("--base-url", metavar="URL", help="with --provider: the endpoint (default: the provider's)")
        create.add_argument("--model", metavar="NAME", help="with --provider: the model")
        create.add_argument("--api-key-env", metavar="VAR", help="with --provider: the NAME of the variable holding the key")
        create.add_argument("--budget-cost", metavar="X", help="start no further run once the runs have cost X")
        create.add_argument("--parallel", type=int, help="runs on the worker at once (default: all; 1 with a budget)")
        create.add_argument("--no-start", action="store_true", help="make the runs but queue nothing "
                                                                    "(then `study run N` runs them here)")
        status = sub.add_parser("status", help="each run's progress and state")
        status.add_argument("study", help="a study's name or id")
        status.add_argument("--json", action="store_true", help="one JSON object")
        run = sub.add_parser("run", help="run the whole study in the foreground (no worker needed)")
        run.add_argument("study")
        results = sub.add_parser("results", help="the tidy table: one CSV row per run and day")
        results.add_argument("study")
        results.add_argument("-o", "--output", default="-", help="a file (default: stdout)")
        comparing = sub.add_parser("compare", help="each arm against the baseline on one measure and day: one JSON "
                                                   "line per arm (difference, 95%% bootstrap CI, permutation p, effect)")
        comparing.add_argument("study")
        which = comparing.add_mutually_exclusive_group(required=True)
        which.add_argument("--measure", help="a column of the results table (e.g. trust_mean)")
        which.add_argument("--all", action="store_true", help="every column of the results table: one JSON line "
                                                              "per measure and arm")
        comparing.add_argument("--adjust", choices=list(METHODS), default=HOLM,
                               help="how p_adjusted accounts for the comparisons made at once: holm (family-wise "
                                    "error rate, the default) or bh (Benjamini-Hochberg false discovery rate)")
        comparing.add_argument("--day", type=int, help="the day compared (default: the last)")
        comparing.add_argument("--baseline", help="the arm compared against (default: intervention=none, else the "
                                                  "first cell)")
        comparing.add_argument("-o", "--output", help="also write the lines as CSV to this file")

        ranking = sub.add_parser("rank", help="rank the arms from the judge's pairwise verdicts on an interview "
                                              "battery: one JSON line per arm, then one with the judge's verdict")
        ranking.add_argument("study")
        ranking.add_argument("--battery", help="FILE@TICK (default: the battery shipped for the study's world, at "
                                               "its arms' last tick)")
        ranking.add_argument("--rubric", help="a rubric YAML file (default: the default rubric)")
        ranking.add_argument("--judge", action="append", default=[], help="a model profile (default: the first "
                                                                           "run's judge route, else its profile)")
        ranking.add_argument("--agents", default="", help="persona keys, comma-separated (default: every agent)")
        ranking.add_argument("--seed", type=int, default=0, help="the samples and the bootstrap (default 0)")
        ranking.add_argument("--packet-tokens", type=int, default=PACKET_TOKENS,
                             help=f"a pair prompt's two packets together (default {PACKET_TOKENS}; smaller for a "
                                  "small, slow judge)")
        ranking.add_argument("--dimensions", default="",
                             help="the rubric's dimensions put to the judge, comma-separated (default: all)")

    def handle(self, *args, **options):
        return getattr(self, f"do_{options['action']}")(options)

    def do_create(self, options):
        if options["ticks"] is not None and options["ticks"] < 1:
            raise CommandError("--ticks must be at least 1")
        if options["days"] is not None and options["days"] <= 0:
            raise CommandError("--days must be more than 0")
        ticks = options["ticks"] if options["ticks"] is not None else round(options["days"] * TICKS_PER_DAY)
        base = parse_set(options["set"])
        for name in ("seed", "schedule"):
            if options[name] is not None:
                base[name] = str(options[name])
        base.update(provider_profile(options, base))
        try:
            plan = StudyPlan(name=options["name"], scenario=options["scenario"], target_ticks=ticks,
                             axes=parse_vary(options["vary"]), base=base, budget_cost=options["budget_cost"],
                             parallel=options["parallel"], interventions=parse_interventions(options["intervention"]),
                             surveys=[parse_survey(spec) for spec in options["survey"]]
                             + [parse_instrument(spec) for spec in options["instrument"]],
                             judging=[parse_judge(spec) for spec in options["judge"]])
            study = create_study(plan)
        except (StudyError, GridError, StudySurveyError, StudyJudgeError) as exc:
            raise CommandError(str(exc)) from None
        started = [] if options["no_start"] else scheduler.start(study)
        self.stdout.write(json.dumps({"study": study.pk, "name": study.name, "runs": study.members.count(),
                                      "started": started, "axes": study.axes}))

    def do_status(self, options):
        progress = study_progress(find_study(options["study"]))
        if options["json"]:
            self.stdout.write(json.dumps(progress))
            return
        s = progress["study"]
        budget = f" of {s['budget_cost']:.4f}" if s["budget_cost"] is not None else ""
        self.stdout.write(f"study {s['id']} {s['name']!r}: {s['state']}, {s['finished']}/{s['runs']} runs finished, "
                          f"{s['ticks']}/{s['target_ticks']} ticks, cost {s['spent']:.4f}{budget}")
        if s["stop_reason"]:
            self.stdout.write(f"stopped: {s['stop_reason']}")
        self.stdout.write(f"{'#':>3}  {'run':>5}  {'progress':>14}  {'state':<8}  {'seed':>6}  cell / note")
        for r in progress["runs"]:
            ticks = f"{r['tick']}/{r['target_ticks']} {r['percent']:>3.0f}%"
            note = f"  ({r['note']})" if r["note"] else ""
            self.stdout.write(f"{r['position']:>3}  {r['run_id']:>5}  {ticks:>14}  {r['state']:<8}  {r['seed']:>6}  "
                              f"{r['cell']}{note}")

    def do_run(self, options):
        study = find_study(options["study"])
        if study.state != Study.RUNNING:
            raise CommandError(f"study {study.name!r} is {study.state}" +
                               (f": {study.stop_reason}" if study.stop_reason else ""))
        outcome = run_study(study, self.stderr._out)
        outcome["judged"] = judge_due(study)  # the days --judge asked for (take_due would do them too)
        outcome["surveys"] = take_due(study)
        if outcome["stop_reason"]:
            self.stderr.write(f"study {study.name!r} stopped: {outcome['stop_reason']}")
        self.stdout.write(json.dumps(outcome))

    def do_results(self, options):
        study = find_study(options["study"])
        take_due(study)  # the finished runs' surveys not yet taken, so their measures are in the table
        if options["output"] == "-":
            write_csv(study, self.stdout._out)
        else:
            with open(options["output"], "w", newline="", encoding="utf-8") as out:
                n = write_csv(study, out)
            self.stderr.write(f"{n} rows written to {options['output']}")

    def do_compare(self, options):
        study = find_study(options["study"])
        try:
            if options["all"]:
                found = all_comparisons(study, options["day"], options["baseline"])
            else:
                found = study_comparisons(study, options["measure"], options["day"], options["baseline"])
        except CompareError as exc:
            raise CommandError(str(exc)) from None
        found = with_adjusted(found, options["adjust"])  # over every comparison printed
        for c in found:
            self.stdout.write(json.dumps(c.line()))
            if c.note:
                self.stderr.write(f"{c.arm}: {c.note}")
        if options["output"]:
            with open(options["output"], "w", newline="", encoding="utf-8") as out:
                write_comparisons(found, out)
            self.stderr.write(f"{len(found)} rows written to {options['output']}")

    def do_rank(self, options):
        start = time.process_time()
        study = find_study(options["study"])
        agents = [k.strip() for k in options["agents"].split(",") if k.strip()] or None
        try:
            found = rank_study(study, load_rubric(options["rubric"]), options["battery"], judges=options["judge"],
                               seed=options["seed"], agents=agents, packet_tokens=options["packet_tokens"],
                               dimensions=[d.strip() for d in options["dimensions"].split(",") if d.strip()])
        except (RankError, BatteryError, RubricError, JudgeError) as exc:
            raise CommandError(str(exc)) from None
        cpu_s = time.process_time() - start
        save_ranking(study, found, cpu_s)
        for arm in found.arms:
            self.stdout.write(json.dumps({"arm": arm.arm, "score": arm.score, "ci_low": arm.ci_low,
                                          "ci_high": arm.ci_high, "rank": arm.rank, "comparisons": arm.comparisons}))
        self.stdout.write(json.dumps({"verdict": found.verdict, "scripted": found.scripted, **found.checks,
                                      "verdict_reasons": found.reasons, "tick": found.tick, "answers": found.answers,
                                      "calls": found.calls, "cpu_s": round(cpu_s, 2), "options": found.options}))
