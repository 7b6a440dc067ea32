"""The ``handoff`` command line: a thin layer over the library.

Each feature area defines its commands in its own module and is registered below.
"""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="handoff-trace")
def main() -> None:
    """Record and investigate the edges of LLM and agent pipelines.

    Example:

        handoff demo && handoff runs list
    """


def _register() -> None:
    # One block per feature area: import its module, add its commands.
    from handoff.cli import demo as _demo

    main.add_command(_demo.demo)

    from handoff.cli import runs as _runs

    main.add_command(_runs.runs)
    main.add_command(_runs.show_content_command)

    from handoff.cli import store as _store

    for _command in (_store.status, _store.compact_command, _store.fsck_command):
        main.add_command(_command)

    from handoff.cli import ddl as _ddl

    main.add_command(_ddl.ddl_command)

    from handoff.cli import investigate as _investigate

    for _command in _investigate.COMMANDS:
        main.add_command(_command)

    from handoff.cli import scrub as _scrub

    main.add_command(_scrub.scrub_test)

    from handoff.cli import retention as _retention

    for _command in (_retention.retention, _retention.pin_command, _retention.unpin_command):
        main.add_command(_command)

    from handoff.cli import replay as _replay

    main.add_command(_replay.replay_command)

    from handoff.cli import ui as _ui

    main.add_command(_ui.ui_command)


_register()
