"""The browser's words in English and Chinese, and which one a request gets.

``?lang=zh|en`` picks (and a cookie remembers it); otherwise the first of ``Accept-Language``
that we have; otherwise English. Page text itself is shown as written, whatever the language.
"""

from __future__ import annotations

from starlette.requests import Request

LANGS = ("en", "zh")
LANG_COOKIE = "wikikv_lang"

_EN = {
    "wiki": "Wiki",
    "kbs": "Knowledge bases",
    "browse": "Browse",
    "search": "Search",
    "search_placeholder": "Search pages…",
    "nav": "Live nav",
    "audit": "Audit trail",
    "quality": "Quality report",
    "login": "Log in",
    "logout": "Log out",
    "api_key": "API key",
    "login_intro": "This wiki needs an API key (ask its administrator; `wikikv keys create`).",
    "login_open": "No API key is configured on this server: no login is needed.",
    "login_failed": "That key was not accepted.",
    "directories": "Directories",
    "pages": "Pages",
    "entries": "entries",
    "backlinks": "Backlinks",
    "no_backlinks": "No page links here.",
    "sources": "Sources",
    "aliases": "Aliases",
    "tags": "Tags",
    "kind": "Kind",
    "confidence": "Confidence",
    "updated": "Updated",
    "version": "Version",
    "redirected_from": "Redirected from",
    "cited_quote": "Cited quote",
    "source_document": "Source document",
    "chars": "characters",
    "no_results": "No results.",
    "query": "Question or keywords",
    "budget_ms": "Budget (ms)",
    "run": "Run",
    "level": "Level",
    "elapsed": "Elapsed",
    "time": "Time",
    "actor": "Who",
    "op": "Operation",
    "path": "Path",
    "detail": "Detail",
    "metric": "Metric",
    "value": "Value",
    "ok": "OK",
    "problems": "Problems",
    "examples": "Examples",
    "error": "Error",
    "language": "中文",
    "results_for": "Results for",
    "nav_intro": "Results stream in coarse to fine — overview, dimensions, pages, sources — "
    "until the budget runs out; any prefix is a usable answer.",
    "nav_done": "done",
    "path_prefix": "Path prefix",
    "filter": "Filter",
    "redirect": "redirect",
}

_ZH = {
    "wiki": "维基",
    "kbs": "知识库",
    "browse": "浏览",
    "search": "搜索",
    "search_placeholder": "搜索页面…",
    "nav": "实时导航",
    "audit": "审计记录",
    "quality": "质量报告",
    "login": "登录",
    "logout": "退出",
    "api_key": "API 密钥",
    "login_intro": "此维基需要 API 密钥（请向管理员索取；`wikikv keys create`）。",
    "login_open": "此服务器未配置 API 密钥，无需登录。",
    "login_failed": "密钥无效。",
    "directories": "目录",
    "pages": "页面",
    "entries": "条",
    "backlinks": "反向链接",
    "no_backlinks": "没有页面链接到这里。",
    "sources": "来源",
    "aliases": "别名",
    "tags": "标签",
    "kind": "类型",
    "confidence": "置信度",
    "updated": "更新时间",
    "version": "版本",
    "redirected_from": "重定向自",
    "cited_quote": "引用原文",
    "source_document": "原始文档",
    "chars": "字符",
    "no_results": "没有结果。",
    "query": "问题或关键词",
    "budget_ms": "预算（毫秒）",
    "run": "运行",
    "level": "层级",
    "elapsed": "耗时",
    "time": "时间",
    "actor": "操作者",
    "op": "操作",
    "path": "路径",
    "detail": "详情",
    "metric": "指标",
    "value": "值",
    "ok": "正常",
    "problems": "问题",
    "examples": "示例",
    "error": "错误",
    "language": "English",
    "results_for": "搜索结果：",
    "nav_intro": "结果由粗到细陆续到达——总览、维度、页面、来源——直到预算用完；任何前缀都是可用的答案。",
    "nav_done": "完成",
    "path_prefix": "路径前缀",
    "filter": "筛选",
    "redirect": "重定向",
}

STRINGS: dict[str, dict[str, str]] = {"en": _EN, "zh": _ZH}


def pick_lang(request: Request) -> str:
    asked = request.query_params.get("lang")
    if asked in LANGS:
        return asked
    remembered = request.cookies.get(LANG_COOKIE)
    if remembered in LANGS:
        return remembered
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh"
        if tag.startswith("en"):
            return "en"
    return "en"
