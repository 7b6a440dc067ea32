"""Secrets in the shapes docs/scrubbing.md lists, written for these tests (not taken from the corpus),
and business text near credential words that must come back unchanged."""

from __future__ import annotations

import pytest

from handoff.analysis.scrub import Scrubber

SECRETS = [
    ("aws_access_key_id = AKIAZ7QW3RT5YUI8OP2L", "AKIAZ7QW3RT5YUI8OP2L"),
    ("creds: ASIAXK4J2M9PLQ7RT3WE expires soon", "ASIAXK4J2M9PLQ7RT3WE"),
    ("aws_secret_access_key = q8Hk2/Lm9Pz+Rt4Wv6Xy1Ab3Cd5Ef7Gh9Ij0Kl2Mn", "q8Hk2/Lm9Pz+Rt4Wv6Xy1Ab3Cd5Ef7Gh9Ij0Kl2Mn"),
    (
        'export AWS_SECRET_ACCESS_KEY="Zx9/Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa987"',
        "Zx9/Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa987",
    ),
    (
        "git clone https://ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy@github.com/acme/repo",
        "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy",
    ),
    ("token gho_16C7e42F292c6912E7710c838347Ae178B4a used", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
    (
        "GH_TOKEN=github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefghijklmnopqrstuvwxyzABCDEF",
        "github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefghijklmnopqrstuvwxyzABCDEF",
    ),
    ("use glpat-xY7zR2kP9mQ4wL8nT3vB for the runner", "glpat-xY7zR2kP9mQ4wL8nT3vB"),
    ("slack bot xoxb-2048-4096-AbCdEfGhIjKlMnOpQrStUvWx in channel", "xoxb-2048-4096-AbCdEfGhIjKlMnOpQrStUvWx"),
    (
        "xoxp-1111111111-2222222222-3333333333-abcdef0123456789abcdef0123456789",
        "xoxp-1111111111-2222222222-3333333333-abcdef0123456789abcdef0123456789",
    ),
    ("stripe.api_key = 'sk_live_51HxQ2bC3dE4fG5hI6jK7lM8n'", "sk_live_51HxQ2bC3dE4fG5hI6jK7lM8n"),
    ("restricted rk_live_9aZ8yX7wV6uT5sR4qP3oN2mL", "rk_live_9aZ8yX7wV6uT5sR4qP3oN2mL"),
    (
        "OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0h",
        "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0h",
    ),
    ("key sk-3xAmPl3K3yF0rT3st1ngOnlyAbCdEfGhIjKlMnOpQr", "sk-3xAmPl3K3yF0rT3st1ngOnlyAbCdEfGhIjKlMnOpQr"),
    (
        "anthropic: sk-ant-api03-Qw3rTy7uI9oP1aS2dF4gH6jK8lZ0xC-vB5nM_aBcDeFgHiJ-kLmNoPqRsTuVwXyZ012345678-AA",
        "sk-ant-api03-Qw3rTy7uI9oP1aS2dF4gH6jK8lZ0xC-vB5nM_aBcDeFgHiJ-kLmNoPqRsTuVwXyZ012345678-AA",
    ),
    ("maps key AIzaSyD3xAmPl3K3yF0rT3st1ng0nlyAbCdEfGh", "AIzaSyD3xAmPl3K3yF0rT3st1ng0nlyAbCdEfGh"),
    (
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    (
        '{"key": "-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2'
        '\\nkX9bQ+ZxYw8VhL2tR4nP\\n-----END RSA PRIVATE KEY-----"}',
        "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ),
    (
        "https://acct.blob.core.windows.net/c/f.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&sig=Xy7%2BaBcD3eFgH1jKlMn0pQrStUvWxYz%3D",
        "Xy7%2BaBcD3eFgH1jKlMn0pQrStUvWxYz%3D",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=Qm9vYmFyQmF6UXV4Y29ycmVjdGhvcnNlYmF0dGVyeXN0YXBsZQ==;EndpointSuffix=core.windows.net",
        "Qm9vYmFyQmF6UXV4Y29ycmVjdGhvcnNlYmF0dGVyeXN0YXBsZQ==",
    ),
    (
        "twilio auth token 9f8e7d6c5b4a39281706f5e4d3c2b1a0 for SID AC0123456789abcdef0123456789abcdef",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    ("twilio SID AC0123456789abcdef0123456789abcdef", "AC0123456789abcdef0123456789abcdef"),
    (
        "SENDGRID_API_KEY=SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ0123",
        "SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ0123",
    ),
    (
        "//registry.npmjs.org/:_authToken=npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    ),
    (
        "password = pypi-AgEIcHlwaS5vcmcCJDU3OTM5NjcxLTAwMDAtNDAwMC1hMDAwLTAwMDAwMDAwMDAwMAACKlszLCJ",
        "pypi-AgEIcHlwaS5vcmcCJDU3OTM5NjcxLTAwMDAtNDAwMC1hMDAwLTAwMDAwMDAwMDAwMAACKlszLCJ",
    ),
    ("client_secret: 7c4f9a2e8b1d6053f7e2a9c4b8d1e6f3", "7c4f9a2e8b1d6053f7e2a9c4b8d1e6f3"),
    ('{"apiKey": "a8F3kL9pQ2rT7vX1zB5nM0wE4yU6iO8s"}', "a8F3kL9pQ2rT7vX1zB5nM0wE4yU6iO8s"),
    ("webhook_signing_secret: 'Wq8mZ2xR5tY9uI3oP7aS1dF6gH0jK4lL'", "Wq8mZ2xR5tY9uI3oP7aS1dF6gH0jK4lL"),
    ("access-token: 4f7d2c9a1b8e3f6d0c5a7b2e9f1d4c8a6b3e0f7d", "4f7d2c9a1b8e3f6d0c5a7b2e9f1d4c8a6b3e0f7d"),
    ("db_password=Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("password: 'correct horse battery'", "correct horse battery"),
    ("database:\n  user: app\n  password: S3cur3!Pa55w0rd\n  host: db.internal", "S3cur3!Pa55w0rd"),
    ('{"user": "svc", "password": "Winter2024!Blue"}', "Winter2024!Blue"),
    ("DB_PASS=Hx9#kq2Lm!", "Hx9#kq2Lm!"),
    ("SMTP_PASSWORD='mail-pw-8812'", "mail-pw-8812"),
    ("postgres://report:Gr4nt!te99@db.acme.internal:5432/sales", "Gr4nt!te99"),
    ("postgresql://app_user:pAs5w0rd@10.0.0.5/app", "pAs5w0rd"),
    ("mongodb+srv://admin:M0ng0Secr3t@cluster0.ab12c.mongodb.net/test?retryWrites=true", "M0ng0Secr3t"),
    ("jdbc:sqlserver://sql01:1433;databaseName=Orders;user=etl;password=Etl#2024pw;encrypt=true", "Etl#2024pw"),
    ("jdbc:mysql://db:3306/shop?user=shop&password=Sh0pP4ss", "Sh0pP4ss"),
    ("Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql.acme.com;Uid=reporter;Pwd=R3p0rt!ng;", "R3p0rt!ng"),
    ("Server=myserver;Database=db;User Id=sa;Password=SaP@ssw0rd123;", "SaP@ssw0rd123"),
    ("redis://:r3d1sP4ss@cache:6379/0", "r3d1sP4ss"),
    ("amqp://guest:Gu3stR4bb1t@mq:5672/", "Gu3stR4bb1t"),
    ("mysql -u root -pR00tPw99 shop", "R00tPw99"),
    ("mysql -u root -p 'R00t Pw' shop", "R00t Pw"),
    ("psql --password=Pg!2024x -h db", "Pg!2024x"),
    ("deploy.sh --token 8d7f6e5a4b3c2d1e0f9a8b7c6d5e4f3a --env prod", "8d7f6e5a4b3c2d1e0f9a8b7c6d5e4f3a"),
    ("cli login --api-key=Ka9Lm2Np4Qr6St8Vw0Xy", "Ka9Lm2Np4Qr6St8Vw0Xy"),
    ("docker login -u bot -p Dk3rHubPw77 registry.acme.io", "Dk3rHubPw77"),
    ("Authorization: Basic YWRtaW46c3VwZXJzZWNyZXQ=", "YWRtaW46c3VwZXJzZWNyZXQ="),
    (
        "curl -H 'Authorization: Bearer 0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d' https://api.acme.io",
        "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d",
    ),
    ("headers = {'X-API-Key': 'ZmFrZS1rZXktZm9yLXRlc3Rz'}", "ZmFrZS1rZXktZm9yLXRlc3Rz"),
    ("curl -u deploy:Dpl0yPw! https://ci.acme.io", "Dpl0yPw!"),
    ("ftp://backup:B4ckupPw@files.acme.io/dump.sql", "B4ckupPw"),
    ("https://api.acme.io/v1/data?api_key=Qx7Wm2Rz9Kp4Ln8T&limit=10", "Qx7Wm2Rz9Kp4Ln8T"),
    ("GET /download?id=42&token=9Hs7Kd2LmQ0pZx4R HTTP/1.1", "9Hs7Kd2LmQ0pZx4R"),
    (
        "https://s3.amazonaws.com/b/o?X-Amz-Signature=3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a",
        "3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a",
    ),
    ("callback https://hooks.acme.io/cb?signature=aB3cD5eF7gH9iJ1kL3mN", "aB3cD5eF7gH9iJ1kL3mN"),
    ("https://app.acme.io/reset?key=Rk4Lm8Np2Qs6Tv0Wx", "Rk4Lm8Np2Qs6Tv0Wx"),
    ("card 4111 1111 1111 1111 exp 12/27", "4111 1111 1111 1111"),
    ("card 4012.8888.8888.1881", "4012.8888.8888.1881"),
    ('{"card_number": 4111111111111111}', "4111111111111111"),
    ("amex 3782 822463 10005", "3782 822463 10005"),
    ("pan=5555555555554444", "5555555555554444"),
    ("card 4012.8888.8888.1881", "4012.8888.8888.1881"),
    ("PRIVATE_TOKEN: zq8W3mN5bV7cX9lK2jH4", "zq8W3mN5bV7cX9lK2jH4"),
    ("the passphrase is: blue-otter-42", "blue-otter-42"),
    ("login with username admin and password Adm1n!2024", "Adm1n!2024"),
    ("pwd: kX7#mQ2z", "kX7#mQ2z"),
    (
        "secret_key_base: 5f4dcc3b5aa765d61d8327deb882cf99b3a7c2e1f0d9e8c7b6a5f4e3d2c1b0a9",
        "5f4dcc3b5aa765d61d8327deb882cf99b3a7c2e1f0d9e8c7b6a5f4e3d2c1b0a9",
    ),
    ('const apiToken = "Lk3Jh5Gf7Ds9Aq1Wz3Xc";', "Lk3Jh5Gf7Ds9Aq1Wz3Xc"),
    ("settings.SECRET = 'Yp8Tr6Ew4Qa2Sd0Fg'", "Yp8Tr6Ew4Qa2Sd0Fg"),
    ("private_key_id: 9c2b4f1e7a3d8c6b5e0f2a1d4c7b9e8f3a6d5c2b", "9c2b4f1e7a3d8c6b5e0f2a1d4c7b9e8f3a6d5c2b"),
    ('<add key="StorageKey" value="Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==" />', "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA=="),
    ("ssh-password=hunter2xyz", "hunter2xyz"),
    ("mailgun key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "key-3ax6xnjp29jd6fds4gc373sgvjxteol0"),
    ("shopify shpat_0123456789abcdef0123456789abcdef", "shpat_0123456789abcdef0123456789abcdef"),
    ("Cookie: sessionid=8f14e45fceea167a5a36dedd4bea2543; csrftoken=abc", "8f14e45fceea167a5a36dedd4bea2543"),
    ('"Authorization": "Token 5e8ff9bf55ba3508199d22e984129be6"', "5e8ff9bf55ba3508199d22e984129be6"),
    ("api key: Xj4kL9mN2pQ7rS1tV6wY8zA3", "Xj4kL9mN2pQ7rS1tV6wY8zA3"),
    ("Here is the token — Qm3Nx8Pz2Lk7Wr4Ty9Vb — please rotate it", "Qm3Nx8Pz2Lk7Wr4Ty9Vb"),
    ("Datadog DD_API_KEY: 0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
    ('--password "P@ss w0rd"', "P@ss w0rd"),
    ("PGPASSWORD=pgS3cret psql -h db", "pgS3cret"),
    ("user=etl password=Etl2024secret host=db", "Etl2024secret"),
]
BUSINESS = [
    "Token budget: 4096 tokens per request; max_tokens=1024.",
    "idempotency key: 7d9f3a2b1c4e5f60718293a4b5c6d7e8",
    "cache key cust:8812:2026-03 expired; partition key region#eu-west-1",
    "Pinned to commit 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a (release 4.2.1).",
    "sha256: 9b74c9897bac770ffc029102a200c5de8f1b0d6d6a3f1e2c4b5a6d7e8f9a0b1c",
    "The signature block lists the DocuSign envelope ab12cd34-ef56-7890-abcd-ef1234567890.",
    "Use the key fob for Building 4; the access key card is at reception.",
    "Refresh the OAuth token every 3600 seconds; token endpoint https://auth.acme.io/oauth2/token.",
    "Password policy requires 12 characters; password reset links expire in 24h.",
    "The API key rotation job (job id JOB-2026-00412) ran at 02:00 UTC.",
    "Secret Manager path projects/acme-prod/secrets/db-url/versions/7 is referenced by the pipeline.",
    "Order ORD-2026-004417 shipped; tracking 1Z999AA10123456784.",
    "auth: oauth2, scopes: read:orders write:orders",
    "Primary key (order_id, line_no); foreign key customer_id references customers.",
    "Signature verified with public key fingerprint SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8.",
    "token_type: bearer, expires_in: 3600, scope: openid profile",
    "Set the TOKEN_TTL to 900 and SECRET_ROTATION_DAYS to 30.",
    "Model gpt-4o-2024-08-06 used 12,400 prompt tokens and 890 completion tokens.",
    "Build artifact image sha256:4d3c2b1a0f9e8d7c6b5a49382716f5e4d3c2b1a0f9e8d7c6b5a49382716f5e4d pushed.",
    "key: ACME-PLAT-2291, summary: pager rotation",
]


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber("secret-shapes")


@pytest.mark.parametrize(("text", "secret"), SECRETS, ids=[str(i) for i in range(len(SECRETS))])
def test_every_secret_shape_is_removed(scrubber, text, secret):
    """A credential in any of the listed shapes (provider key, key=value, YAML, JSON, connection string,
    CLI flag, header, URL, prose, card grouping) is not in the scrubbed text."""
    assert secret not in scrubber.scrub_text(text)


@pytest.mark.parametrize("text", BUSINESS, ids=[str(i) for i in range(len(BUSINESS))])
def test_business_text_near_credential_words_is_unchanged(scrubber, text):
    """Token budgets, cache and primary keys, digests, ids and policy text next to "key", "token",
    "secret" or "password" come back exactly as written."""
    assert scrubber.scrub_text(text) == text


def test_more_provider_token_formats_are_removed(scrubber):
    """Vault, Doppler, Atlassian, Linear, Shopify, Hugging Face, Telegram, Groq and Google OAuth tokens go wherever they appear."""
    values = (
        "hvs.CAESIR7kD2mWq9TzX4vLp8NcB3hYaQe",
        "dp.st.dev.Lm4Rq8Tz2Vx6Bn1Cw5Ey9Uj3Hf7Sd0Ag",
        "ATATT3xFfGF0Rq8Tz2Vx6Bn1Cw5Ey9Uj3Hf7Sd0Ag4Km8Np2Qs6Tu0Wy4Za8Cd2=9F3E1A7B",
        "lin_api_Rq8Tz2Vx6Bn1Cw5Ey9Uj3Hf7Sd0Ag4Km8Np2Q",
        "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",
        "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",
        "6012345678:AAEr8Tz2Vx6Bn1Cw5Ey9Uj3Hf7Sd0Ag4Km",
        "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",
        "ya29.a0Af_Rq8Tz2Vx6Bn1Cw5Ey9Uj3Hf7Sd0",
    )
    out = scrubber.scrub_text("Rotate these before Friday: " + " / ".join(values))
    assert [value for value in values if value in out] == []


def test_a_second_credential_on_a_line_is_found_from_its_own_key_word(scrubber):
    """After one key on a line, a token after a later credential word ("shared secret …") is removed too."""
    text = "Partner app: admin token in vault; shared secret Vq7Lm2Rz9Tx4Bn8Kw3Yc6Pd1"
    assert "Vq7Lm2Rz9Tx4Bn8Kw3Yc6Pd1" not in scrubber.scrub_text(text)


def test_a_cookie_whose_name_ends_in_token_and_a_spelled_out_passphrase_are_removed(scrubber):
    """ "xsrftoken=…" is a credential, and a letters-only passphrase after "is" goes unless it is an English word."""
    text = "Cookie: lang=en; xsrftoken=Pq3Rs7Tu1Vw5Xy9Za2Bc6De0F\nThe vault passphrase is mauvegiraffelantern."
    out = scrubber.scrub_text(text)
    assert "Pq3Rs7Tu1Vw5Xy9Za2Bc6De0F" not in out and "mauvegiraffelantern" not in out
    assert scrubber.scrub_text("The password is incorrect; the passphrase was reset.") == (
        "The password is incorrect; the passphrase was reset."
    )


def test_a_notion_internal_integration_secret_is_removed_without_a_key_word(scrubber):
    """A Notion integration secret (``secret_`` and 43 letters and digits, mostly letters) goes in prose; a shorter
    ``secret_`` identifier in code stays."""
    token = "secret_pRfKTq4LzWvNbYeHs2mXgDcUaJ9tEwQoVnBiyZrKa7M"
    text = f"Wiki sync uses {token} for now. Rename secret_rotation_days in config.py."
    out = scrubber.scrub_text(text)
    assert token not in out and "secret_rotation_days in config.py" in out


def test_docker_and_perplexity_tokens_are_removed_without_a_key_word(scrubber):
    """A Docker Hub access token (``dckr_pat_…``) piped to ``docker login`` and a Perplexity key in its
    mixed-case form go, though no credential word names them."""
    docker = "dckr_pat_Qm7xTz2LwKp9RvNe4HbYsUa0Cj"
    perplexity = "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"
    text = f"$ echo {docker} | docker login -u ci-robot --password-stdin\nLLM = '{perplexity}'"
    out = scrubber.scrub_text(text)
    assert docker not in out and perplexity not in out
    assert "docker login -u ci-robot --password-stdin" in out


def test_redis_cli_auth_in_an_exec_array_is_removed(scrubber):
    """``redis-cli -a X`` written as an exec array (a compose healthcheck) gives a password too."""
    text = 'healthcheck:\n  test: ["CMD", "redis-cli", "-h", "cache", "-a", "Tq4vR9zLm2Xw", "ping"]'
    out = scrubber.scrub_text(text)
    assert "Tq4vR9zLm2Xw" not in out and '"redis-cli", "-h", "cache", "-a", "' in out


def test_a_public_key_is_no_secret(scrubber):
    """The value of a key named a public key (``verifier_public_key``) is published on purpose and stays."""
    text = '{"verifier_public_key": "MCowBQYDK2VwAyEAq1Zx9Wv8Ut7Sr6Qp5On4Ml3Kj2Ih1Gf0EdCbA9z8Y7=", "alg": "Ed25519"}'
    assert scrubber.scrub_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "      DB_PASSWORD: ${APP_DB_PASSWORD:?must be set}",
        "      ~ password     = (sensitive value)",
        'ANTHROPIC_API_KEY = os.environ["ANTHROPIC_API_KEY"]',
        "const token = process.env.NPM_TOKEN;",
    ],
)
def test_references_to_a_secret_stay(scrubber, text):
    """A shell default (``${VAR:?message}``), Terraform's ``(sensitive value)`` and code that reads the
    secret from the environment name no secret: the text stays byte for byte."""
    assert scrubber.scrub_text(text) == text
