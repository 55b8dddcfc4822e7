"""The query layer: search, batch reads, drill-down and roll-up over a kb."""

from wikikv.query.ops import drill_down, parse_wikilinks, roll_up, wiki_read, wiki_search

__all__ = ["drill_down", "parse_wikilinks", "roll_up", "wiki_read", "wiki_search"]
