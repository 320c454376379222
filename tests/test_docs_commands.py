"""Every command the README and docs/ tell a user to type names a command and options that exist.

Walks the fenced `sh` blocks of README.md and docs/*.md; each line that starts with
`.venv/bin/python manage.py` is checked against the management command's own argparse parser
(its sub-command or first positional choice, every `--option`, and the value of an option with
fixed choices), and each `make TARGET` against the Makefile's targets. Placeholders (`RUN`, `N`,
`...`) and optional parts in brackets are the reader's to fill; everything spelled out is checked.
"""
from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MANAGE = ".venv/bin/python manage.py "


def sh_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, command) for each command in the file's ```sh blocks, continuations joined,
    comments dropped."""
    found, block, start, pending = [], False, 0, ""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip().startswith("```"):
            block = line.strip() == "```sh"
            continue
        if not block:
            continue
        text = re.sub(r"\s+#.*$", "", line).rstrip()
        if not pending:
            start = number
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        command, pending = (pending + text).strip(), ""
        if command:
            found.append((start, command))
    return found


def documented(prefix: str) -> list[tuple[str, str]]:
    return [(f"{path.relative_to(ROOT)}:{number}", command) for path in DOCS
            for number, command in sh_lines(path) if command.startswith(prefix)]


def words(command: str) -> list[str]:
    """The command's words with the reader's choices opened up: `[--a X | --b Y]` → --a X --b Y."""
    return shlex.split(re.sub(r"[\[\]|]", " ", command).replace("...", " ").replace("…", " "))


def parser_of(name: str) -> argparse.ArgumentParser:
    commands = get_commands()
    assert name in commands, f"no management command {name!r}"
    return load_command_class(commands[name], name).create_parser("manage.py", name)


def check_against(parser: argparse.ArgumentParser, args: list[str], where: str) -> None:
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    positionals = [a for a in parser._actions if not a.option_strings and a.choices and not subparsers]
    first = next((a for a in args if not a.startswith("-")), None)
    if subparsers:
        choices = subparsers[0].choices
        assert first in choices, f"{where}: {parser.prog} has no sub-command {first!r} (has {', '.join(choices)})"
        return check_against(choices[first], args[args.index(first) + 1:], where)
    if positionals and first is not None:
        assert first in positionals[0].choices, f"{where}: {parser.prog} takes {sorted(positionals[0].choices)}, " \
                                                f"not {first!r}"
    options = {s: a for a in parser._actions for s in a.option_strings}
    for i, arg in enumerate(args):
        if not arg.startswith("-") or arg == "-":
            continue
        name, _, value = arg.partition("=")
        assert name in options, f"{where}: {parser.prog} has no option {name} (has {', '.join(sorted(options))})"
        value = value or (args[i + 1] if i + 1 < len(args) else "")
        choices = options[name].choices
        if choices and value and value.islower() and not value.startswith("-"):
            assert value in choices, f"{where}: {parser.prog} {name} takes {sorted(choices)}, not {value!r}"


MANAGE_COMMANDS = documented(MANAGE)
MAKE_COMMANDS = documented("make ")


def test_the_docs_show_commands_to_check():
    """The walk finds the commands (so the checks below are not vacuous)."""
    assert len(MANAGE_COMMANDS) >= 20 and len(MAKE_COMMANDS) >= 3


@pytest.mark.parametrize("where,command", MANAGE_COMMANDS, ids=[w for w, _ in MANAGE_COMMANDS])
def test_manage_command_exists_with_its_options(where, command):
    name, *args = words(command[len(MANAGE):])
    check_against(parser_of(name), args, where)


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return {m.group(1) for m in re.finditer(r"^([a-z][\w-]*):", text, re.M)}


@pytest.mark.parametrize("where,command", MAKE_COMMANDS, ids=[w for w, _ in MAKE_COMMANDS])
def test_make_target_exists(where, command):
    targets = make_targets()
    for word in words(command)[1:]:
        if "=" not in word:  # VAR=value sets a variable; anything else is a target
            assert word in targets, f"{where}: the Makefile has no target {word!r}"


def test_the_checker_catches_a_wrong_command():
    """A misspelt option, an unknown sub-command and a bad choice each fail (the checks bite)."""
    for bad in ("bench engine --dayz 1", "scenario exprt 1912", "run_voyage --layout cache",
                "nosuchcommand --x"):
        name, *args = words(bad)
        with pytest.raises(AssertionError):
            check_against(parser_of(name), args, "test")
