"""Judge a run's day against a rubric, with the judge's self-checks and verdict (docs/judging.md):

    python manage.py judge RUN [--rubric FILE] [--day D] [--agents K1,K2] [--judge PROFILE [--judge PROFILE2]]
                               [-o scores.csv] [--budget-tokens N] [--budget-cost X]
                               [--packet-tokens N] [--dimensions D1,D2] [--pairs N] [--repeat-share S]
                               [--planted-share S]     # cut down for a small, slow judge; stated in the line
                               [--scenes N [--scene-ticks W]] [--scene ROOM@A-B ...]   # rooms' scenes too

Prints the projection (calls, tokens, cost) on stderr before any call goes out, then one JSON line."""
import csv
import json
import time

from django.core.management.base import BaseCommand, CommandError

from voyage.judging.job import MAX_SCENES, JudgeError, judge_run, save, scene_window
from voyage.judging.packets import PACKET_TOKENS, SCENE_TICKS, PacketError
from voyage.judging.rubric import RubricError, load_rubric
from voyage.management.run_arg import HELP, add_output_argument, run_from_arg

COLUMNS = ("run", "day", "agent", "dimension", "score", "reason", "cited_ids", "repeat", "judge", "copy", "missing",
           "verdict")


class Command(BaseCommand):
    help = "Judge a run's day against a rubric; print one JSON line with the judge's verdict."

    def add_arguments(self, parser):
        parser.add_argument("run", help=HELP)
        parser.add_argument("--rubric", help="a rubric YAML file (default: voyage/judging/rubrics/default.yaml)")
        parser.add_argument("--day", type=int, default=1, help="the day to judge (default 1)")
        parser.add_argument("--agents", default="", help="persona keys, comma-separated (default: every agent)")
        parser.add_argument("--judge", action="append", default=[],
                            help="a model profile; twice for agreement between two judges (default: the run's "
                                 "judge route, else its main profile, else the offline scripted judge)")
        parser.add_argument("--seed", type=int, help="the self-checks' samples (default: the run's seed)")
        parser.add_argument("--pairs", type=int, default=12, help="pairs asked in both orders (default 12)")
        parser.add_argument("--repeat-share", type=float, default=0.2,
                            help="share of packets judged twice, for repeatability (default 0.2; 2 at least)")
        parser.add_argument("--planted-share", type=float, default=0.3,
                            help="share of packets given planted defects (default 0.3; 3 at least)")
        parser.add_argument("--packet-tokens", type=int, default=PACKET_TOKENS,
                            help=f"each evidence packet's bound in tokens (default {PACKET_TOKENS}; smaller for a "
                                 "small, slow judge)")
        parser.add_argument("--dimensions", default="",
                            help="the rubric's dimensions to judge, comma-separated (default: all of them)")
        parser.add_argument("--scenes", type=int, default=0,
                            help="also judge the day's N busiest scenes (a room over a window of ticks), on the "
                                 f"rubric's dimensions that read scene (default 0, at most {MAX_SCENES})")
        parser.add_argument("--scene-ticks", type=int, default=SCENE_TICKS,
                            help=f"the window of a scene --scenes picks, in ticks (default {SCENE_TICKS})")
        parser.add_argument("--scene", action="append", default=[], metavar="ROOM@A-B",
                            help="also judge this scene: room key, first and last tick (repeatable)")
        parser.add_argument("--budget-tokens", type=int, help="refuse a job projected to use more tokens")
        parser.add_argument("--budget-cost", type=float, help="refuse a job projected to cost more")
        add_output_argument(parser, help="write the scores as a tidy CSV here")

    def handle(self, *args, **options):
        start = time.process_time()
        run = run_from_arg(options["run"])
        agents = [k.strip() for k in options["agents"].split(",") if k.strip()] or None
        try:
            windows = [scene_window(w) for w in options["scene"]]
            rubric = load_rubric(options["rubric"])
            result = judge_run(run, rubric, options["day"], agents=agents, judges=options["judge"],
                               seed=options["seed"], pairs=options["pairs"],
                               repeat_share=options["repeat_share"], planted_share=options["planted_share"],
                               budget_tokens=options["budget_tokens"], budget_cost=options["budget_cost"],
                               packet_tokens=options["packet_tokens"],
                               dimensions=[d.strip() for d in options["dimensions"].split(",") if d.strip()],
                               scenes=options["scenes"], scene_ticks=options["scene_ticks"], scene_windows=windows,
                               on_projection=lambda p: self.stderr.write(f"projected: {json.dumps(p)}"))
        except (RubricError, PacketError, JudgeError) as exc:
            raise CommandError(str(exc)) from None
        if options["output"]:
            with open(options["output"], "w", newline="") as f:
                write_csv(f, result)
        cpu_s = time.process_time() - start
        save(result, cpu_s)
        self.stdout.write(json.dumps(result.summary(cpu_s)))


def write_csv(f, result) -> None:
    out = csv.writer(f)
    out.writerow(COLUMNS)
    for r in result.rows:
        j = r.judgement
        out.writerow((result.run_id, result.day, r.agent, j.dimension, "" if j.score is None else f"{j.score:g}",
                      j.reason, " ".join(j.cites), r.repeat, r.judge, r.copy, j.missing, result.verdict))
