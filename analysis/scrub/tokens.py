"""Secrets in the shapes the Presidio patterns miss: more provider formats, keys named like secrets
in env files and YAML (``SMTP_PASS=…``), connection-string keys, CLI flags, passwords given in prose,
session cookies, base64 that decodes to ``user:password``, and Ethereum wallet addresses."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from handoff.analysis.scrub.credentials import is_secret_value
from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.keyed import looks_generated, mostly_words
from handoff.analysis.scrub.windows import aligned_lower, windowed

_QUOTED = r"""(?:'([^'\n]{3,})'|"([^"\n]{3,})"|([^\s"',;&]{3,}))"""
# mysql -pletmein, sshpass -p 'x': -p gives the password there whatever it looks like (a port elsewhere)
_PASSWORD_FLAG = re.compile(r"(?:mysql\w*|mariadb\w*|sshpass)\b[^\n]*?[ \t]-p[ \t]*" + _QUOTED)
# sessionid=…, JSESSIONID=… (a session id is a credential; "session_id=checkout-flow-v2" names a flow)
_SESSION = re.compile(r"(?i:\b\w*(?:session|sess|sid)\w*=)([A-Za-z0-9%._\-]{16,})")
# Stripe-Signature: t=…,v1=<hex>; X-Hub-Signature-256: sha256=<hex>: a webhook's signature, whole (over
# the credential key's value, which would end at the comma)
_SIGNATURE = re.compile(
    r"(?i:signature)[\w-]*[\"']?[ \t]*[:=][ \t]*[\"']?((?:t=\d+,)?(?:v\d|sha\d+)=[0-9a-fA-F]{32,}(?:,v\d=[0-9a-fA-F]{32,})*)"
)
_PORTS = re.compile(r"[\d.:\[\]]*\d:\d+(?:-\d+)?(?:/(?:tcp|udp))?")  # docker run -p 8080:80, -p 127.0.0.1:53:53/udp
# A live or test key of a provider without a pattern of its own: cbz_live_…, acme_test_… (the rest generated)
_PREFIXED_KEY = re.compile(r"\b([a-z][a-z0-9]{1,11}_(?:live|test|prod)_[A-Za-z0-9]{20,})\b")
# SMTP_PASS=…, apiToken: …: a key named like a secret (a public key, published on purpose, is none)
_NAMED_KEY = re.compile(
    r"\b(?P<key>[A-Za-z][A-Za-z0-9_]*(?:PASS|PASSWD|PASSWORD|SECRET|TOKEN|KEY|SID|AUTH|BASIC|CREDENTIALS?|_pass|"
    r"_secret|_token|_key|_sid|_auth|token))[\"']?[ \t]*[:=][ \t]*" + _QUOTED
)
# Keys that are no credential: a public key, and a key of a data model ("usage_date_key", "sort_key",
# "partition_key", "idempotency_key": a column or a request's id)
_PUBLIC_KEY = re.compile(
    r"(?i)(?:public|date|sort|partition|primary|foreign|row|cache|lookup|surrogate|natural|composite|dimension|"
    r"idempotency|dedupe|dedup|group|routing|shard|object|s3|bucket|index|hash|map)[_\-]?key$"
)
_SPECS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "SECRET",
        re.compile(
            r"(AIza[0-9A-Za-z_\-]{35}|https://hooks\.slack\.com/services/[A-Z0-9]+/[A-Z0-9]+/[A-Za-z0-9]+"
            r"|https://discord(?:app)?\.com/api/webhooks/\d+/[\w\-]+"
            r"|SG\.[\w\-]{22}\.[\w\-]{43}|\bnpm_[A-Za-z0-9]{36}\b|pypi-AgEIcHlwaS5vcmc[\w\-]{50,}|glpat-[\w\-]{20,}"
            r"|whsec_[A-Za-z0-9]{24,}|\bhvs\.[A-Za-z0-9_\-]{24,}|shpat_[a-fA-F0-9]{32}|dop_v1_[a-f0-9]{64}"
            r"|\bkey-[0-9a-z]{32}\b|\bglptt-[0-9a-f]{40}\b"
            r"|\bdp\.(?:st|pt|sa|ct|scim|audit)\.(?:[\w\-]{1,24}\.)?[\w\-]{20,}"
            r"|\bATATT3[\w\-=]{50,}|\blin_(?:api|oauth)_[A-Za-z0-9]{32,}|\bshp(?:ss|ca|pa)_[a-fA-F0-9]{32}"
            r"|\bNRAK-[A-Z0-9]{27}\b|\bhf_[A-Za-z0-9]{30,}\b"
            r"|\bsq0(?:atp|csp)-[\w\-]{22,43}|\bEAAA[\w\-]{60}"
            r"|\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b|\bglsa_[A-Za-z0-9]{32}_[a-f0-9]{8}\b|\bdapi[a-f0-9]{32}\b"
            r"|\bsbp_[a-f0-9]{40}\b|\bfigd_[\w\-]{40}|\bntn_[A-Za-z0-9]{40,}|\bsecret_[A-Za-z0-9]{43}\b|\bgsk_[A-Za-z0-9]{52}\b"
            r"|\br8_[A-Za-z0-9]{37}\b|\bxai-[A-Za-z0-9]{60,}|\bpplx-[A-Za-z0-9]{40,}\b|\bGOCSPX-[\w\-]{28}"
            r"|\bdckr_(?:pat|oat)_[\w\-]{24,}"
            r"|\bya29\.[\w\-]{20,}|\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}"
            r"|https://[\w.\-]{1,60}\.webhook\.office\.com/webhookb?2/[^\s\"'<>]+)"
        ),
    ),
    ("SECRET", _PREFIXED_KEY),
    ("SECRET", _NAMED_KEY),
    (
        "SECRET",
        re.compile(r"(?i:AccountKey|SharedAccessKey|SharedAccessSignature|_authToken|_auth|_password)=([^;\s\"']{6,})"),
    ),
    (
        "SECRET",
        re.compile(
            r"--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token|access-token)(?:=|[ \t]+)"
            + _QUOTED
        ),
    ),
    (
        "SECRET",
        re.compile(
            r"(?:redis-cli|mysql\w*|mariadb|psql|mongo\w*|docker|podman|helm|sshpass|nerdctl|buildah|skopeo)\b"
            r"[^\n]*?[ \t]-(?:a[ \t]+|p[ \t]*)" + _QUOTED
        ),
    ),
    ("SECRET", _PASSWORD_FLAG),
    ("SECRET", re.compile(r"curl\b[^\n]*?[ \t](?:-u|--user)[ \t]+[^:\s]+:" + _QUOTED)),
    (
        "PASSWORD",
        re.compile(
            r"(?i:password|passcode|passphrase|pwd)\b[^\n:=]{0,40}?\b(?:is|was|:)[ \t]+"
            r"(?:[\"'“]([^\"'”\n]{3,})[\"'”]|([^\s\"'”]{3,}))"
        ),
    ),
    (
        "PASSWORD",
        re.compile(
            r"(?i:password|passcode|passphrase)[ \t]+(?:(?=\S*\d)(?=\S*[A-Za-z])([^\s\"'”,;]{6,})|([A-Za-z]{6,})(?![\w\-]))"
        ),
    ),
    ("SECRET", _SESSION),
    (
        "SECRET",
        re.compile(
            r"(?i:[\"'](?:x-api-key|api-key|x-auth-token|authorization)[\"']\s*\]?\s*[:=]\s*)[\"']([^\"'\n]{8,})"
        ),
    ),
    (
        "SECRET",
        re.compile(
            r"(?:getenv|environ\.get)\(\s*[\"'][^\"']*(?:SECRET|TOKEN|KEY|PASS)[^\"']*[\"']\s*,\s*[\"']([^\"'\n]{8,})"
        ),
    ),
    ("SECRET", re.compile(r"(?i:\bbasic[ \t]+)([A-Za-z0-9+/]{12,}={0,2})")),
    ("SECRET", re.compile(r"(?<![\w:])\d{8,10}:AA[\w\-]{33}(?![\w\-])")),  # Telegram bot tokens
    # mosquitto_pub -u gw -P 'x', sqlcmd -U sa -P x, ldapsearch -D … -w x: the password flag of these tools
    ("SECRET", re.compile(r"(?:mosquitto_\w+|mqtt\w*|sqlcmd|bcp|ldap\w+)\b[^\n]*?[ \t]-[Pw][ \t]+" + _QUOTED)),
    ("SECRET", _SIGNATURE),
)
# Literals (lower case) that every match of the spec at the same index contains; the patterns run
# only in windows around them (see :mod:`~handoff.analysis.scrub.windows`): (keywords, before, after).
_WINDOWS: tuple[tuple[tuple[str, ...], int, int], ...] = (
    (
        ("aiza", "hooks.slack.com", "discord", "sg.", "npm_", "pypi-", "glpat-", "whsec_", "hvs.", "shpat_", "dop_v1_")
        + ("key-", "glptt-", "dp.", "atatt3", "lin_", "shpss_", "shpca_", "shppa_", "nrak-", "hf_")
        + (
            "sq0",
            "eaaa",
            "pmak-",
            "glsa_",
            "dapi",
            "sbp_",
            "figd_",
            "ntn_",
            "secret_",
            "gsk_",
            "r8_",
            "xai-",
            "pplx-",
            "gocspx-",
            "dckr_",
        )
        + ("ya29.", "age-secret-key-", "xapp-", "webhook.office.com"),
        64,
        200,
    ),
    (("_live_", "_test_", "_prod_"), 12, 200),
    (("pass", "secret", "token", "key", "sid", "auth", "basic", "credential"), 80, 300),
    (("accountkey", "sharedaccess", "_auth", "_password"), 1, 300),
    (("--pass", "--token", "--api", "--secret", "--client-secret", "--auth", "--access"), 1, 300),
    (
        (
            "redis-cli",
            "mysql",
            "mariadb",
            "psql",
            "mongo",
            "docker",
            "podman",
            "helm",
            "sshpass",
            "nerdctl",
            "buildah",
            "skopeo",
        ),
        1,
        400,
    ),
    (("mysql", "mariadb", "sshpass"), 1, 400),
    (("curl",), 1, 600),
    (("password", "passcode", "passphrase", "pwd"), 1, 160),
    (("password", "passcode", "passphrase"), 1, 80),
    (("session", "sess", "sid"), 80, 300),
    (("x-api-key", "api-key", "x-auth-token", "authorization"), 2, 300),
    (("getenv", "environ.get"), 1, 300),
    (("basic",), 1, 300),
    ((":aa",), 11, 40),
    (("mosquitto", "mqtt", "sqlcmd", "bcp", "ldap"), 1, 400),
    (("signature",), 1, 200),
)
_COOKIE_HEADER = re.compile(r"(?i)\b(?:set-)?cookie[\"']?\s*[:=]\s*[\"']?")
_COOKIE_PAIR = re.compile(r"(?P<name>[\w.\-%!#$&'*+^`|~]{1,80})=(?P<value>[^;\s\"',]*)")
_COOKIE_ATTRIBUTES = frozenset(
    "path domain expires maxage samesite httponly secure priority partitioned version".split()
)
_COOKIE_CREDENTIAL = re.compile(
    r"(?i)sess|sid|token|auth|csrf|xsrf|jwt|remember|login|secret|sso|saml|oauth|refresh|access|ident|cred|pass|key"
)
_URL_USER = re.compile(r"://([A-Za-z0-9_\-.~%]{16,})(?=[:@])")  # a token as a URL's user: Sentry DSNs, git remotes
_TWILIO = re.compile(r"\b(?:AC|SK)[0-9a-f]{32}\b")
_HEX32 = re.compile(r"[0-9a-f]{32}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_ETH = re.compile(r"\b0x[0-9a-fA-F]{40}\b")
_PLACEHOLDER = re.compile(  # Twilio message, call and number SIDs (SM…, CA…) are ids, not credentials
    r"^(?:(?:SM|MM|CA|PN|RE|CF)[0-9a-f]{32}|<.*|\$\{.*|\{\{.*|\*+|x+|changeme|null|none|true|false|\d{1,5})$",
    re.IGNORECASE,
)


def secret_tokens(text: str) -> Iterator[Finding]:
    """Secrets of the shapes above; the key name stays, the value goes."""
    lower = aligned_lower(text)
    for (entity, pattern), (keywords, before, after) in zip(_SPECS, _WINDOWS):
        for match in windowed(pattern, text, lower, keywords, before=before, after=after):
            group = next(
                (i for i in range(2 if pattern is _NAMED_KEY else 1, (match.lastindex or 0) + 1) if match.group(i)),
                0,
            )
            start, end = match.span(group)
            value = text[start:end].rstrip(".,;)")
            if (
                value
                and not value.startswith("-")
                and not _PLACEHOLDER.match(value)
                and not _PORTS.fullmatch(value)
                and (pattern is not _SESSION or not mostly_words(value))
                and (pattern is not _NAMED_KEY or not _PUBLIC_KEY.search(match.group("key")))
                and (pattern is not _PREFIXED_KEY or looks_generated(value.split("_", 2)[-1]))
                and is_secret_value(value, "password" if entity == "PASSWORD" or pattern is _PASSWORD_FLAG else "token")
                and (entity != "PASSWORD" or not value.isalpha() or ":" in match.group() or _not_a_word(value))
            ):
                yield Finding(
                    entity,
                    start,
                    start + len(value),
                    0.95 if pattern is _SIGNATURE else 0.88,
                    "SecretTokenRecognizer",
                    value,
                )
    if "cookie" in lower:
        yield from cookie_values(text, lower)
    if "://" in text:
        for match in _URL_USER.finditer(text):
            user = match.group(1)
            if looks_generated(user) or _HEX32.fullmatch(user.lower()):
                yield Finding("SECRET", match.start(1), match.end(1), 0.88, "SecretTokenRecognizer", user)
    if _HEX32.search(text):
        for match in _TWILIO.finditer(text):
            yield Finding("SECRET", match.start(), match.end(), 0.88, "SecretTokenRecognizer", match.group())
    yield from _encoded_credentials(text)


def cookie_values(text: str, lower: str) -> Iterator[Finding]:
    """The values of a ``Cookie:`` / ``Set-Cookie:`` header's pairs that are credentials: a pair named
    like a session or token (``sessionid``, ``csrftoken``, ``remember_me``) or whose value looks generated;
    ``locale=en-GB``, ``theme=dark`` and the attributes (``Path``, ``Expires``) stay."""
    for match in windowed(_COOKIE_HEADER, text, lower, ("cookie",), before=4, after=40):
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        for pair in _COOKIE_PAIR.finditer(text, match.end(), line_end):
            name, value = pair.group("name"), pair.group("value")
            if not value or fold_attribute(name) in _COOKIE_ATTRIBUTES:
                continue
            if (
                _COOKIE_CREDENTIAL.search(name)
                and len(value) >= 6
                or looks_generated(value)
                or len(value) >= 20
                and any(c.isdigit() for c in value)
                and not mostly_words(value)
            ):
                yield Finding("SECRET", pair.start("value"), pair.end("value"), 0.88, "CookieRecognizer", value)


def fold_attribute(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


def _not_a_word(value: str) -> bool:
    """A password written as letters only ("passphrase is tangerinebicycle") that is no English word
    ("password is incorrect", "was reset" stay)."""
    from handoff.analysis.scrub.gazetteer import fold, gazetteer

    folded = fold(value)
    gaz = gazetteer()
    return len(value) >= 6 and not (gaz.is_common(folded) or gaz.is_english_stem(folded) or folded in gaz.english)


def _encoded_credentials(text: str) -> Iterator[Finding]:
    """Base64 that decodes to ``user:password`` or a URL with credentials (Basic auth, Kubernetes secrets)."""
    for match in _BASE64.finditer(text):
        token = match.group()
        if match.start() and (text[match.start() - 1].isalnum() or text[match.start() - 1] in "/+-_"):
            continue
        try:
            decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable() and (":" in decoded or "@" in decoded) and len(decoded) >= 6:
            yield Finding(
                "SECRET",
                match.start(),
                match.end(),
                0.85,
                "EncodedCredentialRecognizer",
                token,
            )


def wallet_addresses(text: str) -> Iterator[Finding]:
    """Ethereum wallet addresses (``0x`` and 40 hex digits)."""
    for match in _ETH.finditer(text):
        yield Finding(
            "CRYPTO",
            match.start(),
            match.end(),
            0.9,
            "EthereumRecognizer",
            match.group(),
        )
