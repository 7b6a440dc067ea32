"""Option decorators shared by every ``handoff`` command."""

from __future__ import annotations

import click

store_option = click.option(
    "--store",
    "store_url",
    envvar="HANDOFF_STORE",
    default=None,
    metavar="URL",
    help="Store root: a directory or s3://bucket/prefix (env HANDOFF_STORE, default ./.handoff).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
markdown_option = click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown for an incident ticket.")
since_option = click.option(
    "--since", default="24h", show_default=True, metavar="DURATION", help="Look back this far (s, m, h, d units)."
)
