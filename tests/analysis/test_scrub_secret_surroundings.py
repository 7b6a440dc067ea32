"""Secret shapes (docs/scrubbing.md, issue 12 item 2) in varied surroundings: prose, JSON, YAML, logs,
headers, URLs, env files, CLI flags. Every value here was written for this test (none is from the
corpus). A provider-format key goes wherever it sits; a generic token goes after a credential word;
a password goes after a password label whatever its strength; and business text near the same
words comes back unchanged."""

from __future__ import annotations

import json

import pytest

from handoff.analysis.scrub import Scrubber

PROVIDER = {
    "aws_id": "AKIAQ3EGRT7PLMX2WN4K",
    "aws_sts": "ASIAY7RTW2LQ9ZKXM3PB",
    "ghp": "ghp_8fK2mQ9xR4tL7wZ1vN6bJ3hY5cD0sP2aE9uW",
    "gho": "gho_Zt5Wq8Lm2Xc7Vb4Nn1Kj6Hg3Fd9Sa0Pq7RwE",
    "ghs": "ghs_3Qm9XwR7tK2pL8vN4bZ6cJ1hY5dF0sA2eG9uW",
    "github_pat": "github_pat_11AZQ7R2Y0kLmN4pQrS8tU_vWxYz1234AbCdEfGhIjKlMnOpQrStUvWxYz5678AbCdEfGhIjKlMnOp",
    "glpat": "glpat-Rw7Tq2Zx9Lm4Kp8Vn3Bc",
    "xoxb": "xoxb-5512398847-6623409958-Qw8Er7Ty6Ui5Op4As3Df2Gh",
    "xoxp": "xoxp-4412398847-5523409958-6634510069-9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "xapp": "xapp-1-A05QWERTY12-6634510069123-7f8e9d0c1b2a3948576f5e4d3c2b1a0998877665544332211ffeeddccbbaa00",
    "stripe_sk": "sk_live_51Pq8Rt2Wx4Zy6Ab8Cd0Ef2Gh4Ij6Kl8Mn0Op",
    "stripe_rk": "rk_live_51Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1Ff0Dd",
    "stripe_test": "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "google": "AIzaSyB7rT2wQ9xL4mK8pN3vZ6cJ1hY5dF0sA2e",
    "openai": "sk-Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm9876543210AbCd",
    "openai_proj": "sk-proj-Zq8Xw7Ec6Rv5Tb4Yn3Um2Ik1Ol0PaSdFgHjKl_MnBvCxZ-9876543210qwertyuiop",
    "anthropic": "sk-ant-api03-Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx1Cv3Bn5Mq7Wn9Ep1Rt3Yu5Io7Pa9Sd1Fg3Hj5Kl7Zx9Cv1Bn3Mq5Wn7Ep9-QwErTyAA",
    "twilio_sk": "SK2b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e",
    "twilio_ac": "AC4f6e8d0c2b4a6f8e0d2c4b6a8f0e2d4c",
    "sendgrid": "SG.Qw8Er7Ty6Ui5Op4As3Df2G.h1Jk0LzXcVbNm98765432_10AbCdEfGhIjKlMnOpQrS",
    "npm": "npm_Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1Ff0Dd9Ss8",
    "pypi": (
        "pypi-AgEIcHlwaS5vcmcCJDk4ZjI3YTFhLTk4ZTMtNDBiOC1hNjU2LTdmYjM1YzE4NzQ2MwACKlszLCJmO"
        "GE5ZTM2Yi1hOTA1LTQ0ZjUtYmQ1Ni0zZTk4MGY5YTRkMjMiXQAABiBbQzPzR7q9w2xLm4kP8vN3bZ6cJ1hY5dF0sA2"
        "eG9uW"
    ),
    "jwt": (
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtYmlsbGluZyIsImlhdCI6MTcwMDAwMD"
        "AwMH0.Xq3Rt7Yw9Zp2Lk5Mn8Bv1Cx4Df6Gh0Jk3Lq5Sw7Ee9Rt1Yu3Io5Pa7Sd"
    ),
    "hf": "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",
}
# Generic tokens: found after a credential word.
GENERIC = {
    "hex32": "9f3b7c1e5a2d8f4b6c0e9a1d3f5b7c2e",
    "b62": "Rk4LmQ8zX2pV7tN9wB3cJ6hY",
    "b64": "u7Xq2Lm9Pz+Rt4Wv6Xy1Ab3Cd5Ef7Gh9Ij0Kl2Mn=",
    "letters": "QwErTyUiOpAsDfGhJkLz",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Q2mP4sLd",
}
PASSWORDS = ["Tr0ub4dor&3", "hunter2", "correcthorsebattery", "S3cure!Pass#2026", "letmein"]

SURROUND_ANY = [
    "Use {v} for the staging deploy.",
    "{v}",
    '{{"service": "billing", "note": "{v}"}}',
    "2026-03-04T10:22:01Z INFO client init {v} region=eu-west-1",
    "  value: {v}",
    "curl -H 'X-Custom: {v}' https://api.example.com/v1",
    "```\n{v}\n```",
    'client = Client("{v}")',
    "- {v}",
    "| prod | {v} | rotated 2026-02-01 |",
]
SURROUND_KEY = [
    "the API key is {v} until Friday.",
    "API is {v}",
    "secret: {v}",
    "token={v}",
    "api_key: {v}",
    '{{"apiKey": "{v}"}}',
    "export SERVICE_TOKEN={v}",
    "X-Api-Key: {v}",
    "Authorization: Bearer {v}",
    "Authorization: Token {v}",
    "--token {v}",
    "2026-03-04 WARN retry auth token={v} attempt=2",
    'client_secret = "{v}"',
    "my access key {v} works",
    "here's the key: {v}",
    "https://api.example.com/v1/items?token={v}&page=2",
    "https://bucket.s3.amazonaws.com/x.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={v}",
    "https://h.example.com/f?sv=2022&sig={v}",
    "Cookie: sessionid={v}; theme=dark",
    "Set-Cookie: session={v}; Path=/; HttpOnly",
    "session_id: {v}",
    "the webhook signing secret ({v}) is in 1Password",
    "secrets:\n  stripe: {v}",
]
SURROUND_PW = [
    "password: {v}",
    "PASSWORD={v}",
    '{{"password": "{v}"}}',
    "db_password = {v}",
    "mysql -u root -p{v} -h db1",
    "mysql -u root -p {v}",
    "--password {v}",
    "--password={v}",
    "the password is {v}",
    "pwd={v}",
    "[database]\npassword = {v}",
    "postgres://app:{v}@db.internal:5432/orders",
    "https://deploy:{v}@git.example.com/repo.git",
    "Server=db1;Database=x;User Id=sa;Password={v};",
    "redis-cli -a {v} ping",
    "passwd: {v}",
    "login admin / password {v}",
    "  - name: DB_PASSWORD\n    value: {v}",
]

EXTRA = [
    (
        (
            "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1"
            "Ff0Dd9Ss8Aa7Qq6Ww5Ee4Rr3Tt2Yy1Uu0Ii9Oo8Pp7AaBbCc==;EndpointSuffix=core.windows.net"
        ),
        "Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1Ff0Dd9Ss8Aa7Qq6Ww5Ee4Rr3Tt2Yy1Uu0Ii9Oo8Pp7AaBbCc==",
    ),
    ("Authorization: Basic ZGVwbG95OnMzY3IzdC1wYXNz", "ZGVwbG95OnMzY3IzdC1wYXNz"),
    ('"Authorization": "Basic YWxpY2U6d29uZGVybGFuZDIwMjY="', "YWxpY2U6d29uZGVybGFuZDIwMjY="),
    (
        (
            "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;S"
            "haredAccessKey=Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm987654="
        ),
        "Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm987654=",
    ),
    (
        (
            "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4Lq9xZ2Rt7Wv5Yp3Nm8Kj6Hg4Fd2Sa0Qw9Er7Tyo\nAoGC"
            "CqGSM49AwEHoUQDQgAE\n-----END EC PRIVATE KEY-----"
        ),
        "MHcCAQEEIBkg4Lq9xZ2Rt7Wv5Yp3Nm8Kj6Hg4Fd2Sa0Qw9Er7Tyo",
    ),
    (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    ),
    (
        "Slack webhook https://hooks.slack.com/services/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",
        "Xq3Rt7Yw9Zp2Lk5Mn8Bv1Cx4",
    ),
    ("ssh deploy@10.0.0.4 with sshpass -p 'Kq7!mLz2' ", "Kq7!mLz2"),
    ("AWS_SECRET_ACCESS_KEY: wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Q2mP4sLd", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Q2mP4sLd"),
    (
        "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Q2mP4sLd",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9Q2mP4sLd",
    ),
    ("twilio auth token 4f6e8d0c2b4a6f8e0d2c4b6a8f0e2d4c", "4f6e8d0c2b4a6f8e0d2c4b6a8f0e2d4c"),
    (
        "the SendGrid key SG.Qw8Er7Ty6Ui5Op4As3Df2G.h1Jk0LzXcVbNm98765432_10AbCdEfGhIjKlMnOpQrS expires",
        "SG.Qw8Er7Ty6Ui5Op4As3Df2G.h1Jk0LzXcVbNm98765432_10AbCdEfGhIjKlMnOpQrS",
    ),
    (
        "csrftoken=Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcV; sessionid=k2j3h4g5f6d7s8a9q0w1e2r3t4y5u6i7",
        "k2j3h4g5f6d7s8a9q0w1e2r3t4y5u6i7",
    ),
    ("JSESSIONID=8F3B7C1E5A2D8F4B6C0E9A1D3F5B7C2E", "8F3B7C1E5A2D8F4B6C0E9A1D3F5B7C2E"),
    ("PHPSESSID: r2t4y6u8i0o2p4a6s8d0f2g4h6", "r2t4y6u8i0o2p4a6s8d0f2g4h6"),
]

# Business text near credential words: unchanged.
NEG = [
    "The API is versioned as v2026-03-01 and the SDK as 4.12.0.",
    "Our API is RESTful; the session lasts 30 minutes.",
    "API gateway id apigw-2026-eu-west-1 routes /v2/orders",
    "session: checkout-flow-v2 started at 09:12",
    "session_id=checkout-flow-v2",
    "the session summary is SummarizeInvoiceStep output",
    "API: ReceivablesAgentPrompt returned 3 items",
    "password managers are mandatory from April",
    "password rotation happens quarterly",
    "The password policy requires 12 characters.",
    "Reset the password via the portal, then log in.",
    "docker compose -p billingstack up -d",
    "docker run -p 8080:80 nginx:1.27",
    "mysql -u report -p -h db1.internal reporting",
    "ssh -p 2222 deploy@build-07",
    "cp -p settings.yaml backup/",
    "session key rotation is handled by the platform team",
    "API key rotation is scheduled for FRIDAY 06:00 UTC (ticket OPS-1234).",
    "secret: see vault path kv/billing/stripe",
    "The API is down since 09:40; incident INC-20260304-7 is open.",
    "api: northwind-freight-rates-v3",
    "The token count was 18,422 for the summarizer step.",
    "session id for support: CASE-2026-004417",
    "sessions per user average 3.2 (dashboard WeeklyActiveSessions)",
    "password expiry is 90 days",
    "API returned TooManyRequestsException after 120 calls",
    "Use the API of NorthwindFreightRates for quotes.",
    "session ContosoCheckoutSession was created",
]


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber("secret-surroundings-key")


def _leaks(scrubber: Scrubber, template: str, value: str) -> list[str]:
    text = template.format(v=value)
    outputs = [scrubber.scrub_text(text)]
    if text.startswith("{") and "\n" not in text:
        json.loads(text)
        outputs.append(scrubber.scrub_bytes(text.encode(), "application/json").decode())
    return [out for out in outputs if value in out]


@pytest.mark.parametrize("name", sorted(PROVIDER))
def test_a_provider_key_goes_in_any_surrounding(scrubber: Scrubber, name: str) -> None:
    value = PROVIDER[name]
    assert [t for t in SURROUND_ANY + SURROUND_KEY if _leaks(scrubber, t, value)] == []


@pytest.mark.parametrize("name", sorted(GENERIC))
def test_a_generated_token_goes_after_a_credential_word(scrubber: Scrubber, name: str) -> None:
    value = GENERIC[name]
    assert [t for t in SURROUND_KEY if _leaks(scrubber, t, value)] == []


@pytest.mark.parametrize("password", PASSWORDS)
def test_a_labelled_password_goes_whatever_its_strength(scrubber: Scrubber, password: str) -> None:
    assert [t for t in SURROUND_PW if _leaks(scrubber, t, password)] == []


@pytest.mark.parametrize(("text", "value"), EXTRA)
def test_connection_strings_basic_auth_key_blocks_and_session_cookies_go(
    scrubber: Scrubber, text: str, value: str
) -> None:
    assert value not in scrubber.scrub_text(text)


@pytest.mark.parametrize("text", NEG)
def test_business_text_near_credential_words_is_unchanged(scrubber: Scrubber, text: str) -> None:
    assert scrubber.scrub_text(text) == text


def test_a_cookie_headers_credential_pairs_go_and_its_other_pairs_stay(scrubber: Scrubber) -> None:
    text = (
        "cookie: theme=dark; csrftoken=Vb7Nm2Qw9Er4Ty6Ui1Op; locale=fr-CA; ab_bucket=B\n"
        "Set-Cookie: portal_sess=8d7f6e5a4b3c2d1e0f9a8b7c; Path=/; Secure; SameSite=Strict"
    )
    out = scrubber.scrub_text(text)
    assert "Vb7Nm2Qw9Er4Ty6Ui1Op" not in out and "8d7f6e5a4b3c2d1e0f9a8b7c" not in out
    assert "theme=dark" in out and "locale=fr-CA" in out and "ab_bucket=B" in out and "Path=/; Secure" in out


def test_a_token_as_a_urls_user_goes_and_a_plain_user_and_host_stay(scrubber: Scrubber) -> None:
    text = (
        "SENTRY_DSN=https://9b8a7c6d5e4f30211a2b3c4d5e6f7a8b@o551203.ingest.sentry.io/6612094\n"
        "DB_URL=mongodb+srv://ledger_ro:Wq8!tide-Pier31@cluster2.k7qza.mongodb.net/ledger"
    )
    out = scrubber.scrub_text(text)
    assert "9b8a7c6d5e4f30211a2b3c4d5e6f7a8b" not in out and "Wq8!tide-Pier31" not in out
    assert "@o551203.ingest.sentry.io/6612094" in out and "ledger_ro" in out and "cluster2.k7qza.mongodb.net" in out


def test_a_live_key_of_an_unknown_provider_and_a_teams_webhook_go(scrubber: Scrubber) -> None:
    live = "qpx_live_Hn4Tq8Zr2Lw6Xc9Vb3Mk7Pd1Sa5F"
    hook = "https://contoso.webhook.office.com/webhookb2/11aa22bb-33cc/IncomingWebhook/9f8e7d6c5b4a39281706f5e4d3c2b1a0/44dd"
    text = f"The payments API token, I believe, is {live}.\nteams_hook: {hook}\nflag feature_test_enableNewCheckoutFlow2026 on"
    out = scrubber.scrub_text(text)
    assert live not in out and hook not in out and "feature_test_enableNewCheckoutFlow2026" in out
