"""Every value of a key whose name says it holds a credential, whatever the value's shape.

A key names a credential when one of its parts (split on ``_ - . space`` and camel case) is a
credential word (``password``, ``secret``, ``token``, ``auth``, ``credentials``, ``signature``…) or
a pair of parts is one (``api key``, ``access key``, ``private key``, ``client secret``,
``connection string``), and its last part does not make it a name for something else
(``token_url``, ``max_tokens``, ``password_policy``, ``auth_provider``, ``secret_name``).

:func:`credential_values` finds the value on the key's own line: ``.env`` and INI ``KEY=value``,
YAML ``key: value``, JSON ``"key": "value"`` (also escaped inside a JSON string), HTTP headers,
XML ``<password>…</password>``. :func:`credential_blocks` finds the values that sit on later
lines: a Kubernetes ``- name: API_TOKEN`` / ``value: …`` pair, a YAML block scalar (``key: |``), a
YAML mapping or JSON object under a credential key, an INI section named like one.

What is plainly not a secret stays: references (``vault:…``, ``secretKeyRef``, ``${VAR}``,
``{{ … }}``, ``op://…``, ARNs, file paths), placeholders (``<redacted>``, ``***``), booleans, small
numbers, type names (``password: str``) and prose (words without digits or symbols).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.windows import ascii_folded, line_starts_with, windowed

_WORDS = frozenset(
    "password passwd pwd passphrase passcode pass secret secrets token auth authorization authtoken credential "
    "credentials creds apikey accesskey secretkey privatekey clientsecret signature connectionstring connstr "
    "cookie pat dsn sastoken accesstoken refreshtoken idtoken bearertoken".split()
)
_PAIRS = frozenset(
    [
        ("api", "key"), ("access", "key"), ("private", "key"), ("secret", "key"), ("client", "secret"),
        ("account", "key"), ("master", "key"), ("signing", "key"), ("encryption", "key"), ("shared", "key"),
        ("app", "key"), ("conn", "string"), ("connection", "string"), ("conn", "str"), ("connection", "str"),
        ("sas", "key"), ("service", "key"), ("subscription", "key"), ("admin", "key"), ("session", "key"),
    ]
)  # fmt: skip
_STRUCTURED = frozenset("dsn conn connection connectionstring connstr string str url uri".split())
_PASSWORD_WORDS = frozenset("password passwd pwd passphrase passcode pass".split())
# A last part that names something about the credential rather than the credential itself.
_NOT_VALUE = frozenset(
    "count counts limit limits max min length len size type types kind url uri urls endpoint endpoints path paths "
    "file files dir name names ref refs reference id ids expires expiry expiration expired exp ttl lifetime age "
    "policy policies rotation rotated used usage budget budgets provider providers method methods mode scheme "
    "header headers version enabled required format prefix suffix hint hints reset last changed updated created at "
    "date time timestamp strength audience issuer algorithm alg location store source env var field label index "
    "class status state flow grant scope scopes host hostname port server service user username login email owner "
    "holder region zone project symbol ticker decimals supply price amount balance address contract standard "
    "network chain rate level levels config settings option options plugin handler manager mgr backend strategy "
    "description desc note notes title text message error errors help placeholder regex pattern rule rules length "
    "encoding charset lang locale timeout retries retry interval window quota cost price tier plan key_id keyid "
    "fingerprint display visible mask masked hash_algorithm".split()
)
_FIRST_NOT_VALUE = frozenset("max min num n no has is use uses require requires allow enable disable show".split())
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_KEY_HINTS = (
    "pass", "pwd", "secret", "token", "auth", "cred", "key", "signature", "conn", "cookie", "pat", "dsn",
)  # fmt: skip

# key, optional closing quote, separator; the key starts a word and is 1-60 characters.
_KEY_VALUE = re.compile(
    r"(?<![\w.\-$/])(?<!\$\{)(?P<q>\\?[\"']?)(?P<key>[A-Za-z_][\w.\-]{0,59})(?P=q)[ \t]*(?P<sep>:=|=>|[:=])[ \t]*"
)
_XML = re.compile(r"<(?P<key>[A-Za-z_][\w.\-]{0,59})>(?P<value>[^<\n]{1,400})</(?P=key)>")
_LEADING = re.compile(r"[ \t]*(?:-[ \t]+)?(?:export[ \t]+|set[ \t]+|\$env:)?$", re.IGNORECASE)
_REFERENCE = re.compile(
    r"(?i)^(?:\$\{[^}]*\}?|\$\(.*|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|\{\{.*|\{%.*|<.*|\[(?:redacted|hidden|masked)\]|"
    r"\(?(?:redacted|hidden|masked|omitted|removed|sensitive)(?: value)?\)?|"  # Terraform: "(sensitive value)"
    r"\*+|x{3,}|•+|_+|-+|\.{3}|…|true|false|yes|no|on|off|null|"
    r"none|nil|undefined|~|n/?a|tbd|todo|changeme|required|optional|enabled|disabled|set|unset|provided|missing|"
    r"invalid|expired|revoked|rotated|valid|present|absent|empty|basic|bearer|digest|oauth2?|saml|oidc|jwt|hmac|"
    r"str|string|int|integer|bytes|text|secretstr|any|object|optional\[.*|list\[.*|dict\[.*|varchar.*|"
    r"(?:vault|secretref|secretkeyref|secretsmanager|keyvault|env|ref\+\w+|file|sm|gcp|azure|aws|op|arn|k8s|"
    r"kms|ssm|awskms|gcpkms|awssm)\s*[:+].*|valuefrom.*|secretkeyref.*|secretref.*|!ref\b.*|/[\w/.\-]*|"
    r"\.{0,2}/[\w/.\-]*|~/.*|\d{1,7}|[\[{(]\s*[\]})]?|"
    # code that reads the value from the environment: os.environ["API_KEY"], process.env.TOKEN, ENV["X"]
    r"(?:os\.environ|os\.getenv|process\.env|system\.getenv|env|getenv)\s*[\[.(].*)$"
)
_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|digest|apikey|aws4-hmac-sha256|sharedkey|hmac)\s+")
_FIELD_GAP = re.compile(r"[ ]{3,}|\t|,[ \t]+[A-Za-z_][\w.\-]{0,40}[ \t]*[:=][ \t]")
_INLINE_PAIR = re.compile(
    r"[\"']?(?:name|key|Name|Key)[\"']?[ \t]*[:=][ \t]*[\"'](?P<key>[A-Za-z_][\w.\-]{0,59})[\"'][ \t]*,[ \t]*"
    r"[\"']?(?:value|Value)[\"']?[ \t]*[:=][ \t]*"
)
# --requirepass X, -auth-token=X, ["--password", "X"] (an exec array)
_FLAG = re.compile(r"(?<![\w\-])--?(?P<flag>[A-Za-z][\w\-]{1,40})(?:=|[ \t]+|[\"'][ \t]*,[ \t]*(?=[\"']))")
_FLAG_HINTS = ("pass", "secret", "token", "key", "auth", "cred")
_FLAG_WORDS = ("pass", "secret", "token", "apikey", "api-key", "api_key", "auth", "credential")
_FLAG_NOT_VALUE = ("file", "path", "dir", "url", "uri", "type", "name", "id", "env", "ref", "command", "cmd", "stdin")
_REDIS_AUTH = re.compile(r"redis-cli\b[^\n]*?[ \t][\"']?-a(?:[ \t]+|[\"'][ \t]*,[ \t]*(?=[\"']))")
_INLINE_END = re.compile(r"[\s,;}\]<>\"'`)]")
_QUERY_END = re.compile(r"[\s,;&#}\]<>\"'`)]")


def credential_key(name: str) -> bool:
    """Whether the key ``name`` names a credential (``DB_PASSWORD``, ``apiKey``, ``x-auth-token``), not
    something about one (``token_url``, ``max_tokens``, ``password_policy``)."""
    parts = [_singular(p.lower()) for p in _PART.findall(name)]
    if parts[-2:] == ["key", "id"]:  # a service account's private_key_id; a bare key_id only names a key
        return len(parts) > 2
    if not parts or parts[-1] in _NOT_VALUE or (len(parts) > 1 and parts[0] in _FIRST_NOT_VALUE):
        return False
    joined = "".join(parts)
    if joined in _WORDS:
        return True
    return any(p in _WORDS for p in parts) or any(pair in _PAIRS for pair in zip(parts, parts[1:]))


def _singular(part: str) -> str:
    return part[:-1] if part in ("keys", "secrets", "passwords", "signatures") else part


def credential_values(text: str, lower: str) -> Iterator[Finding]:
    """The value of every credential key on its own line (see the module docstring)."""
    for match in windowed(_KEY_VALUE, text, lower, _KEY_HINTS, before=60, after=64):
        key = match.group("key")
        if not credential_key(key) or key.lower() in ("cookie", "set-cookie"):
            continue  # a cookie header's pairs: see tokens.cookie_values
        line_start = text.rfind("\n", 0, match.start()) + 1
        leading = _LEADING.match(text, line_start, match.start()) is not None
        query = match.start() > 0 and text[match.start() - 1] in "?&;"
        span = value_span(text, match.end(), key, leading and not match.group("q").startswith("\\"), query)
        if span is not None:
            yield _finding(text, key, *span)
    if "value" in lower:
        for match in _INLINE_PAIR.finditer(text):
            span = value_span(text, match.end(), match.group("key"), False)
            if span is not None and credential_key(match.group("key")):
                yield _finding(text, match.group("key"), *span)
    if "-" in text:
        for match in windowed(_FLAG, text, lower, _FLAG_HINTS, before=40, after=24):
            flag = match.group("flag").lower()
            if any(word in flag for word in _FLAG_WORDS) and not flag.endswith(_FLAG_NOT_VALUE):
                span = value_span(text, match.end(), "password" if "pass" in flag else "token", False)
                if span is not None and not text.startswith("-", span[0]):
                    yield _finding(text, "password" if "pass" in flag else "token", *span)
    if "redis-cli" in lower:
        for match in _REDIS_AUTH.finditer(text):
            span = value_span(text, match.end(), "password", False)
            if span is not None:
                yield _finding(text, "password", *span)
    if "</" in text:
        for match in _XML.finditer(text):
            if credential_key(match.group("key")) and is_secret_value(match.group("value").strip(), match.group("key")):
                yield _finding(text, match.group("key"), match.start("value"), match.end("value"))


def value_span(text: str, position: int, key: str, whole_line: bool, query: bool = False) -> tuple[int, int] | None:
    """The span of the value that starts at ``position`` (quoted, the rest of the line when the key
    starts the line, else one token), or ``None`` when it is empty or plainly not a secret."""
    line_end = text.find("\n", position)
    line_end = len(text) if line_end < 0 else line_end
    start = position
    escaped = text.startswith('\\"', start)
    if escaped or (start < line_end and text[start] in "\"'`"):
        quote = '\\"' if escaped else text[start]
        start += len(quote)
        end = text.find(quote, start, line_end)
        end = line_end if end < 0 else end
    elif whole_line or key.lower() in ("authorization", "cookie", "set-cookie"):
        end = _comment_at(text, start, line_end)
        gap = _FIELD_GAP.search(text, start, end)  # a form line: "Signature: ____   Date: ____", "auth: x, scopes: y"
        end = gap.start() if gap else end
        while end > start and text[end - 1] in " \t\r,;":
            end -= 1
    else:
        found = (_QUERY_END if query else _INLINE_END).search(text, start, line_end)
        end = found.start() if found else line_end
    scheme = _SCHEME.match(text, start, end)
    if scheme and end - scheme.end() >= 8:
        start = scheme.end()
    value = text[start:end]
    if not is_secret_value(value, key, quoted=start > position):
        return None
    if _parts(key) & _STRUCTURED and ("://" in value or "=" in value):
        return None  # a DSN or connection string: its credential parts are found on their own, hosts stay
    return start, end


def is_secret_value(value: str, key: str, quoted: bool = False) -> bool:
    """Whether ``value`` given to credential ``key`` is a secret, not a reference, placeholder or prose."""
    value = value.strip()
    if not value or value in "|>" or _REFERENCE.match(value) or value.startswith(("|", ">-", "{", "[")):
        return False
    if value.replace(" ", "").isalpha() or not _parts(key) & _PASSWORD_WORDS and _prose(value):
        if " " in value:  # words without a digit or symbol: prose ("Signature: Maria Lopez", "Token: see vault")
            return "passphrase" in key.lower() or quoted and bool(_parts(key) & _PASSWORD_WORDS)
        return bool(_parts(key) & _PASSWORD_WORDS) or len(value) >= 16 and not value.islower()
    return len(value) >= 4 or bool(_parts(key) & _PASSWORD_WORDS)


def _prose(value: str) -> bool:
    """Three or more words, all English but at most one (a path, a name): "see vault path kv/billing/stripe"."""
    words = value.split()
    if len(words) < 3:
        return False
    from handoff.analysis.scrub.gazetteer import fold, gazetteer

    gaz = gazetteer()
    english = sum(w.isalpha() and (len(w) <= 3 or fold(w) in gaz.english or gaz.is_common(fold(w))) for w in words)
    return english >= len(words) - 1


def _parts(key: str) -> set[str]:
    return {p.lower() for p in _PART.findall(key)}


def _comment_at(text: str, start: int, end: int) -> int:
    """Where a `` #`` comment starts between ``start`` and ``end`` (``end`` if none)."""
    hash_at = text.find(" #", start, end)
    return end if hash_at < 0 else hash_at


def _finding(text: str, key: str, start: int, end: int) -> Finding:
    entity = "PASSWORD" if _parts(key) & _PASSWORD_WORDS else "SECRET"
    return Finding(entity, start, end, 0.9, "CredentialKeyRecognizer", text[start:end])


# Multi-line shapes -------------------------------------------------------------------------------

_NAME_LINE = re.compile(
    r"^[ \t]*(?:-[ \t]*)?[\"']?(?:name|key|Name|Key)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<key>[A-Za-z_][\w.\-]{0,59})"
)
_VALUE_LINE = re.compile(r"^[ \t]*[\"']?(?:value|Value)[\"']?[ \t]*[:=][ \t]*")
_OPENER = re.compile(
    r"^(?P<indent>[ \t]*)(?:-[ \t]+)?[\"']?(?P<key>[A-Za-z_][\w.\-]{0,59})[\"']?[ \t]*[:=][ \t]*"
    r"(?P<rest>[|>][-+]?|\{|)[ \t]*$"
)
_HINT_WORDS = ("pass", "pwd", "secret", "token", "auth", "cred", "key", "signature", "conn", "cookie", "pat", "dsn")
_HINT_LINE = re.compile(r"(?im)^[^\n]*?(?:" + "|".join(_HINT_WORDS) + r")[^\n]*")
_SECTION = re.compile(r"^[ \t]*\[(?P<key>[A-Za-z_][\w.\- ]{0,59})\][ \t]*$")
_CHILD = re.compile(r"^(?P<indent>[ \t]*)(?:-[ \t]+)?[\"']?(?P<key>[A-Za-z_][\w.\-]{0,59})[\"']?[ \t]*(?:=|:)[ \t]*")


def credential_blocks(text: str, lines: Sequence[str], starts: Sequence[int]) -> list[Finding]:
    """Credential values on the lines after the key that names them (see the module docstring)."""
    found: list[Finding] = []
    for hit_start in _hint_lines(text):
        index = bisect.bisect_right(starts, hit_start) - 1
        line = lines[index]
        name = _NAME_LINE.match(line)
        if name and credential_key(name.group("key")):
            found += _paired_value(text, lines, starts, index, name)
            continue
        opener = _OPENER.match(line) or _SECTION.match(line)
        if opener and credential_key(opener.group("key")):
            found += _nested_values(text, lines, starts, index, opener)
    return found


def _hint_lines(text: str) -> list[int]:
    """The start offsets of the lines ``_HINT_LINE`` matches: by ``str.find`` on the lower case where that
    finds the same (a lazy case-insensitive scan of every line costs about 1 ms per 10 KB, the finds 0.1)."""
    lower = ascii_folded(text)
    if lower is None:
        return [hit.start() for hit in _HINT_LINE.finditer(text)]
    return line_starts_with(lower, _HINT_WORDS)


def _paired_value(text: str, lines: Sequence[str], starts: Sequence[int], index: int, name: re.Match) -> list[Finding]:
    """``name: API_TOKEN`` then ``value: …`` on the same or one of the next two lines."""
    key = name.group("key")
    same = re.search(r"[\"']?(?:value|Value)[\"']?[ \t]*[:=][ \t]*", lines[index][name.end() :])
    if same:
        span = value_span(text, starts[index] + name.end() + same.end(), key, True)
        return [_finding(text, key, *span)] if span else []
    for offset in (1, 2):
        if index + offset >= len(lines):
            break
        value = _VALUE_LINE.match(lines[index + offset])
        if value:
            span = value_span(text, starts[index + offset] + value.end(), key, True)
            return [_finding(text, key, *span)] if span else []
    return []


def _nested_values(
    text: str, lines: Sequence[str], starts: Sequence[int], index: int, opener: re.Match
) -> list[Finding]:
    """The lines indented under a credential key (a block scalar: all of them; a mapping or object:
    each child's value unless the child's own key names something else), or an INI section's keys."""
    section = "indent" not in opener.groupdict()
    indent = 0 if section else len(opener.group("indent").expandtabs())
    block = not section and opener.group("rest")[:1] in ("|", ">")
    found: list[Finding] = []
    for follow in range(index + 1, min(len(lines), index + 40)):
        line = lines[follow]
        if not line.strip():
            continue
        own = len(line) - len(line.lstrip(" \t"))
        if section and _SECTION.match(line) or not section and own <= indent and line.strip() not in ("}", "},"):
            break
        if line.strip() in ("}", "},"):
            break
        start = starts[follow]
        if block:
            found.append(_finding(text, opener.group("key"), start + own, start + len(line.rstrip())))
            continue
        child = _CHILD.match(line)
        if child is None or child.group("key").lower() in _NOT_VALUE or _key_tail(child.group("key")) in _NOT_VALUE:
            continue
        span = value_span(text, start + child.end(), opener.group("key") + "_" + child.group("key"), True)
        if span is not None:
            found.append(_finding(text, opener.group("key"), *span))
    return found


def _key_tail(key: str) -> str:
    parts = _PART.findall(key)
    return parts[-1].lower() if parts else ""
