"""Benchmarks: each prints one JSON line of figures.

    python manage.py bench engine --days 1
    python manage.py bench memory --days 3 [--layout cached]
    python manage.py bench concurrency --latency-ms 200 --ticks 5
    python manage.py bench concurrency --latency lognormal:1000:0.6 [--ticks 40]
    python manage.py bench worker --runs 4 --workers 2 --ticks 200
    python manage.py bench realmodel --ticks 3
    python manage.py bench web --days 3 --clients 50
    python manage.py bench export --days 3
    python manage.py bench study --runs 4 --workers 2 --days 1
    python manage.py bench scale [--scenario edelweiss] [--sizes 32,128,512,2048] [--database postgres]
    python manage.py bench networks [--scenario edelweiss] [--agents 2000] [--ticks 480]
    python manage.py bench ahead [--scenario 1912] [--ticks 40] [--latency lognormal:1000:0.6] [--policy fake-server]
    python manage.py bench survey [--ticks 240] [--repeats 3]
    python manage.py bench crash --days 1 [--kills 6]
"""
import json

from django.core.management.base import BaseCommand, CommandError

DEFAULT_TICKS = {"concurrency": 5, "worker": 200, "web": 60, "realmodel": 3, "scale": 60, "ahead": 40, "survey": 240}
DEFAULT_DAYS = {"web": 3}
DEFAULT_AGENTS = {"realmodel": 6, "networks": 2000}


class Command(BaseCommand):
    help = "Run a benchmark and print one JSON line of figures."

    def add_arguments(self, parser):
        parser.add_argument("which", choices=["engine", "memory", "concurrency", "worker", "web", "export", "study",
                                              "realmodel", "scale", "ahead", "survey", "networks", "crash"])
        parser.add_argument("--days", type=float, help="engine, memory, export, study: simulated days (1); web: of the run whose pages are timed (3)")
        parser.add_argument("--schedule", default="sequential", choices=["sequential", "simultaneous"])
        parser.add_argument("--ticks", type=int, help="concurrency: ticks timed per schedule (5); worker: per run (200)")
        parser.add_argument("--latency-ms", type=float, default=200, help="concurrency: the server's latency per call")
        parser.add_argument("--runs", type=int, default=4, help="worker: runs queued together")
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
        parser.add_argument("--policy", choices=["offline", "fake-server"], default="offline",
                            help="ahead: who answers the traced run's actions (fake-server: bench concurrency's server)")

    def handle(self, *args, **options):
        which = options["which"]
        ticks = options["ticks"] if options["ticks"] is not None else DEFAULT_TICKS.get(which)
        if options["days"] is None:
            options["days"] = DEFAULT_DAYS.get(which, 1)
        if options["agents"] is None:
            options["agents"] = DEFAULT_AGENTS.get(which)
        if which in ("engine", "memory", "web", "export") and options["days"] <= 0:
            raise CommandError("--days must be positive")
        if which == "engine":
            from voyage.bench import engine

            figures = (engine.inner if options["inner"] else engine.outer)(options["days"], options["schedule"])
        elif which == "memory":  # memory over days: prompt sizes, compaction, context timings
            from voyage.bench import memory

            figures = (memory.inner if options["inner"] else memory.outer)(options["days"], options["layout"])
        elif which == "crash":  # memory after SIGKILLs of the worker clusters, against the batch runner
            from voyage.bench import crash

            figures = crash.outer(options["days"], options["kills"])
        elif which == "export":  # a run's fixture: export_run, then loaddata into a fresh database
            from voyage.bench import export

            figures = export.outer(options["days"])
        elif which == "concurrency":
            from voyage.bench import concurrency

            if options["latency"]:  # lognormal latencies: the wall time of a simulated hour
                parse_lognormal(options["latency"])
                ticks = 40 if options["ticks"] is None else ticks
                if ticks < 1:
                    raise CommandError("--ticks must be at least 1")
                figures = (concurrency.lognormal_inner(options["latency"], ticks, options["base_url"])
                           if options["inner"] else concurrency.lognormal_outer(options["latency"], ticks))
            else:
                if options["latency_ms"] <= 0 or ticks < 1:
                    raise CommandError("--latency-ms must be positive and --ticks at least 1")
                figures = (concurrency.inner(options["latency_ms"], ticks, options["base_url"])
                           if options["inner"] else concurrency.outer(options["latency_ms"], ticks))
        elif which == "realmodel":  # SmolLM2-135M on llama-cpp-python's server, with the schema and without
            from voyage.bench import realmodel

            if ticks < 1 or options["agents"] < 1:
                raise CommandError("--ticks and --agents must be positive")
            figures = (realmodel.inner if options["inner"] else realmodel.outer)(ticks, options["agents"],
                                                                                 options["provider"])
            if "skipped" in figures:
                self.stderr.write(f"bench realmodel skipped: {figures['skipped']}")
        elif which == "web":  # page server times, websocket lag and fan-out
            from voyage.bench import web

            if ticks < 1 or options["clients"] < 1:
                raise CommandError("--ticks and --clients must be positive")
            if not options["inner"]:
                figures = web.outer(options["days"], ticks, options["clients"])
            elif options["step"] == "pages":
                figures = web.pages(options["run_id"])
            else:
                web.advance_fresh_run(ticks)
                return
        elif which == "scale":  # CPU per tick and per action, queries, RSS as the world grows
            from voyage.bench import scale

            if ticks < 1:
                raise CommandError("--ticks must be positive")
            if options["inner"]:
                figures = scale.inner(options["scenario"] or "edelweiss", options["agents"], ticks)
            else:
                try:
                    sizes = sorted({int(n) for n in options["sizes"].split(",")})
                except ValueError:
                    raise CommandError(f"--sizes must be numbers separated by commas, not {options['sizes']!r}") from None
                if not sizes or sizes[0] < 1:
                    raise CommandError("--sizes must be positive")
                figures = scale.outer(options["scenario"] or "edelweiss", sizes, ticks, options["database"])
        elif which == "ahead":  # the ceiling of an out-of-order schedule on a traced run (issue 22)
            from voyage.bench import ahead

            median_ms, sigma = parse_lognormal(options["latency"] or "lognormal:1000:0.6")
            if ticks < 2:
                raise CommandError("--ticks must be at least 2")
            figures = (ahead.inner if options["inner"] else ahead.outer)(options["scenario"] or "1912", ticks, median_ms, sigma,
                                                                         options["policy"])
        elif which == "survey":  # 33 agents × 10 items on the offline policy (issue 32: under 2 s of CPU)
            from voyage.bench import survey

            if ticks < 1 or options["repeats"] < 1:
                raise CommandError("--ticks and --repeats must be positive")
            figures = (survey.inner if options["inner"] else survey.outer)(ticks, options["repeats"])
        elif which == "networks":  # the network measures of one big world's day (issue 32)
            from voyage.bench import networks

            ticks = ticks or 480
            if ticks < 1 or options["agents"] < 2:
                raise CommandError("--ticks must be positive and --agents at least 2")
            figures = (networks.inner if options["inner"] else networks.outer)(
                options["scenario"] or "edelweiss", options["agents"], ticks)
        elif which == "study":  # an offline study on worker processes, then all its measures
            from voyage.bench import study

            if min(options["runs"], options["workers"]) < 1 or options["days"] <= 0:
                raise CommandError("--runs, --workers and --days must be positive")
            figures = (study.inner if options["inner"] else study.outer)(options["runs"], options["workers"],
                                                                         options["days"])
        else:
            from voyage.bench import worker

            if min(options["runs"], options["workers"], ticks) < 1:
                raise CommandError("--runs, --workers and --ticks must be positive")
            figures = (worker.inner if options["inner"] else worker.outer)(options["runs"], options["workers"], ticks)
        self.stdout.write(json.dumps(figures))


def parse_lognormal(text: str) -> tuple[float, float]:
    """"lognormal:MEDIAN_MS:SIGMA" -> (median in ms, sigma), or a CommandError naming what is wrong."""
    from voyage.bench.fake_openai_server import parse_latency

    try:
        return parse_latency(text)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
