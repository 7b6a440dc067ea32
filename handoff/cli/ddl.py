"""``handoff ddl``: the store's tables and views for Spark, Trino or Athena."""

from __future__ import annotations

import click

from handoff.cli._common import errors_as_click

_DIALECTS = ("spark", "trino", "athena")


@click.command("ddl")
@click.argument("dialect", type=click.Choice(_DIALECTS))
@click.option(
    "--store",
    "store_url",
    default=None,
    metavar="URL",
    help="Store root to write into the DDL (s3://bucket/prefix or a directory); default: keep ${HANDOFF_STORE}.",
)
def ddl_command(dialect: str, store_url: str | None) -> None:
    """Print the external tables and deduplicated views (handoffs, runs, edges, checks, ...) for DIALECT.

    The same SQL ships as deploy/sql/<dialect>.sql with ${HANDOFF_STORE} for the store root;
    --store fills it in (Spark gets s3a:// for an s3:// store). Columns, types and the dedup rule
    are in docs/schema.md.

    Example:

        handoff ddl athena --store s3://acme-traces/prod > handoff-athena.sql
    """
    from handoff.queries.ddl import PLACEHOLDER, render, root_for

    with errors_as_click():
        root = PLACEHOLDER if store_url is None else root_for(store_url, dialect)
        click.echo(render(dialect, root), nl=False)
