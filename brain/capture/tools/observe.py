"""Which settings each tool call of a session set or showed, in order (Observation).

- A Write sets every key of the file's text; with the text before it known (the session's, or Claude Code's
  originalFile), only the keys it changed or added, each with the value it replaced.
- An Edit or MultiEdit applied to a known text is read as a Write of the text after it. Of a file the session
  never saw, its fragments are read: a key whose value the new fragment gives differently than the old one (or
  that only the new one gives), under the parents the fragment shows (latest.Known.resolve completes a key the
  fragment cut short: `maxReplicas` of `autoscaling.maxReplicas`).
- `sed -i 's/old/new/' FILE` is an edit of FILE's fragments.
- A whole-file Read shows each key's value: the value a later edit replaces, and a change only when the same file
  had another value before (a command or a person changed it since). So do the lines `cat`, `grep -n`, `head`,
  `tail` or `sed -n` printed of one file (shown.py).
- A NotebookEdit's cell sets the names it assigns a literal (`LR = 3e-4`).
- An install or upgrade command's output sets `PACKAGE version` (with the version it replaced when the output
  says it), a version command `TOOL version` (`node -v`, also on a server or in a container; of a command line
  of several, the tools its output names on one line each), and the other tools its output names with a full
  version (flutter's "Dart 3.4.3").
- A file people configure replaced by another in its folder sets the folder's `file` (its path: the new file's,
  was the old one's): `git mv` or `mv` of it, or one deleted (`git rm`, `rm`) in the session that
  wrote exactly one new file of its kind there. The new file's keys then continue the old file's: a key both
  set to other values is a change (`image: postgres:15` in ci.yml, `image: postgres:16` in the test.yml that
  replaced it).
A value the redactor would hide (a token in a .env) is no setting anyone looks up: it is left out.
"""
import os
import re
from collections import namedtuple

from brain.capture.settings.formats import format_of, read_settings, replaced_in
from brain.capture.settings.code import read_assignments
from brain.capture.settings.lines import written_line
from brain.capture.tools.commands import (asks_version, file_moves, other_versions, removed_files, sed_edits,
                                         tool_version, versions_asked)
from brain.capture.tools.files import FileTexts
from brain.capture.tools.packages import installed_versions, installs
from brain.capture.tools.shown import shown_file
from brain.safety.redact import redact

# path: the file, relative to the project root ("" for a command's output); old: the value the call replaced
# when the transcript shows it (None: the latest known value says); shown: a Read's; command: the command whose
# output said it; line: the line setting it, as the file writes it (`maxReplicas: 8`), when one short line does;
# replaces: the file this new one replaced, whose value of the key it continues; call: the tool call's place in
# its turn (several calls, and commits between them, make one turn)
Observation = namedtuple("Observation", "turn path key value old shown command line replaces call",
                         defaults=(None, None, None))


def project_path(path: str, root) -> str:
    """`path` relative to the project's root when it lies inside it ("charts/api/values.yaml")."""
    if not path:
        return ""
    path = path.replace("\\", "/")
    if root and os.path.isabs(path):
        try:
            relative = os.path.relpath(path, root).replace(os.sep, "/")
        except ValueError:  # another drive
            return path
        if not relative.startswith("../") and relative != "..":
            return relative
    return path[2:] if path.startswith("./") else path


def _differences(turn, path: str, before: dict | None, text: str) -> list:
    """Observations of the keys `text` sets that `before` (None: not known) did not set to the same value; a new
    text's old values are those it says it replaces (a migration's `from: 15`). A key the text moved under new
    parents (`pool.vmImage` become `stages[Build].jobs[build].pool.vmImage`) replaced the one it no longer sets."""
    before_values = before if before is not None else replaced_in(path, text)
    after = read_settings(path, text)
    gone = [key for key in before or () if key not in after]  # (each claimed once: by the first key moved there)
    return [Observation(turn, path, key, value, before_values.get(key, _moved(key, gone, before_values)), False, None,
                        written_line(text, key, value))
            for key, value in after.items() if before is None or before.get(key) != value]


def _moved(key: str, gone: list, values: dict):
    """The value of the one key no longer set whose path `key` ends with (or that ends with `key`), or None."""
    found = [old for old in gone if key.endswith("." + old) or old.endswith("." + key)]
    if len(found) != 1:
        return None
    gone.remove(found[0])
    return values.get(found[0])


def _from_fragments(turn, path: str, edits) -> list:
    out = []
    for old_text, new_text, _ in edits:
        out += _differences(turn, path, read_settings(path, old_text), new_text)
    return out


def _from_file(turn, use, path: str, texts: FileTexts) -> list:
    before = texts.before(path, use)
    after = texts.after(path, use)
    if use.name == "Read":
        if after is None:
            return []
        # a migration a command wrote says what it replaced (EF Core's oldType)
        return _shown(turn, path, after, replaced_in(path, after))
    if after is not None and (before is not None or use.name == "Write"):
        return _differences(turn, path, read_settings(path, before) if before is not None else None, after)
    return _from_fragments(turn, path, use.edits)


def _shown(turn, path: str, text: str, stated: dict) -> list:
    """Observations of each key `text` shows of `path` (a Read's, or a command's output), with the value `stated`
    says it replaced."""
    return [Observation(turn, path, key, value, stated.get(key), True, None, written_line(text, key, value))
            for key, value in read_settings(path, text).items()]


def _from_command(turn, use, root) -> list:
    out = []
    for file, old, new in sed_edits(use.command):
        if format_of(file):
            out += _from_fragments(turn, project_path(file, root), [(old, new, False)])
    printed = shown_file(use.command, use.result)
    if printed and format_of(printed[0]):  # what `cat` or `grep -n` printed of a file: as a Read shows it
        out += _shown(turn, project_path(printed[0], root), printed[1], {})
    # (a result is redacted when first read: read it only for a command whose output says something)
    shown = tool_version(use.command, use.result) if asks_version(use.command) else None
    asked = [shown] + other_versions(use.result, shown[0]) if shown else versions_asked(use.command, use.result)
    for tool, version in asked:
        out.append(Observation(turn, "", f"{tool} version", version, None, False, use.command,
                               output_line(use.result, tool, version)))
    installed = installed_versions(use.command, use.result) if installs(use.command) else {}
    # a CocoaPod is a library for an app, never the command of the same name (the Firebase pod, `firebase` the CLI)
    kind = "pod " if _POD_COMMAND.search(use.command) else ""
    for package, (old, new) in installed.items():
        out.append(Observation(turn, "", f"{kind}{package} version", new, old, False, use.command,
                               output_line(use.result, package, new)
                               or output_line(use.result, package.replace("-", "_"), new)))  # FW_VERSION
    return out


_POD_COMMAND = re.compile(r"(?:^|[;&|(]\s*)pod\s+(?:install|update)\b")


def output_line(output: str, name: str, version: str):
    """The output's line that names the tool or package and its version, as printed ("Terraform v1.7.5",
    "+ boto3==1.34.84"): the memory quotes the words a person saw; else a line holding the version alone
    (`node -v`'s "v20.12.2"). None when no line holds both within OUTPUT_LINE_CHARS, nor the version alone."""
    lowered, alone = name.lower(), None
    for line in reversed((output or "").splitlines()[:400]):
        line = line.strip()
        if line.lstrip("vV") == version:
            alone = alone or line  # the version alone, as `node -v` prints it ("v20.12.2"): when no line names it
        if version in line and lowered in line.lower():
            if len(line) <= OUTPUT_LINE_CHARS:
                return line
            # a long line (NuGet's "info : PackageReference for package 'X' version '1.2' updated in file ..."):
            # its words from the name to the version, and the quote closing it
            start = line.lower().find(lowered)
            end = line.find(version, start) + len(version)
            end += end < len(line) and line[end] in "'\")]"
            if 0 <= start < end and end - start <= OUTPUT_LINE_CHARS:
                return line[start:end]
    return alone


OUTPUT_LINE_CHARS = 80


def _secret(observation) -> bool:
    written = f"{observation.key}={observation.value}"
    return redact(written) != written


def observe_session(turns, root=None) -> list:
    """Observations of the settings `turns` set or showed, in order (see the module doc). `root`: the project's
    folder, which the paths are made relative to."""
    texts, out, written, removed = FileTexts(), [], [], []
    for turn in turns:
        if turn.is_sidechain or turn.is_compact_summary or turn.abandoned:
            continue
        for call, use in enumerate(turn.tool_uses):
            if use.ok is False:
                continue
            before = len(out)
            if use.name == "Write" and use.file_path and format_of(use.file_path):
                written.append(project_path(use.file_path, root))
            if use.name == "Bash" and use.command:
                out += _from_command(turn, use, root)
                for old, new in file_moves(use.command):  # (a moved file is no new one)
                    out += _replaced(turn, use, project_path(old, root), project_path(new, root))
                removed += [(turn, use, call, project_path(path, root)) for path in removed_files(use.command)]
            elif use.name == "NotebookEdit" and use.cell and use.cell[2] != "delete":
                path = project_path(use.file_path, root)
                out += [Observation(turn, path, key, value, None, False, None, written_line(use.cell[1], key, value))
                        for key, value in read_assignments(use.cell[1]).items()]
            elif use.file_path and format_of(use.file_path):
                out += _from_file(turn, use, project_path(use.file_path, root), texts)
            out[before:] = [o._replace(call=call) for o in out[before:]]
    for turn, use, call, path in removed:
        folder, kind = os.path.dirname(path), format_of(path)
        kin = {w for w in written if w != path and os.path.dirname(w) == folder and format_of(w) == kind}
        if kind and len(kin) == 1 and path not in written:
            new = kin.pop()
            out = [o._replace(replaces=path) if o.path == new and o.old is None and not o.shown else o for o in out]
            out += [o._replace(call=call) for o in _replaced(turn, use, path, new)]
    return [observation for observation in out if not _secret(observation)]


def _replaced(turn, use, old: str, new: str) -> list:
    """The folder's `file` set to `new`'s name, replacing `old`'s, when both are files people configure there."""
    if os.path.dirname(old) != os.path.dirname(new) or not format_of(old) or format_of(old) != format_of(new) \
            or old == new:
        return []
    return [Observation(turn, os.path.dirname(new), "file", new, old, False, use.command, None)]
