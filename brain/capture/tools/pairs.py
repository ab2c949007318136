"""The value pairs one turn's tool calls changed, by the edit and command rules (edits, options, packages,
commands): what currency.session_changes takes besides what was said.
"""
from brain.capture.tools.commands import command_changes
from brain.capture.tools.edits import edit_changes, edited_number, said_as
from brain.capture.tools.options import argument_changes, config_changes, flag_changes
from brain.capture.tools.packages import manifest_changes
from brain.capture.tool_calls import EDIT_TOOLS


def tool_changes(turn, asked) -> list:
    """(old, new) pairs of the values `turn`'s tool calls changed: edits (`asked`: the values the person asked
    for that no earlier turn stated, see edited_number) and commands."""
    changes = []
    for use in turn.tool_uses:
        if use.name in EDIT_TOOLS and use.ok is not False and use.edit:
            pairs = edit_changes(*use.edit) or edited_number(*use.edit, asked)
            pairs += manifest_changes(use.file_path, *use.edit)
            pairs += [pair for pair in config_changes(use.file_path, *use.edit) if pair not in pairs]
            pairs += [pair for pair in argument_changes(*use.edit) if pair not in pairs]
            pairs += [pair for pair in flag_changes(*use.edit) if pair not in pairs]
            pairs += [said for pair in pairs for said in said_as(turn.text or "", pair)]
            changes += pairs
        elif use.name == "Bash" and use.ok is not False and use.command:
            changes += command_changes(use.command)
    return changes
