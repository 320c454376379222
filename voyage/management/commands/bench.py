"""Benchmarks: each prints one JSON line of figures.

    python manage.py bench engine --days 1
    python manage.py bench memory --days 3 [--layout cached]
    python manage.py bench concurrency --latency-ms 200 --ticks 5
    python manage.py bench concurrency --latency lognormal:1000:0.6 [--ticks 40] [--run-ahead 2] [--scenario 1912]
        [--agents N] [--policy fake-server|offline] [--rounds N]
    python manage.py bench worker --runs 4 --workers 2 --ticks 200
    python manage.py bench realmodel --ticks 3
    python manage.py bench web --days 3 --clients 50
    python manage.py bench export --days 3
    python manage.py bench study --runs 4 --workers 2 --days 1
    python manage.py bench scale [--scenario edelweiss] [--sizes 32,128,512,2048] [--database postgres]
    python manage.py bench networks [--scenario edelweiss] [--agents 2000] [--ticks 480]
    python manage.py bench ahead [--scenario 1912] [--ticks 40] [--latency lognormal:1000:0.6] [--policy fake-server]
    python manage.py bench survey [--ticks 240] [--repeats 3]
    python manage.py bench validity [--runs 10] [--ticks 5] [--repeats 3]
    python manage.py bench crash --days 1 [--kills 6]
"""
import json

from django.core.management.base import BaseCommand, CommandError

from voyage.bench import (
    ahead, concurrency, crash, engine, export, memory, networks, realmodel, scale, study, survey, validity, web,
    worker,
)
from voyage.bench.fake_openai_server import parse_latency
from voyage.models import MAX_RUN_AHEAD

DEFAULT_TICKS = {"concurrency": 5, "worker": 200, "web": 60, "realmodel": 3, "scale": 60, "ahead": 40, "survey": 240,
                 "validity": 5}
DEFAULT_DAYS = {"web": 3}
DEFAULT_RUNS = {"validity": 10}
DEFAULT_AGENTS = {"realmodel": 6, "networks": 2000}


class Command(BaseCommand):
    help = "Run a benchmark and print one JSON line of figures."

    def add_arguments(self, parser):
        parser.add_argument("which", choices=list(BENCHES))
        parser.add_argument("--days", type=float, help="engine, memory, export, study: simulated days (1); web: of the run whose pages are timed (3)")
        parser.add_argument("--schedule", default="sequential", choices=["sequential", "simultaneous"])
        parser.add_argument("--ticks", type=int, help="concurrency: ticks timed per schedule (5); worker: per run (200)")
        parser.add_argument("--latency-ms", type=float, default=200, help="concurrency: the server's latency per call")
        parser.add_argument("--runs", type=int, help="worker, study: runs queued together (4); validity: seeds (10)")
        parser.add_argument("--workers", type=int, default=2, help="worker: worker processes")
        parser.add_argument("--layout", default="seed", choices=["seed", "cached"],
                            help="memory: the context layout of action prompts")
        parser.add_argument("--agents", type=int, help="realmodel: the cast (first personas by key, 6); networks: the "
                                                          "world grown to this many (2000); "
                                                                  "(internal) scale: the size this process runs")
        parser.add_argument("--scenario", help="scale: the shipped scenario grown (edelweiss); ahead: the one traced (1912)")
        parser.add_argument("--sizes", default="32,128,512,2048", help="scale: the numbers of agents, comma-separated")
        parser.add_argument("--database", default="sqlite", choices=["sqlite", "postgres"],
                            help="scale: the scratch databases' kind (postgres: on 127.0.0.1:5432)")
        parser.add_argument("--kills", type=int, default=6, help="crash: SIGKILLs of the memory cluster "
                                                                   "(the tick cluster's too, every other time)")
        parser.add_argument("--clients", type=int, default=50, help="web: websocket clients while a run advances")
        parser.add_argument("--step", choices=["pages", "advance"], help="(internal) web: what the inner process does")
        parser.add_argument("--run-id", type=int, help="(internal) web: the run whose pages are timed")
        parser.add_argument("--inner", action="store_true", help="(internal) run on the configured database")
        parser.add_argument("--base-url", help="(internal) concurrency: the running fake server")
        parser.add_argument("--latency", metavar="lognormal:MEDIAN_MS:SIGMA",
                            help="concurrency: each call's latency drawn from a lognormal, seeded by the request "
                                 "(40 ticks by default); ahead: the latencies played (lognormal:1000:0.6)")
        parser.add_argument("--repeats", type=int, default=3, help="survey: surveys timed (the best is kept)")
        parser.add_argument("--provider", choices=["llama-cpp-python"],
                            help="realmodel: the schema run's profile takes this provider's defaults (its form, "
                                 "dialect, switches) instead of json_object_schema alone")
        parser.add_argument("--policy", choices=["offline", "fake-server"],
                            help="ahead: who answers the traced run's actions (offline; fake-server: bench concurrency's "
                                 "server); concurrency --latency: who answers (fake-server; offline: the offline policy "
                                 "after bench ahead's latencies)")
        parser.add_argument("--run-ahead", type=int, help="concurrency --latency: the out-of-order run's run_ahead (2)")
        parser.add_argument("--rounds", type=int,
                            help="concurrency --latency: rounds of the two runs, each in a fresh process, their order "
                                 "alternating; prints each round's figures and the median ratios")
        parser.add_argument("--half", choices=concurrency.HALVES, help="(internal) concurrency --latency: one run only")

    def handle(self, *args, **options):
        which = options["which"]
        if options["days"] is None:
            options["days"] = DEFAULT_DAYS.get(which, 1)
        if options["runs"] is None:
            options["runs"] = DEFAULT_RUNS.get(which, 4)
        if options["agents"] is None:
            options["agents"] = DEFAULT_AGENTS.get(which)
        if which in ("engine", "memory", "web", "export") and options["days"] <= 0:
            raise CommandError("--days must be positive")
        figures = BENCHES[which](options)
        if figures is None:  # an inner step that reports nothing of its own (web's advance)
            return
        if which == "realmodel" and "skipped" in figures:  # no llama server here: say why on stderr too
            self.stderr.write(f"bench {which} skipped: {figures['skipped']}")
        self.stdout.write(json.dumps(figures))


# One function per benchmark: it checks the options it reads and returns the figures. `inner`: the
# step run in a subprocess on a scratch database (the outer step starts it).

def ticks_of(o, default: int | None) -> int | None:
    """--ticks, or the benchmark's default when it was not given."""
    return default if o["ticks"] is None else o["ticks"]


def bench_engine(o):
    return (engine.inner if o["inner"] else engine.outer)(o["days"], o["schedule"])


def bench_memory(o):  # memory over days: prompt sizes, compaction, context timings
    return (memory.inner if o["inner"] else memory.outer)(o["days"], o["layout"])


def bench_crash(o):  # memory after SIGKILLs of the worker clusters, against the batch runner
    return crash.outer(o["days"], o["kills"])


def bench_export(o):  # a run's fixture: export_run, then loaddata into a fresh database
    return export.outer(o["days"])


def bench_concurrency(o):
    if o["latency"]:  # lognormal latencies: the wall time of a simulated hour
        parse_lognormal(o["latency"])
        ticks = ticks_of(o, 40)
        if ticks < 1:
            raise CommandError("--ticks must be at least 1")
        ahead = 2 if o["run_ahead"] is None else o["run_ahead"]
        if not 1 <= ahead <= MAX_RUN_AHEAD:
            raise CommandError(f"--run-ahead must be from 1 to {MAX_RUN_AHEAD}")
        world = dict(run_ahead=ahead, scenario=o["scenario"] or "1912", agents=o["agents"],
                     policy=o["policy"] or "fake-server")
        if o["inner"]:
            halves = (o["half"],) if o["half"] else concurrency.HALVES
            return concurrency.lognormal_inner(o["latency"], ticks, o["base_url"], **world, halves=halves)
        if o["rounds"] is not None:
            if o["rounds"] < 1:
                raise CommandError("--rounds must be at least 1")
            return concurrency.lognormal_rounds(o["latency"], ticks, o["rounds"], **world)
        return concurrency.lognormal_outer(o["latency"], ticks, **world)
    if o["rounds"] is not None:
        raise CommandError("--rounds goes with --latency lognormal:MEDIAN_MS:SIGMA")
    ticks = ticks_of(o, DEFAULT_TICKS["concurrency"])
    if o["latency_ms"] <= 0 or ticks < 1:
        raise CommandError("--latency-ms must be positive and --ticks at least 1")
    if o["inner"]:
        return concurrency.inner(o["latency_ms"], ticks, o["base_url"])
    return concurrency.outer(o["latency_ms"], ticks)


def bench_realmodel(o):  # SmolLM2-135M on llama-cpp-python's server, with the schema and without
    ticks = ticks_of(o, DEFAULT_TICKS["realmodel"])
    if ticks < 1 or o["agents"] < 1:
        raise CommandError("--ticks and --agents must be positive")
    return (realmodel.inner if o["inner"] else realmodel.outer)(ticks, o["agents"], o["provider"])


def bench_web(o):  # page server times, websocket lag and fan-out
    ticks = ticks_of(o, DEFAULT_TICKS["web"])
    if ticks < 1 or o["clients"] < 1:
        raise CommandError("--ticks and --clients must be positive")
    if not o["inner"]:
        return web.outer(o["days"], ticks, o["clients"])
    if o["step"] == "pages":
        return web.pages(o["run_id"])
    web.advance_fresh_run(ticks)
    return None


def bench_scale(o):  # CPU per tick and per action, queries, RSS as the world grows
    ticks = ticks_of(o, DEFAULT_TICKS["scale"])
    if ticks < 1:
        raise CommandError("--ticks must be positive")
    scenario = o["scenario"] or "edelweiss"
    if o["inner"]:
        return scale.inner(scenario, o["agents"], ticks)
    try:
        sizes = sorted({int(n) for n in o["sizes"].split(",")})
    except ValueError:
        raise CommandError(f"--sizes must be numbers separated by commas, not {o['sizes']!r}") from None
    if not sizes or sizes[0] < 1:
        raise CommandError("--sizes must be positive")
    return scale.outer(scenario, sizes, ticks, o["database"])


def bench_ahead(o):  # the ceiling of an out-of-order schedule on a traced run (issue 22)
    ticks = ticks_of(o, DEFAULT_TICKS["ahead"])
    median_ms, sigma = parse_lognormal(o["latency"] or "lognormal:1000:0.6")
    if ticks < 2:
        raise CommandError("--ticks must be at least 2")
    return (ahead.inner if o["inner"] else ahead.outer)(o["scenario"] or "1912", ticks, median_ms, sigma,
                                                        o["policy"] or "offline", agents=o["agents"])


def bench_survey(o):  # 33 agents × 10 items on the offline policy (issue 32: under 2 s of CPU)
    ticks = ticks_of(o, DEFAULT_TICKS["survey"])
    if ticks < 1 or o["repeats"] < 1:
        raise CommandError("--ticks and --repeats must be positive")
    return (survey.inner if o["inner"] else survey.outer)(ticks, o["repeats"])


def bench_validity(o):  # a 10-seed study's validity figures (issue 40: under 5 s of CPU)
    ticks = ticks_of(o, DEFAULT_TICKS["validity"])
    if min(ticks, o["runs"], o["repeats"]) < 1:
        raise CommandError("--ticks, --runs and --repeats must be positive")
    return (validity.inner if o["inner"] else validity.outer)(o["runs"], ticks, o["repeats"])


def bench_networks(o):  # the network measures of one big world's day (issue 32)
    ticks = ticks_of(o, 480)
    if ticks < 1 or o["agents"] < 2:
        raise CommandError("--ticks must be positive and --agents at least 2")
    return (networks.inner if o["inner"] else networks.outer)(o["scenario"] or "edelweiss", o["agents"], ticks)


def bench_study(o):  # an offline study on worker processes, then all its measures
    if min(o["runs"], o["workers"]) < 1 or o["days"] <= 0:
        raise CommandError("--runs, --workers and --days must be positive")
    return (study.inner if o["inner"] else study.outer)(o["runs"], o["workers"], o["days"])


def bench_worker(o):
    ticks = ticks_of(o, DEFAULT_TICKS["worker"])
    if min(o["runs"], o["workers"], ticks) < 1:
        raise CommandError("--runs, --workers and --ticks must be positive")
    return (worker.inner if o["inner"] else worker.outer)(o["runs"], o["workers"], ticks)


BENCHES = {"engine": bench_engine, "memory": bench_memory, "concurrency": bench_concurrency, "worker": bench_worker,
           "web": bench_web, "export": bench_export, "study": bench_study, "realmodel": bench_realmodel,
           "scale": bench_scale, "ahead": bench_ahead, "survey": bench_survey, "networks": bench_networks,
           "crash": bench_crash, "validity": bench_validity}


def parse_lognormal(text: str) -> tuple[float, float]:
    """"lognormal:MEDIAN_MS:SIGMA" -> (median in ms, sigma), or a CommandError naming what is wrong."""
    try:
        return parse_latency(text)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
