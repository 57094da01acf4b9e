# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/lib/jobs.sh, the one runner of jobs side by side, and the three scripts on it: tests/stages.sh (make test's
lanes: each lane a session of its own at its niceness, the targets of a lane in turn up to the first failure, every
lane's result reported, a TERM stops every lane), tests/local/run-all.sh and tests/molecule/run-all.sh (two slots,
longest scenarios first, what an interrupted run left removed, check_recap.py on each log). Each runs on a copy of
the scripts in a throw-away tree, with fake jobs: make targets, a shell function, stand-ins of podman and molecule."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Each target prints what the lane's processes run as: session, niceness, autogroup (absent on some kernels).
_MAKEFILE = """\
define show
@echo "== $@ sid=$$(ps -o sid= -p $$$$ | tr -d ' ') nice=$$(ps -o ni= -p $$$$ | tr -d ' ') \\
ag=$$(sed -n 's/.* nice //p' /proc/$$$$/autogroup 2>/dev/null)"
endef
first:
\t$(show)
second:
\t$(show)
broken:
\t@echo "the end of a failed stage"; false
after_broken:
\t$(show)
slow1 slow2:
\t@echo $$$$ > $@.pid; sleep 60
"""


def _copy(tree, *paths):
    """The checkout's files at the same paths in the throw-away tree."""
    for path in paths:
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(os.path.join(_ROOT, path), tree / path)


def _write(path, text, executable=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if executable:
        path.chmod(0o755)


@pytest.fixture()
def tree(tmp_path):
    _copy(tmp_path, "tests/stages.sh", "tests/lib/jobs.sh")
    _write(tmp_path / "Makefile", _MAKEFILE)
    return tmp_path


def _env(**extra):
    """The environment, outside any job of tests/lib/jobs.sh (make test runs this suite as one)."""
    env = dict(os.environ, **extra)
    env.pop("JOBS_SESSION", None)
    return env


def _run(tree, *lanes, timeout=60):
    return subprocess.run(["bash", str(tree / "tests" / "stages.sh"), *lanes], capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=tree, env=_env())


def _shown(out):
    """{target: (sid, nice, autogroup nice or '')} from the targets' own lines."""
    return {m.group(1): (m.group(2), m.group(3), m.group(4))
            for m in re.finditer(r"== (\w+) sid=(\d+) nice=(-?\d+) ag=(-?\d*)", out)}


def test_each_lane_is_a_session_of_its_own_at_its_niceness(tree):
    run = _run(tree, "first", "nice=7 second")
    assert run.returncode == 0, run.stdout + run.stderr
    shown = _shown(run.stdout)
    assert set(shown) == {"first", "second"}, run.stdout
    assert shown["first"][0] != shown["second"][0]  # two sessions
    assert shown["first"][0] != str(os.getsid(0))  # neither is the caller's
    assert (shown["first"][1], shown["second"][1]) == ("0", "7")
    if os.path.exists("/proc/self/autogroup"):  # the session's share of the CPU carries the niceness too
        assert (shown["first"][2], shown["second"][2]) == ("0", "7")
    assert "== stage first: passed" in run.stdout and "== stage second: passed" in run.stdout


def test_a_lane_stops_at_its_first_failure_and_the_others_run_on(tree):
    run = _run(tree, "broken after_broken", "nice=3 first second")
    assert run.returncode == 1
    out = run.stdout
    assert "== stage broken: FAILED" in out and "the end of a failed stage" in out
    assert "after_broken" not in _shown(out)  # the failed lane went no further
    assert set(_shown(out)) == {"first", "second"}  # the other lane ran to its end
    assert (tree / ".build" / "stages" / "broken.log").read_text(encoding="utf-8").startswith("the end of a failed")


def _wait_for(predicate, seconds):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _gone(pid):
    """No such process, or only its zombie (its parent has not reaped it yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _term_once_started(args, pid_files, **popen):
    """Start args, TERM it once each pid file names a process: it must exit 130. The pids named."""
    with subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **popen) as proc:
        assert _wait_for(lambda: all(f.exists() and f.read_text(encoding="utf-8").strip() for f in pid_files), 30)
        pids = [int(f.read_text(encoding="utf-8")) for f in pid_files]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 130
    return pids


def test_term_stops_every_lane(tree):
    sleepers = _term_once_started(["bash", str(tree / "tests" / "stages.sh"), "slow1", "nice=5 slow2"],
                                  [tree / "slow1.pid", tree / "slow2.pid"], cwd=tree, env=_env())
    # each lane's make and the shell of its recipe end with their session
    assert _wait_for(lambda: all(_gone(pid) for pid in sleepers), 10), "a lane outlived the TERM"


# ---------------------------------------------------------------- tests/lib/jobs.sh with a shell function as the job
# runner.sh LANE...: each LANE "[nice=N] job NAME..." a lane of tests/lib/jobs.sh under LOGS, at most SLOTS at once.
# What `job NAME` does comes from its name; EVENTS gets "start NAME" and "end NAME".
_RUNNER = """\
set -uo pipefail
. "$TREE/tests/lib/jobs.sh"
jobs_init "$LOGS" fake "${SLOTS:-0}"
job() {
  echo "start $1" >>"$EVENTS"
  touch "$TREE/$1.begun"
  case $1 in
    pass*) # PASS_AFTER=NAME: a pass job ends only once NAME has begun (its slot taken is then in EVENTS too)
      [ -z "${PASS_AFTER:-}" ] || for _ in $(seq 300); do [ -e "$TREE/$PASS_AFTER.begun" ] && break; sleep 0.1; done
      echo "== $1: a step"; echo "not a step line" ;;
    fail*) echo "the end of $1"; echo "end $1" >>"$EVENTS"; return 3 ;;
    show*) echo "== $1 sid=$(ps -o sid= -p $BASHPID | tr -d ' ') nice=$(ps -o ni= -p $BASHPID | tr -d ' ') \\
ag=$(sed -n 's/.* nice //p' /proc/$BASHPID/autogroup 2>/dev/null) log=$JOB_LOG" ;;
    burn*) python3 -c 'import time
while time.process_time() < 1.5:
    pass' ;;
    nested*) job show_outer; LOGS=$LOGS/inner bash "$TREE/runner.sh" "job show_inner" "nice=9 job show_inner9" ;;
    wait_for_*) for _ in $(seq 300); do [ -e "$TREE/${1#wait_for_}.started" ] && break; sleep 0.1; done ;;
    sleep*) trap "touch '$TREE/$1.cleaned'" EXIT; echo $BASHPID >"$TREE/$1.pid"; sleep 60 ;;
  esac
  touch "$TREE/$1.started"
  echo "end $1" >>"$EVENTS"
}
export -f job
for lane in "$@"; do
  # shellcheck disable=SC2086
  jobs_lane $lane
done
jobs_wait
"""


@pytest.fixture()
def runner(tmp_path):
    _copy(tmp_path, "tests/lib/jobs.sh")
    _write(tmp_path / "runner.sh", _RUNNER)
    return tmp_path


def _runner_env(tree, slots=0):
    return _env(TREE=str(tree), LOGS=str(tree / "logs"), EVENTS=str(tree / "events"), SLOTS=str(slots))


def _jobs(tree, *lanes, slots=0, timeout=120, prefix=(), env=None):
    return subprocess.run([*prefix, "bash", str(tree / "runner.sh"), *lanes], capture_output=True, text=True,
                          timeout=timeout, check=False, cwd=tree, env=dict(_runner_env(tree, slots), **(env or {})))


def _events(tree):
    return (tree / "events").read_text(encoding="utf-8").split("\n")[:-1]


_RESULT = re.compile(r"^== fake (\w+): (passed|FAILED) \((\d+) s, (\d+) core-s outside containers\)(.*)$", re.M)


def test_a_job_that_passes_and_one_that_fails_each_a_result_line(runner):
    run = _jobs(runner, "job pass1", "job fail1", "job fail2 pass2")
    assert run.returncode == 1, run.stdout + run.stderr
    results = {m.group(1): (m.group(2), m.group(5)) for m in _RESULT.finditer(run.stdout)}
    logs = runner / "logs"
    assert results == {"pass1": ("passed", ""), "fail1": ("FAILED", f", the end of {logs}/fail1.log:"),
                       "fail2": ("FAILED", f", the end of {logs}/fail2.log:")}, run.stdout
    # a passed job's "== " lines under its result, a failed one's log's end under its own
    assert "== fake pass1: passed" in run.stdout and "\n   == pass1: a step\n" in run.stdout
    assert "not a step line" not in run.stdout
    assert f"{logs}/fail1.log:\nthe end of fail1\n" in run.stdout
    assert "pass2" not in _events(runner)  # the lane stopped at its failure
    assert (logs / "pass1.log").read_text(encoding="utf-8") == "== pass1: a step\nnot a step line\n"
    assert sorted(p.name for p in logs.iterdir()) == ["fail1.log", "fail2.log", "pass1.log"]  # nothing else left


def test_the_result_line_counts_the_cpu_of_the_jobs_own_processes(runner):
    run = _jobs(runner, "job burn pass")
    assert run.returncode == 0, run.stdout + run.stderr
    cpu = {m.group(1): int(m.group(4)) for m in _RESULT.finditer(run.stdout)}
    assert cpu["burn"] >= 1 and cpu["pass"] == 0, run.stdout  # 1.5 s of CPU, counted for its job alone


def test_a_lane_runs_at_its_niceness_in_a_session_of_its_own_or_the_callers_niceness(runner):
    run = _jobs(runner, "nice=6 job show_niced", "job show_plain", prefix=("nice", "-n", "2"))
    assert run.returncode == 0, run.stdout + run.stderr
    shown = _shown(run.stdout)
    assert shown["show_niced"][0] != shown["show_plain"][0] != str(os.getsid(0))
    assert (shown["show_niced"][1], shown["show_plain"][1]) == ("6", str(min(os.nice(0) + 2, 19)))
    if os.path.exists("/proc/self/autogroup"):  # the session's share of the CPU at the lane's niceness, or the caller's
        with open("/proc/self/autogroup", encoding="utf-8") as fh:
            caller = fh.read().rsplit(" ", 1)[1].strip()
        assert (shown["show_niced"][2], shown["show_plain"][2]) == ("6", caller)
    assert f"log={runner}/logs/show_niced.log" in run.stdout  # JOB_LOG: the job's own log


def test_lanes_started_inside_a_job_share_its_session_and_its_share_of_the_cpu(runner):
    run = _jobs(runner, "nice=4 job nested")
    assert run.returncode == 0, run.stdout + run.stderr
    shown = _shown((runner / "logs" / "nested.log").read_text(encoding="utf-8"))
    for inner in ("show_inner", "show_inner9"):
        shown.update(_shown((runner / "logs" / "inner" / f"{inner}.log").read_text(encoding="utf-8")))
    assert shown["show_outer"][0] == shown["show_inner"][0] == shown["show_inner9"][0]  # one session
    assert (shown["show_outer"][1], shown["show_inner"][1], shown["show_inner9"][1]) == ("4", "4", "9")
    if os.path.exists("/proc/self/autogroup"):  # the inner nice=9 reniced its processes, not the outer session
        assert (shown["show_outer"][2], shown["show_inner"][2], shown["show_inner9"][2]) == ("4", "4", "4")
    # the inner runner's result lines are the outer job's steps
    assert "\n   == fake show_inner: passed (" in run.stdout and "\n   == fake show_inner9: passed (" in run.stdout


def test_slots_start_the_lanes_in_the_order_given_as_slots_free_up(runner):
    # wait_for_pass3 ends once pass3 started: pass3 must get pass2's slot while wait_for_pass3 holds the other.
    # pass2 ends only once wait_for_pass3 has begun: on a loaded machine wait_for_pass3's first line ran after pass2
    # and pass3 had ended, and the events showed one job at a time although both slots were taken.
    run = _jobs(runner, "job wait_for_pass3", "job pass2", "job pass3", "job pass4", slots=2,
                env={"PASS_AFTER": "wait_for_pass3"})
    assert run.returncode == 0, run.stdout + run.stderr
    events = _events(runner)
    running, most = 0, 0
    for event in events:
        running += 1 if event.startswith("start") else -1
        most = max(most, running)
    assert most == 2, events
    starts = [e.split()[1] for e in events if e.startswith("start")]
    assert set(starts[:2]) == {"wait_for_pass3", "pass2"} and starts[2:] == ["pass3", "pass4"], events
    assert events.index("end pass2") < events.index("start pass3"), events
    one = _jobs(runner, "job pass5", "job pass6", "job pass7", slots=1)
    assert one.returncode == 0 and _events(runner)[-6:] == [
        "start pass5", "end pass5", "start pass6", "end pass6", "start pass7", "end pass7"]
    # each lane's lines when it ended: pass2's before wait_for_pass3's, given first
    printed = [m.group(1) for m in _RESULT.finditer(run.stdout)]
    assert printed.index("pass2") < printed.index("wait_for_pass3"), run.stdout


def test_term_stops_every_job_and_lets_it_clean_up(runner):
    jobs = _term_once_started(["bash", str(runner / "runner.sh"), "job sleep1", "nice=3 job sleep2"],
                              [runner / "sleep1.pid", runner / "sleep2.pid"], cwd=runner, env=_runner_env(runner))
    assert _wait_for(lambda: all(_gone(pid) for pid in jobs), 10), "a job outlived the TERM"
    assert _wait_for(lambda: all((runner / f"sleep{i}.cleaned").exists() for i in (1, 2)), 30)  # their EXIT traps
    assert not list((runner / "logs").glob(".lanes.*"))


# ---------------------------------------------------------------- tests/local/run-all.sh
def test_local_runs_every_local_test_and_reports_each(tmp_path):
    _copy(tmp_path, "tests/lib/jobs.sh", "tests/local/run-all.sh")
    _write(tmp_path / "tests/local/alpha/run.sh", "#!/bin/sh\necho '== alpha: a step'\n", executable=True)
    _write(tmp_path / "tests/local/beta/run.sh", "#!/bin/sh\necho 'beta broke'\nexit 1\n", executable=True)
    run = subprocess.run(["bash", str(tmp_path / "tests/local/run-all.sh")], capture_output=True, text=True,
                         timeout=60, check=False, env=_env())
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(r"^== local test alpha: passed \(\d+ s, \d+ core-s outside containers\)\n   == alpha: a step$",
                     run.stdout, re.M), run.stdout
    assert "== local test beta: FAILED (" in run.stdout
    assert f"the end of {tmp_path}/.build/local/beta.log:\nbeta broke\n" in run.stdout


# ---------------------------------------------------------------- tests/molecule/run-all.sh
# Stand-ins: podman lists the containers in $FAKE/containers and records `rm`; molecule records its start and end,
# fails when its state folder was left from before, prints a check step whose recap shows changed=1 for a scenario
# named broken*, and, for slurm, waits until gpu started (so gpu must take fabric's slot).
_PODMAN = """#!/bin/sh
case $1 in
  ps) cat "$FAKE/containers" 2>/dev/null ;;
  rm) shift; echo "rm $*" >>"$FAKE/podman.calls" ;;
esac
"""
_MOLECULE = """#!/bin/sh
s=$3
echo "start $s" >>"$FAKE/events"
[ ! -e "$MOLECULE_EPHEMERAL_DIRECTORY" ] || { echo "the state of an earlier run is left"; exit 1; }
[ "$PWD" = "$FAKE" ] || { echo "run from $PWD, not the checkout"; exit 1; }
[ "$s" != slurm ] || for _ in $(seq 300); do [ -e "$FAKE/gpu.started" ] && break; sleep 0.1; done
[ "$s" != gpu ] || touch "$FAKE/gpu.started"
changed=0; case $s in broken*) changed=1 ;; esac
printf 'INFO     check: Executing\\nPLAY RECAP\\ngpu01 : ok=3 changed=%s unreachable=0 failed=0\\n' $changed
echo "INFO     verify: Executing"
echo "end $s" >>"$FAKE/events"
"""


@pytest.fixture()
def molecule_tree(tmp_path):
    _copy(tmp_path, "tests/lib/jobs.sh", "tests/molecule/run-all.sh", "tests/molecule/check_recap.py")
    _write(tmp_path / "lab" / "lab.py", "import sys\nsys.exit(0 if sys.argv[1:] == ['ssh-key'] else 1)\n")
    _write(tmp_path / "bin" / "podman", _PODMAN, executable=True)
    _write(tmp_path / "bin" / "molecule", _MOLECULE, executable=True)
    return tmp_path


def _molecule(tree, *scenarios, **env):
    return subprocess.run(["bash", str(tree / "tests/molecule/run-all.sh"), *scenarios], capture_output=True,
                          text=True, timeout=120, check=False,
                          env=_env(PATH=f"{tree / 'bin'}:{os.environ['PATH']}", FAKE=str(tree), **env))


def test_molecule_runs_two_at_a_time_longest_first(molecule_tree):
    (molecule_tree / "containers").write_text("molecule-slurm-gpu01\nmolecule-fabric-gpu01\nlab-head\n",
                                              encoding="utf-8")
    state = molecule_tree / ".build/molecule/state/slurm"
    state.mkdir(parents=True)
    run = _molecule(molecule_tree, "extra", "gpu", "fabric", "slurm")
    assert run.returncode == 0, run.stdout + run.stderr
    events = _events(molecule_tree)
    starts = [e.split()[1] for e in events if e.startswith("start")]
    assert set(starts[:2]) == {"slurm", "fabric"} and starts[2:] == ["gpu", "extra"], events
    assert events.index("end fabric") < events.index("start gpu") < events.index("end slurm"), events
    for s in ("slurm", "fabric", "gpu", "extra"):
        assert re.search(rf"^== molecule scenario {s}: passed \(\d+ s, \d+ core-s outside containers\)$",
                         run.stdout, re.M), run.stdout
        log = (molecule_tree / f".build/molecule/{s}.log").read_text(encoding="utf-8")
        assert log.endswith("check_recap: 1 host recaps in the check step, all changed=0\n"), log
    # what an interrupted run left: the scenario's own containers (one podman rm each), its state folder
    assert sorted((molecule_tree / "podman.calls").read_text(encoding="utf-8").splitlines()) == [
        "rm -f -t 2 molecule-fabric-gpu01", "rm -f -t 2 molecule-slurm-gpu01"]


def test_molecule_one_at_a_time_and_a_change_in_check_mode_fails(molecule_tree):
    (molecule_tree / "gpu.started").touch()
    run = _molecule(molecule_tree, "broken", "slurm", MOLECULE_JOBS="1")
    assert run.returncode == 1, run.stdout + run.stderr
    assert _events(molecule_tree) == ["start slurm", "end slurm", "start broken", "end broken"]
    assert "== molecule scenario slurm: passed (" in run.stdout
    log = molecule_tree / ".build/molecule/broken.log"
    assert re.search(rf"^== molecule scenario broken: FAILED \(\d+ s, \d+ core-s outside containers\), the end of "
                     rf"{re.escape(str(log))}:$", run.stdout, re.M), run.stdout
    assert run.stdout.rstrip().endswith("check_recap: check mode on the converged gpu01: changed=1 failed=0 "
                                        "unreachable=0 (a converged node must show nothing to change)")
