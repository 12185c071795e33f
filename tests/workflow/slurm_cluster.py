"""A real single-node SLURM cluster for tests (see /work/shared/cluster/SLURM-LOCAL.md and docs/CLUSTER.md).

``SlurmCluster.start()`` uses a cluster that already answers ``sinfo`` as it is. Otherwise (root and apt-get
needed) it installs Debian's SLURM and munge when they are missing, writes /etc/slurm/slurm.conf for this host
(state, spool and logs in its own directory), and starts munged (unless one already answers), slurmctld and slurmd
in the foreground as child processes. ``stop()`` cancels the jobs on a cluster it started, stops exactly the daemons
it started, by their PIDs, and removes the slurm.conf it wrote; it never touches anything else.

The configuration has to be at the default path: the slurm executor plugin removes SLURM_* variables (SLURM_CONF
too) from the environment of the `srun` it runs inside each job. A slurm.conf that this module did not write is
never overwritten (the test is skipped instead).
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from apt_lock import apt_install

PACKAGES = ["slurm-wlm", "slurmctld", "slurmd", "munge", "slurm-client"]
DAEMONS = {name: f"/usr/sbin/{name}" for name in ("munged", "slurmctld", "slurmd")}
PARTITION = "main"
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")
MARKER = "# Written by tests/slurm_cluster.py"

SLURM_CONF = MARKER + """ for a throw-away single-node test cluster (removed when it stops).
ClusterName=pytest
SlurmctldHost={host}
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# finished jobs stay visible to squeue for 10 minutes (the workflow profile queries job states with squeue)
MinJobAge=600
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
{node}
PartitionName={partition} Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


class ClusterUnavailable(Exception):
    """SLURM cannot be provided here (not root, no apt-get, install failed): the test should be skipped."""


def _run(cmd, timeout=60, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)


class SlurmCluster:
    def __init__(self, workdir: Path):
        self.dir = Path(workdir)
        self.env = dict(os.environ)  # environment for clients (sinfo, sbatch, snakemake)
        self.wrote_conf = False
        self.partition = PARTITION
        self.started: dict[str, subprocess.Popen] = {}  # daemon name -> the process this object started
        self.log: list[str] = []

    # --- state -------------------------------------------------------------------------------------------------
    def _sinfo_states(self, env=None, timeout=10):
        """Node states of the cluster that clients with ``env`` see, or None if sinfo fails."""
        if shutil.which("sinfo") is None:
            return None
        try:
            res = _run(["sinfo", "-h", "-N", "-o", "%N %T %P"], timeout=timeout, env=env or self.env)
        except subprocess.TimeoutExpired:
            return None
        if res.returncode != 0:
            return None
        return [line.split() for line in res.stdout.splitlines() if line.strip()]

    @staticmethod
    def _usable(states):
        return bool(states) and any(s[1].rstrip("*~#") in ("idle", "mixed", "allocated", "completing")
                                    for s in states if len(s) >= 2)

    def _munge_ok(self):
        if shutil.which("munge") is None or shutil.which("unmunge") is None:
            return False
        try:
            return subprocess.run("munge -n | unmunge", shell=True, capture_output=True, timeout=10).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    # --- install -----------------------------------------------------------------------------------------------
    @staticmethod
    def _installed() -> bool:
        return all(os.path.exists(p) for p in DAEMONS.values()) and bool(shutil.which("sbatch")) \
            and bool(shutil.which("sinfo"))

    def _install(self):
        if self._installed():
            return
        if os.geteuid() != 0:
            raise ClusterUnavailable("SLURM is not installed and installing it needs root")
        if shutil.which("apt-get") is None:
            raise ClusterUnavailable("SLURM is not installed and there is no apt-get to install it")
        try:
            runs = apt_install(PACKAGES, timeout=600, installed=self._installed)
        except subprocess.TimeoutExpired as err:
            raise ClusterUnavailable(f"{' '.join(err.cmd)} timed out")
        for cmd, res in runs:
            self.log.append(f"$ {' '.join(cmd)}\n{res.stdout[-2000:]}{res.stderr[-2000:]}")
            if res.returncode != 0:
                raise ClusterUnavailable(f"{' '.join(cmd)} failed: {res.stderr.strip()[-500:]}")

    # --- daemons -----------------------------------------------------------------------------------------------
    def _spawn(self, name, args, **kwargs):
        out = open(self.dir / f"{name}.out", "w")
        proc = subprocess.Popen([DAEMONS[name], *args], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, **kwargs)
        out.close()
        self.started[name] = proc
        return proc

    def _start_munge(self):
        if self._munge_ok():
            return  # a munged is running (not ours): use it
        if not os.path.exists("/etc/munge/munge.key"):
            if shutil.which("mungekey"):
                _run(["mungekey", "--create"], check=True)
            else:
                _run(["/usr/sbin/create-munge-key", "-f"], check=True)
            shutil.chown("/etc/munge/munge.key", "munge", "munge")
            os.chmod("/etc/munge/munge.key", 0o400)
        os.makedirs("/run/munge", exist_ok=True)
        shutil.chown("/run/munge", "munge", "munge")
        # munged refuses to run as root: run it as the munge user, in the foreground, so its PID is the child's.
        self._spawn("munged", ["--foreground"], user="munge", group="munge", extra_groups=[])
        self._wait(self._munge_ok, 20, "munged does not answer (munge -n | unmunge)")

    def _write_conf(self):
        host = socket.gethostname().split(".")[0]
        res = _run([DAEMONS["slurmd"], "-C"], check=True)
        node = next(line for line in res.stdout.splitlines() if line.startswith("NodeName="))
        fields = dict(f.split("=", 1) for f in node.split())
        fields["NodeName"] = host
        node = " ".join(f"{k}={v}" for k, v in fields.items()) + " State=UNKNOWN"
        for sub in ("state", "spool"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        if SYSTEM_CONF.exists() and MARKER not in SYSTEM_CONF.read_text(errors="replace"):
            raise ClusterUnavailable(f"{SYSTEM_CONF} exists (not written by this test) but no SLURM cluster answers "
                                     "sinfo: start that cluster, then run the test again")
        SYSTEM_CONF.parent.mkdir(parents=True, exist_ok=True)
        SYSTEM_CONF.write_text(SLURM_CONF.format(host=host, dir=self.dir, node=node, partition=self.partition))
        self.wrote_conf = True
        return SYSTEM_CONF

    def _wait(self, ok, seconds, message):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ok():
                return
            for name, proc in self.started.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited with {proc.returncode}:\n{self.diagnostics()}")
            time.sleep(0.5)
        raise RuntimeError(f"{message} after {seconds} s:\n{self.diagnostics()}")

    def start(self):
        """Provide a running cluster; raises ClusterUnavailable when that is impossible here."""
        existing = self._sinfo_states(env=dict(os.environ))
        if self._usable(existing):
            default = [s[2] for s in existing if len(s) >= 3 and s[2].endswith("*")]
            self.partition = (default[0] if default else existing[0][2]).rstrip("*")
            return self
        self._install()
        if os.geteuid() != 0:
            raise ClusterUnavailable("SLURM is not running and starting its daemons needs root")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.dir.chmod(0o755)
        conf = self._write_conf()
        self._start_munge()
        self._spawn("slurmctld", ["-D", "-i", "-f", str(conf)], env=self.env)
        self._spawn("slurmd", ["-D", "-f", str(conf)], env=self.env)
        self._wait(lambda: self._usable(self._sinfo_states()), 60, "the node is not idle (sinfo)")
        return self

    def stop(self):
        """Cancel the jobs of a cluster this object started, stop the daemons it started (by PID), remove its conf."""
        if "slurmctld" in self.started and self.started["slurmctld"].poll() is None:
            try:
                _run(["scancel", "--partition", self.partition], timeout=20, env=self.env)
            except (subprocess.TimeoutExpired, OSError):
                pass
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self.started.pop(name, None)
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self.wrote_conf and SYSTEM_CONF.exists() and MARKER in SYSTEM_CONF.read_text(errors="replace"):
            SYSTEM_CONF.unlink()
            self.wrote_conf = False

    def diagnostics(self):
        """Tail of the daemons' logs, for failure messages."""
        parts = list(self.log[-2:])
        for name in ("munged.out", "slurmctld.out", "slurmd.out", "slurmctld.log", "slurmd.log"):
            path = self.dir / name
            if path.exists():
                parts.append(f"--- {path}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-30:]))
        return "\n".join(parts)
