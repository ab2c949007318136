"""git, as sync uses it: rlm-mem's own bare repository in <root>/sync, never a work tree.

Git never writes into the memory folder itself: commits are made with `git fast-import` from bytes sync has read
and checked (brain/sync/tracked.py), and what a pull brings is read with `git cat-file` and written by rlm-mem
through its own writers. So no merge of git's ever runs and no conflict marker can exist.

Every git process dies with the process that started it (a killed sync leaves no git behind to race the next
one), never asks on a terminal when run in the background, and is given a time limit for the network. The
remote's URL is git's to keep (its config of this repository); credentials are git's business: a URL that
carries a password or a token is refused before anything stores it (`check_url`).
"""
import os
import shutil
import signal
import subprocess
import sys
from urllib.parse import urlsplit

from brain.safety.redact import redact
from brain.util.errors import RlmMemError
from brain.util.fasthash import sha1
from brain.util.lifetime import die_with

BRANCH = "main"
REMOTE_REF = f"refs/remotes/origin/{BRANCH}"
DEFAULT_NETWORK_TIMEOUT = 120.0  # seconds a fetch or push may take (RLM_MEM_SYNC_TIMEOUT)
LOCAL_TIMEOUT = 600  # a git command that does not touch the network (a first commit of 100,000 files included)
# A transfer slower than this many bytes a second for this many seconds is given up by git itself (over HTTP), and
# ssh gives up a connection whose server stops answering: no helper process hangs on a dead network.
LOW_SPEED = ("1000", "30")
SSH_KEEPALIVE = "-o ServerAliveInterval=15 -o ServerAliveCountMax=4"
IDENTITY = "rlm-mem <sync@rlm-mem.invalid>"


class SyncError(RlmMemError):
    """A sync that could not be done; the message is one line saying why and what is left as it was."""


class GitFailed(SyncError):
    """A git command that failed: `stderr` is git's own words."""

    def __init__(self, message: str, stderr: str = ""):
        super().__init__(message)
        self.stderr = stderr


def blob_id(data: bytes) -> str:
    """The id git gives a blob of these bytes (what `git hash-object` prints)."""
    return sha1(b"blob %d\0" % len(data) + data).hexdigest()


def check_url(url: str) -> str:
    """The URL, stripped; SyncError when it carries a password or a token (git's credential helper or SSH keys
    keep those, never a file of rlm-mem's) or is not something git can reach."""
    url = (url or "").strip()
    if not url or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise SyncError("give the remote as a URL or path git can reach (https://host/you/memory.git, "
                        "git@host:you/memory.git or /path/to/memory.git)")
    if "://" in url:
        parts = urlsplit(url)
        if parts.password is not None or (parts.username and redact(parts.username) != parts.username):
            raise SyncError("the remote URL carries a password or token; rlm-mem does not store credentials: give "
                            "the URL without it and let git's credential helper or SSH keep it "
                            f"({parts.scheme}://{parts.hostname or ''}{parts.path})")
    if redact(url) != url:
        raise SyncError("the remote URL holds something that looks like a secret; give it without (git's credential "
                        "helper or SSH keeps credentials)")
    return url


def network_timeout() -> float:
    """Seconds a network step may take: RLM_MEM_SYNC_TIMEOUT, read when a sync asks (a bad value stops the sync,
    which says so, and nothing else: not the capture worker, not doctor)."""
    text = os.environ.get("RLM_MEM_SYNC_TIMEOUT", "").strip()
    if not text:
        return DEFAULT_NETWORK_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise SyncError(f"RLM_MEM_SYNC_TIMEOUT must be a number of seconds above 0, not {redact(text)[:40]!r}")
    return value


def local_path(url: str) -> str | None:
    """The absolute path a remote given as a path on this machine names (`../memory.git`, `~/m.git`, `file://...`),
    or None for a URL of another kind (https, ssh, `host:path`). Git would read a relative one from inside the
    sync repository; the person meant it from where they stand."""
    if "://" in url:
        return urlsplit(url).path if url.startswith("file://") else None
    head, colon, _ = url.partition(":")
    if colon and "/" not in head:
        return None  # scp-like: host:path
    return os.path.abspath(os.path.expanduser(url))


def tracks(work_tree: str, path: str) -> bool:
    """Whether the git repository whose work tree is `work_tree` tracks any file at or below `path`."""
    try:
        done = subprocess.run(["git", "-C", work_tree, "ls-files", "-z", "--cached", "--", path],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=LOCAL_TIMEOUT,
                              env=_environment(False))
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and bool(done.stdout)


def _environment(background: bool) -> dict:
    env = dict(os.environ)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE",
                 "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CEILING_DIRECTORIES"):
        env.pop(name, None)  # a hook or a shell may have set them for another repository
    env.setdefault("GIT_HTTP_LOW_SPEED_LIMIT", LOW_SPEED[0])
    env.setdefault("GIT_HTTP_LOW_SPEED_TIME", LOW_SPEED[1])
    if background:
        # Nobody to answer: git and ssh must fail rather than wait for a password or a host key. Git runs in a
        # session of its own (no terminal to ask on) with nothing on stdin, and is told not to ask anyway; the
        # person's ssh command, credential helper and keys are theirs and stay as they are.
        env.update(GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="", SSH_ASKPASS_REQUIRE="never")
    env.update(LC_ALL="C")  # git's messages are read for their words (a refused push)
    return env


def _descendants(pid: int) -> list:
    """The processes below `pid` (Linux's /proc; none elsewhere): git's helpers, which its death does not take."""
    children: dict = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    parent = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def _kill_all(process, own_session: bool) -> None:
    """Kill a git process and every helper it started (git remote-https, ssh...)."""
    if own_session:
        try:
            os.killpg(process.pid, signal.SIGKILL)
            return
        except OSError:
            pass
    for pid in [*_descendants(process.pid), process.pid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _dying_with_caller() -> tuple:
    """(argv prefix, preexec_fn) that make a git process die with the process that started it (Linux's
    PR_SET_PDEATHSIG): util-linux's `setpriv --pdeathsig` when there is one (a preexec function would make Python
    fork the whole process, ~45 ms a command for a sync holding 10,000 memories), else the function."""
    if not sys.platform.startswith("linux"):
        return (), None
    setpriv = shutil.which("setpriv")
    if setpriv:
        return (setpriv, "--pdeathsig", "KILL", "--"), None
    parent = os.getpid()
    return (), lambda: die_with(parent)


class Repository:
    """The bare repository at `path` (created by `init`)."""

    def __init__(self, path, *, background: bool = False, carried=lambda path: True, max_blob: int | None = None):
        self.path = os.fspath(path)
        self.carried, self.max_blob, self.background = carried, max_blob, background
        self.too_big: dict = {}  # blob id -> size of those `blobs` refused to read
        self.env = _environment(background)
        self._network_env = None
        self.prefix, self.preexec = _dying_with_caller()
        self._url = None
        self._listings: dict = {}  # commit -> its listing (a commit never changes)
        self._foreign: dict = {}  # commit -> the paths its listing leaves out

    # ------------------------------------------------------------ running git
    def _argv(self, args) -> list:
        hooks = os.path.join(self.path, "no-hooks")  # never the person's global hooks on rlm-mem's own pushes
        return [*self.prefix, "git", f"--git-dir={self.path}", "-c", f"core.hooksPath={hooks}", "-c",
                "core.quotePath=false", *args]

    def run(self, *args, input: bytes | None = None, timeout: float = LOCAL_TIMEOUT, check: bool = True,
            what: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
        """Run git; GitFailed (with git's telling line) when it fails and `check`. Git and the helpers it starts
        are killed together when it runs out of time or the caller is interrupted (in the background they run in
        a session of their own, which goes whole)."""
        try:
            process = subprocess.Popen(self._argv(args), stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env or self.env,
                                       cwd=self.path, preexec_fn=self.preexec, start_new_session=self.background)
        except FileNotFoundError:
            raise SyncError("git is not installed (sync runs git: install it and try again)") from None
        try:
            out, err = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_all(process, self.background)
            process.communicate()
            raise GitFailed(f"{what or 'git ' + args[0]} did not finish within {timeout:.0f} s", "timed out") \
                from None
        except BaseException:
            _kill_all(process, self.background)
            process.wait()
            raise
        done = subprocess.CompletedProcess(args, process.returncode, out, err)
        if check and done.returncode != 0:
            stderr = done.stderr.decode("utf-8", errors="replace")
            raise GitFailed(f"{what or 'git ' + args[0]} failed: {telling_line(stderr)}", stderr)
        return done

    # ------------------------------------------------------------ the repository
    def exists(self) -> bool:
        return os.path.isfile(os.path.join(self.path, "HEAD"))

    def init(self) -> None:
        """A bare repository whose files only the owner may read (memories are personal)."""
        os.makedirs(self.path, mode=0o700, exist_ok=True)
        self.run("init", "--quiet", "--bare", "--shared=0600", self.path)
        self.run("symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
        self.run("config", "gc.autoDetach", "false")  # no git left running after a sync returns

    def remove_leftovers(self) -> list:
        """What a killed git left behind (the caller holds the sync lock, and every git of an earlier sync died with
        it): lock files, without which every later command would fail on them, and the temporary packs and objects
        of a write that never finished (a killed fast-import's tmp_pack_*), which nothing else removes."""
        removed = []
        for folder, _, names in os.walk(self.path):
            in_objects = os.path.relpath(folder, self.path).split(os.sep)[0] == "objects"
            for name in names:
                if (name.startswith("tmp_") if in_objects else name.endswith(".lock")):
                    try:
                        os.unlink(os.path.join(folder, name))
                        removed.append(name)
                    except OSError:
                        pass
        return removed

    def housekeeping(self) -> None:
        """git's own upkeep when git says it is time (`gc --auto`: loose objects packed, packs merged; a few
        milliseconds when there is nothing to do). Not detached (`init` sets gc.autoDetach off): no git outlives
        the sync that started it."""
        self.run("gc", "--auto", "--quiet", check=False)

    def remote_url(self) -> str | None:
        if self._url is None:
            done = self.run("config", "--get", "remote.origin.url", check=False)
            self._url = done.stdout.decode("utf-8", errors="replace").strip() if done.returncode == 0 else ""
        return self._url or None

    def set_remote(self, url: str) -> None:
        self.run("config", "remote.origin.url", check_url(url))
        self._url = None

    def unset_remote(self) -> None:
        self.run("config", "--unset", "remote.origin.url", check=False)
        self._url = None

    def resolve(self, ref: str) -> str | None:
        done = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        return done.stdout.decode().strip() or None if done.returncode == 0 else None

    def set_ref(self, ref: str, commit: str) -> None:
        self.run("update-ref", ref, commit)

    def merge_base(self, first: str, second: str) -> str | None:
        done = self.run("merge-base", first, second, check=False)
        return done.stdout.decode().strip() or None if done.returncode == 0 else None

    def is_ancestor(self, older: str, newer: str) -> bool:
        return self.run("merge-base", "--is-ancestor", older, newer, check=False).returncode == 0

    def listing(self, commit: str | None) -> dict:
        """path -> blob id of every file of a commit's tree that `carried(path)` accepts ({} for None). Anything
        else (a path rlm-mem does not know, a link, a submodule, a file name that is not UTF-8) is `foreign`."""
        if commit is None:
            return {}
        if commit in self._listings:
            return dict(self._listings[commit])
        out, foreign = {}, []
        for entry in self.run("ls-tree", "-r", "-z", "--full-tree", commit).stdout.split(b"\0"):
            if not entry:
                continue
            meta, _, raw = entry.partition(b"\t")
            mode, _, oid = meta.split(b" ")
            path = raw.decode("utf-8", errors="surrogateescape")
            if mode in (b"100644", b"100755") and self.carried(path):
                out[path] = oid.decode()
            else:
                foreign.append(path)
        self._listings[commit], self._foreign[commit] = dict(out), foreign
        return out

    def foreign(self, commit: str | None) -> list:
        """The paths of a commit's tree that `listing` leaves out."""
        if commit is None:
            return []
        self.listing(commit)
        return list(self._foreign.get(commit, ()))

    def remember_listing(self, commit: str, tree: dict) -> None:
        """The listing of a commit just made from `tree` (saves asking git for it again)."""
        self._listings[commit], self._foreign[commit] = dict(tree), []

    def sizes(self, oids) -> dict:
        """blob id -> size of those the repository holds (one `git cat-file --batch-check`)."""
        oids = list(dict.fromkeys(oids))
        if not oids:
            return {}
        out = {}
        listed = self.run("cat-file", "--batch-check", input="".join(f"{o}\n" for o in oids).encode()).stdout
        for line in listed.decode().splitlines():
            oid, _, rest = line.partition(" ")
            kind, _, size = rest.partition(" ")
            if kind == "blob" and size.isdigit():
                out[oid] = int(size)
        return out

    def blobs(self, oids) -> dict:
        """blob id -> bytes, read in one `git cat-file --batch`; a blob over `max_blob` bytes is not read (its id
        goes into `too_big`), nor one the repository lacks."""
        oids = list(dict.fromkeys(oids))
        if self.max_blob is not None:
            sizes = self.sizes(oids)
            self.too_big.update({o: n for o, n in sizes.items() if n > self.max_blob})
            oids = [o for o in oids if o in sizes and sizes[o] <= self.max_blob]
        if not oids:
            return {}
        out, raw = {}, self.run("cat-file", "--batch", input="".join(f"{o}\n" for o in oids).encode()).stdout
        at = 0
        for oid in oids:
            end = raw.index(b"\n", at)
            header = raw[at:end].split(b" ")
            at = end + 1
            if len(header) < 3:  # "<oid> missing"
                continue
            size = int(header[2])
            out[oid] = raw[at:at + size]
            at += size + 1
        return out

    def present(self, oids) -> set:
        """Which of these blobs the repository holds."""
        return set(self.sizes(oids))

    def count(self, revisions: str) -> int:
        done = self.run("rev-list", "--count", revisions, check=False)
        return int(done.stdout.decode().strip() or 0) if done.returncode == 0 else 0

    def commit(self, *, parents: list, changes: dict, message: str, when: int) -> str:
        """A commit of the first parent's tree changed by `changes` (path -> bytes, a blob id to reuse, or None to
        remove), with these parents, made by fast-import and put on refs/heads/main. Returns its id."""
        ref = f"refs/heads/{BRANCH}"
        head = [f"reset {ref}", f"commit {ref}", f"committer {IDENTITY} {int(when)} +0000"]
        body = message.encode("utf-8")
        parts = ["\n".join(head).encode() + b"\n" + b"data %d\n" % len(body) + body + b"\n"]
        for i, parent in enumerate(parents):
            parts.append(f"{'from' if i == 0 else 'merge'} {parent}\n".encode())
        for path, value in sorted(changes.items()):
            quoted = _quoted(path)
            if value is None:
                parts.append(b"D " + quoted + b"\n")
            elif isinstance(value, str):
                parts.append(b"M 100644 " + value.encode() + b" " + quoted + b"\n")
            else:
                parts.append(b"M 100644 inline " + quoted + b"\n" + b"data %d\n" % len(value) + value + b"\n")
        parts.append(b"\ndone\n")
        self.run("fast-import", "--quiet", "--done", "--force", input=b"".join(parts), what="writing the commit")
        return self.resolve(ref)

    # ------------------------------------------------------------ the network
    def network_env(self) -> dict:
        """The environment of a command that reaches the remote: when the person has no ssh command of their own
        (GIT_SSH_COMMAND, GIT_SSH, core.sshCommand), plain ssh with keep-alives (and batch mode in the
        background); theirs is never replaced."""
        if self._network_env is None:
            env = dict(self.env)
            own = env.get("GIT_SSH_COMMAND") or env.get("GIT_SSH") or self.run(
                "config", "--get", "core.sshCommand", check=False).stdout.strip()
            if not own:
                env["GIT_SSH_COMMAND"] = f"ssh {SSH_KEEPALIVE}" + (" -o BatchMode=yes" if self.background else "")
            self._network_env = env
        return self._network_env

    def remote_head(self) -> tuple:
        """(the remote's main commit or None, whether the remote has any ref at all)."""
        done = self.run("ls-remote", "origin", timeout=network_timeout(), check=False, what="reaching the remote",
                        env=self.network_env())
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", errors="replace")
            raise GitFailed(f"cannot reach the remote: {telling_line(stderr)}", stderr)
        head, refs = None, 0
        for line in done.stdout.decode("utf-8", errors="replace").splitlines():
            oid, _, name = line.partition("\t")
            refs += 1
            if name == f"refs/heads/{BRANCH}":
                head = oid
        return head, refs > 0

    def fetch(self) -> None:
        self.run("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "origin",
                 f"+refs/heads/{BRANCH}:{REMOTE_REF}", timeout=network_timeout(), what="fetching from the remote",
                 env=self.network_env())

    def push(self, commit: str) -> bool:
        """Push `commit` as the remote's main: True, or False when the remote moved on since it was fetched (a
        push another machine made meanwhile); GitFailed for anything else."""
        done = self.run("push", "--quiet", "--porcelain", "origin", f"{commit}:refs/heads/{BRANCH}",
                        timeout=network_timeout(), check=False, what="pushing to the remote", env=self.network_env())
        if done.returncode == 0:
            self.set_ref(REMOTE_REF, commit)
            return True
        said = (done.stdout + done.stderr).decode("utf-8", errors="replace")
        if any(words in said for words in MOVED_ON):
            return False
        raise GitFailed(f"the remote refused the push ({_refusal(said)})", said)


# What git says when the remote's branch moved between our fetch and our push (another machine pushed first; on a
# local or ssh remote the two pushes may also meet at the ref's lock): fetch, merge and push again.
MOVED_ON = ("(fetch first)", "(non-fast-forward)", "cannot lock ref", "but expected")


def _refusal(said: str) -> str:
    """Why a push was refused, in the remote's words: the rejection's reason and the server's first message."""
    reason, server = None, None
    for line in said.splitlines():
        line = line.strip()
        if "rejected]" in line and "(" in line:
            reason = reason or line[line.index("(") + 1:].rstrip(")")
        elif line.startswith("remote: ") and line[8:].strip():
            server = server or line[8:].strip()
    found = "; ".join(p for p in (reason, server) if p) or telling_line(said)
    return redact(found)[:200]


def _quoted(path: str) -> bytes:
    """A path as fast-import reads it (C-style quoted when it needs to be; a name that is not UTF-8 as its bytes)."""
    raw = path.encode("utf-8", errors="surrogateescape")
    if not any(c in raw for c in b'"\\\n') and not raw.startswith(b'"'):
        return raw
    return b'"' + raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n") + b'"'


def telling_line(stderr: str) -> str:
    """git's most telling line: its first `fatal:` or `error:` line (git explains the failure there and adds
    advice after it), else its last non-empty one; without the prefix, redacted and short."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    line = next((x for x in lines if x.startswith(("fatal: ", "error: "))), lines[-1] if lines else "no message")
    for prefix in ("fatal: ", "error: ", "remote: "):
        if line.startswith(prefix):
            line = line[len(prefix):]
    return redact(line)[:200]
