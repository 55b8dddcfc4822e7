"""Full-text search over a kb's pages: tokenization (:mod:`wikikv.search.tokenize`), the in-store
index (:mod:`wikikv.search.index`) and BM25F ranking (:mod:`wikikv.search.ranking`)."""

from wikikv.search.index import IndexWriter, clear_index, index_page, remove_page
from wikikv.search.ranking import SearchHit, clear_caches, search

# Re-exported for callers that do ``from wikikv.search import tokenize``. Note that this binds the
# package attribute ``tokenize`` to the function, so reach the module with
# ``from wikikv.search.tokenize import ...`` (never ``import wikikv.search.tokenize as m``).
from wikikv.search.tokenize import query_terms, tokenize

__all__ = [
    "IndexWriter",
    "SearchHit",
    "clear_caches",
    "clear_index",
    "index_page",
    "query_terms",
    "remove_page",
    "search",
    "tokenize",
]
