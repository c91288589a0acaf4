"""Numeric commands of the CLI: ``run``, ``verify``, ``report``, ``counterexample``.

They sit on :mod:`verify` (executor, algorithms, claims); the theory commands live in
:mod:`fedbounds.app.cli`. Verdicts are computed from runs, or taken from the result store
(:mod:`.store`) when the same code computed them with the same inputs.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from fedbounds.errors import BadInput
from fedbounds.params import DEFAULT_MAX_WORK
from fedbounds.parse import parse_number
from fedbounds.problems import files as problem_files
from fedbounds.verify.algorithm import Algorithm, build_instance, run_document

from .common import (
    BackendOpt,
    JsonOpt,
    MoreOpt,
    ProfileOpt,
    SeedOpt,
    SetOpt,
    app,
    assignments,
    emit_json,
    err,
    fmt,
    g,
    guarded,
    out,
)

SEED_MAX = 2**63 - 1
InstanceSeedOpt = Annotated[int, typer.Option(
    "--instance-seed", help="seed of the problem instances (games, operators, data, initial "
    "points); --seed is the noise seed")]
MaxWorkOpt = Annotated[str | None, typer.Option(
    "--max-work", metavar="N", help=f"cap on the work of this call (≈ numbers touched; default "
    f"{DEFAULT_MAX_WORK:.0e}, about a minute or two); raise it for a longer run")]


def _check_profile(profile: str) -> None:
    if profile not in ("quick", "full"):
        raise BadInput("--profile", f"{profile!r} is not a profile; allowed: quick, full")


def _check_backend(backend: str) -> None:
    from .runner import BACKENDS

    if backend not in BACKENDS:
        raise BadInput("--backend", f"{backend!r} is not a backend; allowed: {', '.join(BACKENDS)}")


def _check_seed(seed: int) -> int:
    """--seed: an integer in [0, 2**63 - 1] (the root of every SeedSequence)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise BadInput("--seed", f"must be an integer in [0, 2**63 - 1], got {seed!r}")
    return seed


def _max_work(text: str | None) -> float:
    """--max-work: a positive number (default :data:`~fedbounds.params.DEFAULT_MAX_WORK`)."""
    if text is None:
        return float(DEFAULT_MAX_WORK)
    value = parse_number(text, "--max-work")
    if value <= 0:
        raise BadInput("--max-work", f"must be a positive number, got {text!r}")
    return float(value)


def _progress(total: int, label: str) -> tuple[Progress, callable]:
    # refreshed at each step, not by rich's refresh thread: the command stays single-threaded,
    # so its process pool forks its workers (see fedbounds.app.lifecycle.start_method)
    prog = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                    TimeElapsedColumn(), console=err, transient=True, auto_refresh=False)
    task = prog.add_task("", total=total)

    def step(cid: str) -> None:
        prog.update(task, advance=1, description=cid, refresh=True)

    return prog, step


@app.command()
@guarded
def run(algorithm: Annotated[str, typer.Argument(metavar="ALGORITHM")],
        more: MoreOpt = None,
        problem: Annotated[str, typer.Option("--problem", help="problem family")] = "",
        problem_file: Annotated[Path | None, typer.Option(
            "--problem-file", help="your own instance: a .npz or .json file of per-client arrays "
                                   "(game A, B, C, b, c[, weights] or operator J, b)")] = None,
        set_: SetOpt = None,
        rounds: Annotated[int, typer.Option("--rounds", help="communication rounds / iterations")] = 100,
        seeds: Annotated[int, typer.Option("--seeds", help="replicas (independent runs)")] = 1,
        seed: SeedOpt = 0,
        instance_seed: InstanceSeedOpt = 0,
        iterates: Annotated[bool, typer.Option("--iterates", help="also report the iterate "
                                               "(server model / client average) per round")] = False,
        max_work: MaxWorkOpt = None,
        json_: JsonOpt = False) -> None:
    """Run ALGORITHM on --problem (or --problem-file); step sizes and problem parameters are
    --set values. A run that would exceed --max-work is refused before it starts; a run that
    blows up reports diverged, the round and the reason. --instance-seed builds the --problem
    instance, --seed draws the noise."""
    from fedbounds.verify import catalog
    from fedbounds.verify.claim import check_seed

    alg = catalog.lookup(catalog.algorithms(), algorithm, "ALGORITHM", "algorithm")
    _positive(rounds, "--rounds")
    _positive(seeds, "--seeds")
    _check_seed(seed)
    check_seed(instance_seed, "--instance-seed")
    cap = _max_work(max_work)
    values = assignments(set_, more)
    if problem_file is not None:
        if problem:
            raise BadInput("--problem-file", "give --problem or --problem-file, not both")
        if instance_seed:
            raise BadInput("--instance-seed", "a --problem-file is the instance; "
                           "--instance-seed builds a --problem instance only")
        _, aparams = _split(alg, None, values)
        instance = problem_files.load(problem_file, _instance_type(alg), max_work=cap)
        doc = run_document(alg, instance.name, instance, aparams, rounds, seeds, seed,
                           iterates=iterates, max_work=cap)
        _show_run(doc, rounds, seeds, seed, json_)
        return
    if not problem:
        raise BadInput("--problem", "required; allowed: " + ", ".join(sorted(catalog.problems())))
    prob = catalog.lookup(catalog.problems(), problem, "--problem", "problem")
    doc = _run_unit(alg, prob, values, rounds, seeds, seed, iterates, cap, instance_seed)
    _show_run(doc, rounds, seeds, seed, json_, instance_seed)


def _show_run(doc: dict, rounds: int, seeds: int, seed: int, json_: bool,
              instance_seed: int | None = None) -> None:
    """A run document as JSON, or as a summary table and a table of the exact constants."""
    if json_:
        emit_json(doc)
        return
    inst = "" if instance_seed is None else f", instance seed {instance_seed}"
    t = Table(title=f"{doc['algorithm']} on {doc['problem']}: {rounds} rounds, {seeds} "
                    f"replica(s), seed {seed}{inst}")
    t.add_column("summary")
    t.add_column("value")
    for k, v in doc.get("summary", {}).items():
        t.add_row(k, g(v) if isinstance(v, float) else str(v))
    out.print(t)
    summ = doc.get("summary", {})
    if summ.get("diverged"):
        err.print(f"[magenta]diverged[/] at round {summ.get('diverged_at')}: "
                  f"{summ.get('reason', 'blow-up')}", highlight=False)
    _constants_table("constants (exact)", doc.get("constants", {}))


def _constants_table(title: str, constants: dict) -> None:
    c = Table(title=title)
    c.add_column("name")
    c.add_column("value")
    for k, v in constants.items():
        if isinstance(v, (int, float)):
            c.add_row(k, g(float(v)))
    out.print(c)


@app.command()
@guarded
def constants(problem_file: Annotated[Path, typer.Option(
                  "--problem-file", help="a .npz or .json file of per-client arrays (game A, B, "
                                         "C, b, c[, weights] or operator J, b)")],
              json_: JsonOpt = False) -> None:
    """Exact constants of your own instance: the game's (L_f, μ, κ, σ_G …) and the operator's
    (μ, ℓ, L, ζ² …), as the algorithms and theorems use them."""
    doc = problem_files.constants_of(problem_file)
    if json_:
        emit_json({"problem_file": str(problem_file), **doc})
        return
    for view, values in doc.items():
        _constants_table(f"{view} constants (exact)", values)


SeedsOpt = Annotated[int, typer.Option(
    "--seeds", metavar="N", help="run N noise seeds (--seed, --seed + 1, …) with the instance "
    "fixed and report each claim's verdict counts and agreement")]
StoreOpt = Annotated[str | None, typer.Option(
    "--store", metavar="PATH", help="result store (default $FEDBOUNDS_STORE or "
    ".fedbounds/results.sqlite; 'off' for none): stored results are reused, new ones added")]
FreshOpt = Annotated[bool, typer.Option(
    "--fresh", help="recompute every result (and replace it in the store)")]
SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS", help="with --backend dask: an existing cluster's "
    "scheduler (e.g. tcp://host:8786) instead of a local one")]
WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", metavar="N", help="processes of --backend process or of the local dask "
    "cluster (default: the CPUs this process may use); each runs one BLAS thread")]
VERDICT_COLOURS = {"confirmed": "green", "refuted": "red", "inconclusive": "yellow",
                   "diverged": "magenta"}
FAILING_VERDICTS = ("refuted", "inconclusive", "diverged")
FailOnOpt = Annotated[list[str] | None, typer.Option(
    "--fail-on", metavar="VERDICT", help="exit 1 if any claim (any seed) gets this verdict: "
    "refuted, inconclusive or diverged (repeatable; e.g. --fail-on refuted in CI); without it "
    "verify exits 0 whatever the verdicts")]


def _check_fail_on(verdicts: list[str] | None) -> set[str]:
    """--fail-on: verdicts that make verify exit 1 (checked before any claim runs)."""
    for v in verdicts or []:
        if v not in FAILING_VERDICTS:
            raise BadInput("--fail-on", f"{v!r} is not a verdict to fail on; allowed: "
                           f"{', '.join(FAILING_VERDICTS)}")
    return set(verdicts or [])


def _exit_on(fail_on: set[str], verdicts: list[str]) -> None:
    """Exit 1 (after the output) when a verdict is one of ``fail_on``, saying which."""
    hit = Counter(v for v in verdicts if v in fail_on)
    if hit:
        err.print("failing (--fail-on): " + ", ".join(f"{n} {k}" for k, n in hit.items()),
                  highlight=False)
        raise typer.Exit(1)


def _check_run_options(profile: str, backend: str, scheduler: str | None, seed: int,
                       instance_seed: int, seeds: int = 1, workers: int | None = None) -> None:
    """verify's and report's options, checked before any claim runs."""
    from fedbounds.verify.claim import check_seed

    from .runner import MAX_WORKERS, check_backend

    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise BadInput("--workers", f"must be an integer in [1, {MAX_WORKERS}], got {workers}")
    _check_profile(profile)
    check_backend(backend, scheduler)
    _check_seed(seed)
    check_seed(instance_seed, "--instance-seed")
    _positive(seeds, "--seeds")
    if seed + seeds - 1 > SEED_MAX:
        raise BadInput("--seeds", f"--seed {seed} + {seeds} seeds passes 2**63 - 1")


@app.command()
@guarded
def verify(target: Annotated[str, typer.Argument(metavar="[CLAIM|PAPER|all]")] = "all",
           profile: ProfileOpt = "quick", backend: BackendOpt = "serial", seed: SeedOpt = 0,
           instance_seed: InstanceSeedOpt = 0, seeds: SeedsOpt = 1, store: StoreOpt = None,
           fresh: FreshOpt = False, scheduler: SchedulerOpt = None, workers: WorkersOpt = None,
           fail_on: FailOnOpt = None, json_: JsonOpt = False) -> None:
    """Run claims and compute a verdict for each (confirmed/refuted/inconclusive/diverged);
    results already in the store are reused (``cached``) unless --fresh. Exit codes: 0 done,
    1 a verdict named by --fail-on occurred, 2 bad input, 3 internal error."""
    from fedbounds.verify import catalog

    from .runner import Plan, run_tasks
    from .store import store_path

    _check_run_options(profile, backend, scheduler, seed, instance_seed, seeds, workers)
    failing = _check_fail_on(fail_on)
    claims = catalog.select_claims(target)
    if not claims:
        raise BadInput("CLAIM", "no claims are registered yet")
    noise = list(range(seed, seed + seeds))
    plan = Plan([(c.id, s) for c in claims for s in noise], profile, instance_seed, backend,
                store_path(store), fresh, scheduler, workers=workers)
    prog, step = _progress(len(plan.tasks), "verify")
    with prog:
        results = run_tasks(plan, step)
    if seeds > 1:
        _show_seed_spread(target, profile, noise, instance_seed, claims, results, json_)
        _exit_on(failing, [r.verdict.verdict for r in results])
        return
    verdicts = catalog.with_provenance([r.verdict for r in results])
    if json_:
        emit_json({"claims": [{**r.verdict.as_json(), "cached": r.cached} for r in results]})
        _exit_on(failing, [v.verdict for v in verdicts])
        return
    t = Table(title=f"verify {target} (profile {profile}, seed {seed}, instance seed "
                    f"{instance_seed})")
    for col in ("claim", "provenance", "verdict", "statistic", "predicted", "tolerance", "s"):
        t.add_column(col, no_wrap=col == "claim")
    for r in results:
        v = r.verdict
        t.add_row(v.id, v.provenance or "", f"[{VERDICT_COLOURS[v.verdict]}]{v.verdict}[/]",
                  fmt(v.statistic),
                  fmt(v.predicted), fmt(v.tolerance),
                  g(v.seconds) + (" (stored)" if r.cached else ""))
    out.print(t)
    counts = Counter(v.verdict for v in verdicts)
    out.print(", ".join(f"{n} {k}" for k, n in counts.items()) + _stored_note(results))
    for v in verdicts:
        if "error" in v.evidence:
            err.print(f"[yellow]{v.id}[/]: {v.evidence['error']}", highlight=False)
    _exit_on(failing, [v.verdict for v in verdicts])


def _stored_note(results: list) -> str:
    cached = sum(r.cached for r in results)
    return f"; {cached} from the result store (--fresh recomputes)" if cached else ""


def seed_spread(claim_id: str, results: list) -> dict:
    """One claim over several noise seeds: verdict counts, the most common verdict and the
    share of seeds that gave it (agreement), the refutation rate and the statistic's range."""
    runs = [r for r in results if r.verdict.id == claim_id]
    counts = Counter(r.verdict.verdict for r in runs)
    top, top_count = counts.most_common(1)[0]
    stats = sorted(r.verdict.statistic for r in runs if r.verdict.statistic is not None)
    return {"id": claim_id, "verdict": top, "agreement": top_count / len(runs),
            "refutation_rate": counts.get("refuted", 0) / len(runs),
            "counts": {k: counts.get(k, 0) for k in VERDICT_COLOURS},
            "statistic": ({"min": stats[0], "median": stats[len(stats) // 2], "max": stats[-1]}
                          if stats else None),
            "runs": [{**r.verdict.as_json(), "cached": r.cached} for r in runs]}


def _show_seed_spread(target: str, profile: str, noise: list[int], instance_seed: int,
                      claims: list, results: list, json_: bool) -> None:
    """verify --seeds N: per claim, verdict counts and agreement over the noise seeds."""
    rows = [seed_spread(c.id, results) for c in claims]
    if json_:
        emit_json({"profile": profile, "seeds": noise, "instance_seed": instance_seed,
                   "claims": rows})
        return
    t = Table(title=f"verify {target} over {len(noise)} noise seeds {noise[0]}–{noise[-1]} "
                    f"(instance seed {instance_seed} fixed, profile {profile})")
    for col in ("claim", "verdict", "agreement", "refuted", "c/r/i/d", "statistic min – max"):
        t.add_column(col, no_wrap=col in ("claim", "verdict"))
    for row in rows:
        stat = row["statistic"]
        t.add_row(row["id"], f"[{VERDICT_COLOURS[row['verdict']]}]{row['verdict']}[/]",
                  f"{row['agreement']:.0%}", f"{row['refutation_rate']:.0%}",
                  "/".join(str(row["counts"][k]) for k in VERDICT_COLOURS),
                  f"{g(stat['min'])} – {g(stat['max'])}" if stat else "—")
    out.print(t)
    out.print("agreement: share of the seeds giving the verdict shown; refuted: share refuted; "
              "c/r/i/d: confirmed/refuted/inconclusive/diverged counts")
    note = _stored_note(results)
    if note:
        out.print(note.lstrip("; "))


@app.command()
@guarded
def report(profile: ProfileOpt = "quick", backend: BackendOpt = "serial", seed: SeedOpt = 0,
           out_dir: Annotated[Path, typer.Option("--out", help="output folder")] = Path("reports"),
           paper: Annotated[list[str] | None, typer.Option("--paper", help="only these papers")] = None,
           instance_seed: InstanceSeedOpt = 0, store: StoreOpt = None, fresh: FreshOpt = False,
           scheduler: SchedulerOpt = None, workers: WorkersOpt = None,
           readme: Annotated[Path | None, typer.Option(
               "--readme", metavar="PATH",
               help="rewrite the results block (between <!-- results:begin --> and "
                    "<!-- results:end -->) of this README from the new verdicts; default: the "
                    "checkout's README.md when --out is its reports/ folder")] = None,
           no_readme: Annotated[bool, typer.Option(
               "--no-readme", help="leave every README alone")] = False,
           json_: JsonOpt = False) -> None:
    """Run every claim and write reports/index.html, <paper>.md/.html and one SVG per claim.
    Verdicts and complexity derivations already in the store are reused unless --fresh; the
    written files hold results only (no times), so an unchanged result leaves them as they
    were. A report into a checkout's reports/ also rewrites the README's results block (see
    --readme, --no-readme)."""
    from fedbounds import registry
    from fedbounds.verify import catalog

    from .report import readme_target, write_report
    from .store import store_path

    _check_run_options(profile, backend, scheduler, seed, instance_seed, workers=workers)
    for p in paper or []:
        if p not in registry.papers():
            raise BadInput("--paper", f"unknown paper {p!r}; allowed: {', '.join(registry.papers())}")
    if readme is not None and no_readme:
        raise BadInput("--no-readme", "cannot be combined with --readme")
    if readme is not None:
        readme_target(out_dir, readme)  # a README without the markers: refused before running
    n = sum(1 for c in catalog.claims().values() if not paper or c.paper in paper)
    prog, step = _progress(n, "report")
    with prog:
        summary = write_report(out_dir, profile, backend, seed, paper, step,
                               instance_seed=instance_seed, store=store_path(store), fresh=fresh,
                               scheduler=scheduler, readme=False if no_readme else readme,
                               workers=workers)
    if json_:
        emit_json({"out": str(out_dir), **summary})
        return
    counts = Counter(c["verdict"] for c in summary["claims"])
    cached = sum(c["cached"] for c in summary["claims"])
    out.print(f"wrote {out_dir}/index.html ({len(summary['claims'])} claims: "
              + ", ".join(f"{k} {v}" for k, v in counts.items())
              + (f"; {cached} from the result store" if cached else "") + ")")
    if summary.get("readme"):
        out.print(f"{'updated' if summary['readme_changed'] else 'unchanged'}: the results "
                  f"block of {summary['readme']}")


@app.command()
@guarded
def counterexample(theorem_id: Annotated[str, typer.Argument(metavar="ID")],
                   more: MoreOpt = None,
                   case: Annotated[str, typer.Option("--case", help="I or II")] = "",
                   set_: SetOpt = None,
                   rounds: Annotated[int, typer.Option("--rounds", help="communication rounds")] = 50,
                   decay: Annotated[str | None, typer.Option(
                       "--decay", help="step decay, e.g. 'sqrt' (η/√(r+1)); default constant")] = None,
                   variant: Annotated[str | None, typer.Option(
                       "--variant", help="Case I: proof (default) or literal")] = None,
                   max_work: MaxWorkOpt = None,
                   json_: JsonOpt = False) -> None:
    """A theorem's counterexample (e.g. FedDRO Theorem 4.1's FedAvg non-convergence): x̄ per round."""
    from fedbounds.verify import catalog

    table = catalog.counterexamples()
    if theorem_id not in table:
        raise BadInput("ID", f"{theorem_id!r} has no counterexample; allowed: "
                       f"{', '.join(sorted(table)) or '(none)'}")
    ce = table[theorem_id]
    if case not in ce.cases:
        raise BadInput("--case", f"{case!r}: allowed {' or '.join(ce.cases)}")
    _positive(rounds, "--rounds")
    cap = _max_work(max_work)
    values = ce.values(assignments(set_, more))
    options = {}
    for name, given in (("decay", decay), ("variant", variant)):
        if name not in ce.options:
            if given is not None:
                raise BadInput(f"--{name}", f"{theorem_id} takes no --{name}")
            continue
        p = ce.options[name]
        options[name] = p.check(name, p.default if given is None else given, f"--{name}")
    ce.check_work(values, rounds, cap)
    doc = ce.run(case, values, rounds, **options)
    if json_:
        emit_json(doc)
        return
    shown_values = ", ".join(f"{k}={v}" if isinstance(v, int) else f"{k}={v:g}"
                             for k, v in values.items())
    out.print(f"{ce.description}, case {case}, {shown_values}")
    t = Table()
    for col in ("round", "x̄"):
        t.add_column(col)
    traj = doc["trajectory"]
    shown = list(range(min(6, len(traj)))) + [len(traj) - 1]
    for r in sorted(set(shown)):
        t.add_row(str(r), f"{traj[r]:.12g}")
    out.print(t)
    if doc.get("diverged"):
        err.print(f"[magenta]diverged[/] at round {doc.get('diverged_at')}: "
                  f"{doc.get('reason')}; x̄ above is the last finite round", highlight=False)
    out.print(f"fixed point {g(doc.get('fixed_point'))}; ‖∇Φ‖² at the last round "
              f"{g(doc.get('grad_sq_final'))} (paper's lower bound {g(doc.get('lower_bound'))})")


def _instance_type(alg: Algorithm) -> type:
    """The type of instance ALGORITHM runs on: that of its first declared problem's default."""
    from fedbounds.verify import catalog

    return type(catalog.problems()[alg.problems[0]].make({}, 0))


def _split(alg, prob, values: dict) -> tuple[dict, dict]:
    """--set values for the problem (none for a problem file) and for the algorithm; an
    unknown name is an error. Values stay exact: each is checked against its declaration."""
    known = prob.params if prob is not None else {}
    pparams = {k: v for k, v in values.items() if k in known}
    aparams = {k: v for k, v in values.items() if k in alg.params and k not in known}
    unknown = sorted(set(values) - set(pparams) - set(aparams))
    if unknown:
        allowed = sorted(set(known) | set(alg.params))
        where = prob.name if prob is not None else "a problem file"
        raise BadInput(f"--set {unknown[0]}", f"unknown parameter {unknown[0]!r} for {alg.name} "
                       f"on {where}; allowed: {', '.join(allowed)}")
    return pparams, aparams


def _positive(value: int, argument: str) -> int:
    if value < 1:
        raise BadInput(argument, f"must be a positive integer, got {value}")
    return value


def _run_unit(alg: Algorithm, prob, values: dict, rounds: int, seeds: int, seed: int,
              iterates: bool = False, max_work: float = DEFAULT_MAX_WORK,
              instance_seed: int = 0) -> dict:
    """The run document of ALGORITHM on the instance of ``prob`` built from ``instance_seed``,
    its noise drawn from ``seed`` (both recorded in the document)."""
    if prob.name not in alg.problems:
        raise BadInput("--problem", f"{alg.name} does not run on {prob.name}; allowed: "
                       f"{', '.join(alg.problems)}")
    pparams, aparams = _split(alg, prob, values)
    alg.config(aparams)  # the algorithm's values are refused before the instance is built
    instance = build_instance(prob, pparams, instance_seed, max_work=max_work)
    return {**run_document(alg, prob.name, instance, aparams, rounds, seeds, seed,
                           iterates=iterates, max_work=max_work),
            "seed": seed, "instance_seed": instance_seed}
