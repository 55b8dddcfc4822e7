"""Command modules of the ``wikikv`` CLI, one per area.

Each module ``wikikv.interfaces.commands.<area>`` exposes ``register(main: click.Group) -> None``
that adds its commands to the group, using the helpers in :mod:`wikikv.interfaces.common`
(``store_options``, ``json_option``, ``open_kb``, ``emit``). ``lazy.AREA_COMMANDS`` lists the
commands of each area, which are imported when first used.
"""
