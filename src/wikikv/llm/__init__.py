"""LLM providers, prompts, the call cache and accounting.

Modules: ``types`` (the role-call protocol), ``base`` (the compile pipeline's provider
interface and its result structs), ``extractive`` (offline provider), ``prompts`` (versioned
prompts and schemas), ``page_prompt`` (the page role's request, shared with the dry run),
``openai_compat`` (HTTP provider), ``callcache`` (content-addressed response cache behind a small
storage protocol), ``estimate`` (dry-run estimates and budget caps), ``schema`` (output
validation with jsonschema), ``grounding`` (what of a page answer the source supports),
``scaffold`` (the schema role's answer checked against the bounds), ``query_roles``
(NeedsDeeper, the checked answer, the tie-break, section and corpus summaries).

This package imports neither the compiler nor the store (the LLM-backed compile provider is
:mod:`wikikv.compile.llm_provider`, the kb-backed cache storage
:mod:`wikikv.store.callcache_storage`); ``extractive`` is the one exception left. Import from the
submodules; this package imports nothing, so ``import wikikv`` stays light.
"""
