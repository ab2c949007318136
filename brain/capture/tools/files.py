"""The texts of the configuration files a session's tool calls show, as the session goes on.

A Write gives a file's whole text; a whole-file Read shows it; an Edit or MultiEdit applied to a known text gives
the text after it, and Claude Code's `originalFile` gives the text before an edit or a write. What is not
known stays unknown: an edit of a file the session never saw is read from its fragments alone.
"""


def apply_edits(text, edits):
    """`text` after an Edit's or MultiEdit's replacements (old, new, replace_all) in order, or None when one does
    not apply (its old text is not there: the file was not as the session knew it)."""
    if text is None or not edits:
        return None
    for old, new, replace_all in edits:
        if not old or old not in text:
            return None
        text = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    return text


class FileTexts:
    """path -> the text the session last knew a file to have."""

    def __init__(self):
        self._texts = {}

    def known(self, path: str):
        """The text the session's own calls last showed of `path`, or None."""
        return self._texts.get(path)

    def before(self, path: str, use):
        """The text of `path` before `use` ran: the session's, else Claude Code's originalFile."""
        known = self.known(path)
        return known if known is not None else use.original

    def after(self, path: str, use):
        """Record and return the text of `path` after `use` (None when it cannot be known)."""
        if use.name == "Write" or use.name == "Read":
            text = use.content
        elif use.name in ("Edit", "MultiEdit"):
            text = apply_edits(self.before(path, use), use.edits)
        else:
            text = None
        if text is None:
            self._texts.pop(path, None)
        else:
            self._texts[path] = text
        return text
