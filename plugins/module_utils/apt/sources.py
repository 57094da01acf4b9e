# -*- coding: utf-8 -*-
# Copyright (c) 2026 gpufleet.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""APT sources: read a host's own source files, and plan the components it lacks.

Both formats of sources.list(5) are read the way apt 2.6 (Debian 12) reads them; each rule below
was checked with ``apt-get update --print-uris`` against a scratch configuration:

* one-line (``sources.list``, ``*.list``): ``type [options] uri suite [component...]``; a ``#``
  anywhere ends the line (``bookworm#x main`` is the suite ``bookworm`` and no component); the URI
  may be quoted (``"http://..."``) or bracketed (``cdrom:[Debian GNU/Linux ...]/``); options are
  ``key=value`` with comma-separated values.
* deb822 (``*.sources``): stanzas separated by empty lines; a line starting with ``#`` is a comment
  wherever it stands, but a ``#`` after a value is part of the value; a line starting with a space
  or tab continues the field before it (a whitespace-only line too, so it does NOT end a stanza);
  field names are case-insensitive and a repeated field replaces the earlier one; ``Enabled: no``
  (or false, 0, off...) switches a stanza off.
* a suite ending in ``/`` is a flat repository and takes no component; any other suite needs at
  least one. apt refuses either mistake for the whole list, and so does this parser.
* URIs compare without their trailing slash (``.../debian`` and ``.../debian/`` are one archive).
* for one (URI, suite), every entry must agree on the release options (Signed-By, Trusted,
  Check-Valid-Until, ...): apt stops with "Conflicting values set for option Signed-By" otherwise,
  even when one entry has the option and another has none. A new entry for an archive the host
  already uses must therefore repeat the host's Signed-By exactly; that is why this module exists.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ansible_collections.gpufleet.cluster.plugins.module_utils.common import input_rules
from ansible_collections.gpufleet.cluster.plugins.module_utils.common.refusals import must_be

TYPES = ("deb", "deb-src")

#: Options apt requires to be identical on every entry of one (URI, suite), one-line spelling.
RELEASE_OPTIONS = (
    "signed-by", "trusted", "check-valid-until", "check-date", "date-max-future",
    "valid-until-min", "valid-until-max", "inrelease-path", "allow-insecure", "allow-weak",
    "allow-downgrade-to-insecure",
)
#: How a deb822 stanza spells those options (and how this module writes them).
DEB822_NAMES = {
    "signed-by": "Signed-By", "trusted": "Trusted", "check-valid-until": "Check-Valid-Until",
    "check-date": "Check-Date", "date-max-future": "Date-Max-Future", "valid-until-min": "Valid-Until-Min",
    "valid-until-max": "Valid-Until-Max", "inrelease-path": "InRelease-Path", "allow-insecure": "Allow-Insecure",
    "allow-weak": "Allow-Weak", "allow-downgrade-to-insecure": "Allow-Downgrade-To-Insecure",
}
# deb822 fields whose one-line option has another name.
_DEB822_OPTION_ALIASES = {"architectures": "arch", "languages": "lang", "targets": "target"}
_DEB822_STRUCTURE = ("types", "uris", "suites", "components", "enabled")
# apt's StringToBool: these switch a stanza off; anything else leaves it on.
_FALSE_WORDS = ("no", "false", "without", "off", "disable", "0")


class AptSourcesError(ValueError):
    """A source file apt itself would refuse, or a plan that cannot be made."""


# What a value written into a deb822 stanza may hold (applied with fullmatch). deb822 splits the
# URIs, Suites and Components fields at blanks, and a line break would start a new field (or, with
# a leading blank, continue this one), so neither is ever allowed; '"' is dropped by apt's parser
# and '#' would make the value hard to read back, so they are refused too.
FIELD_RULES = {
    "uri": (re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[!$-~]+"),
            "a URI: a scheme (http, https, file, ...) and ':' then printable ASCII with no blank, '\"' or '#'"),
    "suite": (re.compile(r"[A-Za-z0-9._+~/-]+"),
              "a suite of letters, digits, '.', '_', '+', '~', '-' and '/' (e.g. bookworm-updates, or / for a "
              "flat repository)"),
    "component": (re.compile(r"[A-Za-z0-9][A-Za-z0-9._+/-]*"),
                  "a component of letters, digits, '.', '_', '+', '-' and '/', starting with a letter or digit "
                  "(e.g. non-free-firmware)"),
}


def check_field(kind: str, where: str, value: Any) -> str:
    """A URI, suite or component that a deb822 stanza can hold; AptSourcesError naming ``where`` otherwise."""
    pattern, allowed = FIELD_RULES[kind]
    if not isinstance(value, str):
        raise must_be(where, value, "a string (%s)" % allowed, AptSourcesError)
    if input_rules.CONTROL_RE.search(value):
        raise AptSourcesError("%s: %r is not allowed; expected %s (a line break would start a new deb822 field)"
                              % (where, value, allowed))
    if len(value) > 1024 or not pattern.fullmatch(value) or "#" in value:
        raise AptSourcesError("%s: %r is not allowed; expected %s" % (where, value, allowed))
    return value


def check_fields(kind: str, where: str, values: Sequence[Any]) -> List[str]:
    return [check_field(kind, "%s[%d]" % (where, index), value) for index, value in enumerate(values)]


@dataclass(frozen=True)
class AptSource:
    """One entry of a source file: a one-line entry, or a deb822 stanza."""

    path: str
    line: int
    format: str
    types: Tuple[str, ...]
    uris: Tuple[str, ...]
    suites: Tuple[str, ...]
    components: Tuple[str, ...]
    enabled: bool = True
    options: Tuple[Tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def where(self) -> str:
        return "%s:%d" % (self.path, self.line)

    def option(self, name: str) -> str:
        for key, value in self.options:
            if key == name:
                return value
        return ""

    def release_options(self) -> Dict[str, str]:
        return {key: value for key, value in self.options if key in RELEASE_OPTIONS}

    def as_dict(self) -> Dict[str, object]:
        return {
            "path": self.path, "line": self.line, "format": self.format, "types": list(self.types),
            "uris": list(self.uris), "suites": list(self.suites), "components": list(self.components),
            "enabled": self.enabled, "options": dict(self.options),
        }


def same_uri(uri: str) -> str:
    """The form two URIs are compared in: apt adds the trailing slash itself."""
    return uri.rstrip("/")


def _normalise_option(name: str, value: str) -> str:
    if name == "signed-by" and "BEGIN PGP" not in value:
        # apt joins a deb822 list with commas and compares the joined text, order included.
        return ",".join(part for part in value.replace(",", " ").split())
    if "BEGIN PGP" in value:
        return "\n".join(line.strip() for line in value.strip().splitlines())
    return value.strip()


def _check_suites(path: str, line: int, suites: Sequence[str], components: Sequence[str]) -> None:
    for suite in suites:
        if suite.endswith("/") and components:
            raise AptSourcesError(
                "%s:%d: the flat repository suite %r takes no component, got %s; apt refuses the whole source "
                "list ('absolute Suite Component'). Remove the components or the trailing slash."
                % (path, line, suite, " ".join(components)))
        if not suite.endswith("/") and not components:
            raise AptSourcesError(
                "%s:%d: the suite %r names no component; apt refuses the whole source list ('Component'). "
                "Add the components (main ...), or end the suite with '/' for a flat repository."
                % (path, line, suite))


# ------------------------------------------------------------------------------------- one-line
def _words(text: str, path: str, number: int) -> List[str]:
    """Split a one-line entry like apt's ParseQuoteWord: "..." and [...] keep their spaces."""
    words: List[str] = []
    index = 0
    while index < len(text):
        if text[index].isspace():
            index += 1
            continue
        start = index
        while index < len(text) and not text[index].isspace():
            closer = {'"': '"', "[": "]"}.get(text[index])
            if closer:
                end = text.find(closer, index + 1)
                if end < 0:
                    raise AptSourcesError(
                        "%s:%d: %r opens %r and never closes it; apt refuses the line. Close the quote or bracket."
                        % (path, number, text.strip(), text[index]))
                index = end
            index += 1
        words.append(text[start:index])
    return words


def _unquote(word: str) -> str:
    return word.replace('"', "")


def parse_one_line(text: str, path: str = "sources.list") -> List[AptSource]:
    """Entries of a one-line format file (``/etc/apt/sources.list``, ``*.list``)."""
    entries: List[AptSource] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        content = raw.split("#", 1)[0].strip()
        if not content:
            continue
        head, rest = (content.split(None, 1) + [""])[:2]
        if head not in TYPES:
            raise AptSourcesError(
                "%s:%d: the type %r is not one apt knows (deb, deb-src); apt refuses the whole source list. "
                "Fix or comment out the line: %r" % (path, number, head, raw.strip()))
        rest = rest.strip()
        options: List[Tuple[str, str]] = []
        if rest.startswith("["):
            end = rest.find("]")
            if end < 0:
                raise AptSourcesError(
                    "%s:%d: the options '[' are never closed with ']'; apt refuses the line %r."
                    % (path, number, raw.strip()))
            for item in rest[1:end].split():
                key, sep, value = item.partition("=")
                if not sep:
                    raise AptSourcesError(
                        "%s:%d: the option %r has no '=value'; apt refuses the line %r. Write it as key=value."
                        % (path, number, item, raw.strip()))
                key = key.rstrip("+-").lower()
                options.append((key, _normalise_option(key, value.replace(",", " ") if key == "signed-by" else value)))
            rest = rest[end + 1:]
        words = _words(rest, path, number)
        if len(words) < 2:
            raise AptSourcesError(
                "%s:%d: %r lacks a %s; apt refuses the whole source list ('Malformed entry'). "
                "Write: %s URI SUITE COMPONENT..." % (path, number, raw.strip(), "URI" if not words else "suite", head))
        uri, suite, components = _unquote(words[0]), _unquote(words[1]), tuple(_unquote(w) for w in words[2:])
        _check_suites(path, number, [suite], components)
        entries.append(AptSource(path, number, "one-line", (head,), (uri,), (suite,), components, True, tuple(options)))
    return entries


# ---------------------------------------------------------------------------------------- deb822
def _stanzas(text: str) -> Iterable[Tuple[int, List[Tuple[int, str]]]]:
    lines: List[Tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw == "" or raw == "\r":
            if lines:
                yield lines[0][0], lines
            lines = []
        elif not raw.startswith("#"):
            lines.append((number, raw.rstrip("\r")))
    if lines:
        yield lines[0][0], lines


def parse_deb822(text: str, path: str = "sources.sources") -> List[AptSource]:
    """Entries (stanzas) of a deb822 format file (``*.sources``)."""
    entries: List[AptSource] = []
    for first, lines in _stanzas(text):
        fields: Dict[str, List[str]] = {}
        current: Optional[str] = None
        for number, raw in lines:
            if raw[0] in " \t":
                if current is None:
                    raise AptSourcesError(
                        "%s:%d: a continuation line %r with no field before it; apt refuses the file. "
                        "Start the stanza with a 'Field: value' line." % (path, number, raw))
                fields[current].append(raw.strip())
                continue
            name, sep, value = raw.partition(":")
            if not sep or not name.strip():
                raise AptSourcesError(
                    "%s:%d: %r is not a 'Field: value' line; apt refuses the file. Fix the line or comment it out "
                    "with '#' at the start." % (path, number, raw))
            current = name.strip().lower()
            fields[current] = [value.strip()]
        values = {name: " ".join(part for part in parts if part).split() for name, parts in fields.items()}
        enabled = not (values.get("enabled") and values["enabled"][0].lower() in _FALSE_WORDS)
        types = tuple(values.get("types", ()))
        for kind in types:
            if kind not in TYPES:
                raise AptSourcesError(
                    "%s:%d: Types names %r, which apt does not know (deb, deb-src); apt refuses the whole "
                    "source list. Fix the stanza." % (path, first, kind))
        for needed in ("types", "uris", "suites"):
            if not values.get(needed):
                raise AptSourcesError(
                    "%s:%d: the stanza has no %s; apt refuses the whole source list ('Malformed entry'). "
                    "Every stanza needs Types, URIs, Suites (and Components unless the suite ends in '/')."
                    % (path, first, needed.capitalize() if needed != "uris" else "URIs"))
        components = tuple(values.get("components", ()))
        _check_suites(path, first, values["suites"], components)
        options: List[Tuple[str, str]] = []
        for name, parts in fields.items():
            if name in _DEB822_STRUCTURE:
                continue
            key = _DEB822_OPTION_ALIASES.get(name, name)
            raw_value = "\n".join(parts).strip()
            options.append((key, _normalise_option(key, raw_value)))
        entries.append(AptSource(path, first, "deb822", types, tuple(values["uris"]), tuple(values["suites"]),
                                 components, enabled, tuple(options)))
    return entries


def parse_file(path: str, text: str) -> List[AptSource]:
    """Entries of one source file, read in the format apt gives its name."""
    if path.endswith(".sources"):
        return parse_deb822(text, path)
    if path.endswith(".list"):
        return parse_one_line(text, path)
    raise AptSourcesError(
        "%s is neither a .list nor a .sources file, so apt does not read it; leave it out." % path)


def parse_files(files: Iterable[Tuple[str, str]]) -> List[AptSource]:
    """Entries of several files, in the order given (apt reads sources.list, then sources.list.d sorted)."""
    entries: List[AptSource] = []
    for path, text in files:
        entries.extend(parse_file(path, text))
    return entries


def serving(entries: Iterable[AptSource], uri: str) -> List[AptSource]:
    """The enabled binary entries that name ``uri`` (trailing slash ignored)."""
    wanted = same_uri(uri)
    return [e for e in entries if e.enabled and "deb" in e.types and any(same_uri(u) == wanted for u in e.uris)]


# -------------------------------------------------------------------------------------- planning
@dataclass
class Stanza:
    """A deb822 stanza to add: these suites of these URIs, with these components."""

    uris: List[str]
    suites: List[str]
    components: List[str]
    options: Dict[str, str]
    sources: List[str]

    def render(self) -> str:
        lines = ["Types: deb", "URIs: " + " ".join(self.uris), "Suites: " + " ".join(self.suites),
                 "Components: " + " ".join(self.components)]
        for key in RELEASE_OPTIONS:
            if key not in self.options:
                continue
            value = self.options[key]
            name = DEB822_NAMES[key]
            if "\n" in value:
                lines.append(name + ":")
                lines.extend(" " + (part if part else ".") for part in value.splitlines())
            elif key == "signed-by":
                lines.append("%s: %s" % (name, " ".join(value.split(","))))
            else:
                lines.append("%s: %s" % (name, value))
        return "\n".join(lines) + "\n"

    def as_dict(self) -> Dict[str, object]:
        return {"types": ["deb"], "uris": list(self.uris), "suites": list(self.suites),
                "components": list(self.components),
                "options": {DEB822_NAMES[k]: v for k, v in self.options.items()},
                "sources": list(self.sources), "deb822": self.render()}


def plan_components(entries: Sequence[AptSource], suites: Sequence[str], components: Sequence[str],
                    uris: Sequence[str] = (), exclude: Sequence[str] = ()) -> List[Stanza]:
    """The stanzas that give ``suites`` the ``components`` the host's own entries lack.

    Archives are those of the host's enabled binary entries (files in ``exclude`` left out, so a
    file written from this plan does not change the next plan); ``uris`` replaces them when the
    user names the archive. The first suite is the release: when no entry serves it and no URI is
    named, there is nothing to add components to, and that is an error. Suites the host does not
    use (a missing ``-updates``) are left alone. Each new entry repeats the release options of the
    host's entries for its (URI, suite); hosts whose entries disagree are refused, as apt refuses them.
    """
    if not suites:
        raise AptSourcesError("no suite given: name the release (bookworm) and the suites beside it")
    if not components:
        raise AptSourcesError("no component given: name the components to add (contrib non-free ...)")
    suites = check_fields("suite", "suites", suites)
    components = check_fields("component", "components", components)
    uris = check_fields("uri", "uris", uris)
    for index, suite in enumerate(suites):
        if suite.endswith("/"):
            raise AptSourcesError(
                "suites[%d]: %r is a flat repository suite (it ends in '/'), which takes no component; apt refuses "
                "the whole source list for a flat suite with components. Name the archive's suites (bookworm ...)."
                % (index, suite))
    own = [e for e in entries if e.enabled and "deb" in e.types and e.path not in exclude]
    # (uri, suite) pairs in the order the host lists them, with the URI as first written
    pairs: List[Tuple[str, str]] = []
    if uris:
        pairs = [(uri, suite) for suite in suites for uri in uris]
    else:
        for suite in suites:
            for entry in own:
                if suite in entry.suites:
                    for uri in entry.uris:
                        if all(same_uri(u) != same_uri(uri) or s != suite for u, s in pairs):
                            check_field("uri", "the URI of the host's entry %s" % entry.where, uri)
                            pairs.append((uri, suite))
        if not any(suite == suites[0] for _uri, suite in pairs):
            listed = sorted({s for e in own for s in e.suites})
            raise AptSourcesError(
                "no enabled 'deb' source of this host serves the release %r (its sources list the suites %s), "
                "so there is no archive to add %s to. Name the archive (a URI list) or add the release to the "
                "host's sources first." % (suites[0], ", ".join(listed) or "none", " ".join(components)))
    planned: List[Tuple[str, str, Tuple[str, ...], Tuple[Tuple[str, str], ...], List[str]]] = []
    for uri, suite in pairs:
        same = [e for e in own if suite in e.suites and any(same_uri(u) == same_uri(uri) for u in e.uris)]
        present = {c for e in same for c in e.components}
        missing = tuple(c for c in components if c not in present)
        if not missing:
            continue
        variants = {tuple(sorted(e.release_options().items())) for e in same}
        if len(variants) > 1:
            raise AptSourcesError(
                "the host's entries for %s %s disagree on their release options (%s); apt refuses such a list "
                "('Conflicting values set for option'). Make them agree first."
                % (uri, suite, "; ".join("%s: %s" % (e.where, e.release_options() or "none") for e in same)))
        options = variants.pop() if variants else ()
        planned.append((uri, suite, missing, options, [e.where for e in same]))
    # group suites that share a URI, components and options, then URIs that share all the rest
    by_uri: List[Tuple[str, List[str], Tuple[str, ...], Tuple[Tuple[str, str], ...], List[str]]] = []
    for uri, suite, missing, options, where in planned:
        for item in by_uri:
            if same_uri(item[0]) == same_uri(uri) and item[2] == missing and item[3] == options:
                item[1].append(suite)
                item[4].extend(w for w in where if w not in item[4])
                break
        else:
            by_uri.append((uri, [suite], missing, options, list(where)))
    stanzas: List[Stanza] = []
    for uri, suite_list, missing, options, where in by_uri:
        for stanza in stanzas:
            if stanza.suites == suite_list and tuple(stanza.components) == missing and \
                    tuple(sorted(stanza.options.items())) == options:
                stanza.uris.append(uri)
                stanza.sources.extend(w for w in where if w not in stanza.sources)
                break
        else:
            stanzas.append(Stanza([uri], list(suite_list), list(missing), dict(options), list(where)))
    return stanzas
