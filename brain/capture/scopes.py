"""Who a memory is about, and so where it applies: the person (scope "user", recalled in every project) or the
project it was said in ("project", the default). "global" (true everywhere) is only ever chosen by a person.

A statement is about the person when it says so ("in every project", "in all my repos") or when it is about how to
work with them (how to answer them, their language, tone, commit style, their name or role) and names nothing of
the project at hand ("this repo", "here", "we", "our"). Tool and value choices ("use port 8090", "I prefer ruff")
stay with the project: wrongly making them follow the person into every other project costs more than a person's
preference that has to be said twice. Stdlib only.
"""
import re

USER, PROJECT = "user", "project"  # the values of metadata.scope (brain/store/lifecycle.SCOPES) capture chooses

_EVERY_PROJECT = re.compile(
    r"\b(?:in|for|across|on)\s+(?:every|all|any|each|other)\s+(?:(?:of\s+)?(?:my|our|the)\s+)?(?:other\s+)?"
    r"(?:projects?|repos?|repositories|codebases?)\b|\bwhatever (?:the )?(?:project|repo)\b|"
    r"\bno matter (?:which|what) (?:project|repo)\b|\bwherever (?:i|we) work\b"
)
_THIS_PROJECT = re.compile(
    r"\b(?:this|the current|that)\s+(?:project|repo|repository|codebase|app|service|package|module|crate|file|"
    r"branch|folder|directory)\b|\bhere\b|\bour\b|\bwe\b|\bus\b"
)
_HOW_TO_WORK_WITH_ME = re.compile(
    r"\b(?:answer|reply|respond|talk|speak|write|explain|address|call|ask|tell|show|remind|walk)\b[^.;]*\bme\b|"
    r"\bmy name\b|\bi(?:'m| am) (?:a|an)\s+\w+|\bmy (?:time ?zone|role|job|background|native language|level)\b|"
    r"\b(?:british|american|australian|canadian) (?:english|spelling)\b|"
    r"\b(?:answers?|replies|responses|explanations?|summaries|tone|emojis?|jargon|verbose|verbosity|concise|"
    r"terse|wordy|long-winded|small talk|pleasantries)\b|"
    r"\bcommit (?:messages?|subjects?)\b|\b(?:small|focused|atomic) commits\b"
)


def scope_of(text: str) -> str:
    """"user" when `text` is about the person rather than this project (see the module doc), else "project"."""
    body = " ".join(str(text).lower().replace("\u2019", "'").split())
    if _EVERY_PROJECT.search(body):
        return USER
    if _HOW_TO_WORK_WITH_ME.search(body) and not _THIS_PROJECT.search(body):
        return USER
    return PROJECT
