"""LLM providers: the offline extractive one (the default) and any OpenAI-compatible endpoint.

Modules: ``types`` (the role-call protocol), ``base`` (the compile pipeline's provider
interface), ``extractive`` (offline provider), ``prompts`` (versioned prompts and schemas),
``openai_compat`` (HTTP provider), ``callcache`` (content-addressed response cache),
``estimate`` (dry-run estimates and budget caps), ``schema`` (output validation with jsonschema).
Import from the submodules; this package imports nothing, so ``import wikikv`` stays light.
"""
