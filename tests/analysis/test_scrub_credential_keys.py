"""Values of keys that name a credential, whatever their shape, in one-line and multi-line layouts
(Kubernetes env pairs, YAML blocks and mappings, JSON objects, .env, INI sections, HTTP headers, CLI
flags), written for these tests from issue 12's categories; and keys about credentials that must stay."""

from __future__ import annotations

import pytest

from handoff.analysis.scrub import Scrubber
from handoff.analysis.scrub.credentials import credential_key

SECRETS = [
    ('env:\n  - name: API_TOKEN\n    value: pl4inW0rdToken\n  - name: LOG_LEVEL\n    value: debug', 'pl4inW0rdToken'),
    ('env:\n- name: DB_PASSWORD\n  value: "s3cr3t pass!"', 's3cr3t pass!'),
    ('{"env": [{"name": "STRIPE_SECRET", "value": "abc12345zz"}]}', 'abc12345zz'),
    ('[\n  {\n    "name": "SERVICE_TOKEN",\n    "value": "tok-778-aa"\n  }\n]', 'tok-778-aa'),
    (
        "tls:\n  private_key: |\n    MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n    BKcwggSjAgEAAoIBAQC7\n  cert: x",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
    ),
    ('api_keys:\n  stripe: live-key-9921\n  mapbox: pk.xyz123abc\nregion: eu', 'live-key-9921'),
    ('credentials:\n  username: svc_batch\n  password: Winter2025\n', 'Winter2025'),
    ('{"credentials": {\n  "client_id": "app-1",\n  "client_secret": "qwerty-7788"\n}}', 'qwerty-7788'),
    ('payload = {"apiKey": "short1x", "user": "x"}', 'short1x'),
    ('DB_PASSWORD=hunter2\nAPP_ENV=prod', 'hunter2'),
    ('export GITHUB_TOKEN=abc123def\n', 'abc123def'),
    ('[database]\nhost = db.internal\npassword = P@ss w0rd 9\n', 'P@ss w0rd 9'),
    ('[credentials]\naws_access_key_id = AKIDEXAMPLE12\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n', 'wJalrXUtnFEMI/K7MDENG'),
    ('GET /v1/items HTTP/1.1\nHost: api.example.com\nX-Api-Key: 12ab34cd\nAccept: */*', '12ab34cd'),
    ('X-Auth-Token: zz99yy88xx', 'zz99yy88xx'),
    ('Authorization: Token 7788aabbccdd', '7788aabbccdd'),
    ('<config><password>m0nkey!</password></config>', 'm0nkey!'),
    ("client_secret: 'abc.def.123'", 'abc.def.123'),
    ('{"text": "config {\\"password\\": \\"Tr1cky!\\"} done"}', 'Tr1cky!'),
    ("smtp_pass = 'mailpass42'", 'mailpass42'),
    ('ConnectionString: Server=tcp:db1;Database=ops;User Id=sa;Password=Sq1!pw;', 'Sq1!pw'),
    ('redis-server --requirepass K7#q9z --port 6379', 'K7#q9z'),
    ('command: ["redis-server", "--requirepass", "K7#q9z"]', 'K7#q9z'),
    ("redis-cli -h h1 -p 6380 -a 'Zq2-8o5BJMdX' ping", 'Zq2-8o5BJMdX'),
    ('vault login -method=userpass username=ops password=Vl7!xx', 'Vl7!xx'),
    ('accessToken: ya29.a0AfH6SMBx', 'ya29.a0AfH6SMBx'),
    ('signing_key = 0f0f0f0f', '0f0f0f0f'),
    ('webhook:\n  secret: whk_2024_x\n', 'whk_2024_x'),
    ('pwd: 1234abcd', '1234abcd'),
    ('Password: letmein', 'letmein'),
    ('auth_token=u7Y6t5R4', 'u7Y6t5R4'),
    ('REDIS_AUTH: r3d1s-pw', 'r3d1s-pw'),
    ('$env:AZURE_CLIENT_SECRET = "Az~8Q.x"', 'Az~8Q.x'),
    ('set API_KEY=win-key-55', 'win-key-55'),
    ('token: |\n  abc\n  def9913\nnext: 1', 'def9913'),
]  # fmt: skip
KEPT = [
    'max_tokens: 4096\ntemperature: 0.2',
    'password_policy: min 12 chars\ntoken_url: https://login.example.com/oauth2/token',
    'auth_provider: okta\nauth: required\nsecret_name: prod-db-creds',
    'env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password',
    'password: ${DB_PASSWORD}\ntoken: {{ .Values.token }}\napi_key: <redacted>\nsecret: vault:kv/data/app#key',
    'Token usage: 1,240 prompt tokens and 312 completion tokens.',
    'The author signed on 2024-03-01.',
    'use_auth: true\nrequire_password: false',
    'password: str\ntoken: Optional[str] = None',
    'credentials:\n  username: svc_batch\n  region: eu-west-1\n',
    'DB_PASSWORD_FILE=/run/secrets/db_password',
    'Signature: ________________   Date: __________',
    'Token: USDC on Ethereum',
    'auth_method: oauth2\nsecret_rotation: 90 days',
    'WAREHOUSE_DSN=snowflake://loader@acct-eu.eu-central-1/RAW?warehouse=LOAD_WH',
    'run: tool --token-file /etc/tok --key-path ./k.pem --auth-type oauth2',
    'git push --force-with-lease origin main',
]  # fmt: skip


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber("credential-key-tests")


@pytest.mark.parametrize(("text", "secret"), SECRETS, ids=[str(i) for i in range(len(SECRETS))])
def test_value_of_a_credential_key_is_removed(scrubber, text, secret):
    """A value given to a key named like a credential never reaches the store, in any layout."""
    out = scrubber.scrub_text(text)
    assert secret not in out
    assert "<SECRET:" in out or "<PASSWORD:" in out or "<URL_CREDENTIAL:" in out or "<AUTH_TOKEN:" in out


@pytest.mark.parametrize("text", KEPT, ids=[str(i) for i in range(len(KEPT))])
def test_keys_about_credentials_and_references_are_unchanged(scrubber, text):
    """Token counts, policies, URLs, references (${VAR}, vault:, secretKeyRef), types and prose stay as written."""
    assert scrubber.scrub_text(text) == text


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("DB_PASSWORD", True), ("apiKey", True), ("x-auth-token", True), ("client_secret", True),
        ("api_keys", True), ("private_key_id", True), ("AZURE_STORAGE_CONNECTION_STRING", True),
        ("token_url", False), ("max_tokens", False), ("password_policy", False), ("auth_provider", False),
        ("secret_name", False), ("author", False), ("prompt_tokens", False), ("keyboard", False),
    ],
)  # fmt: skip
def test_credential_key_names(key, expected):
    """A key names a credential by its parts, not by a substring: "author" and "token_url" do not."""
    assert credential_key(key) is expected
