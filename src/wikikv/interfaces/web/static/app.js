// WikiKV browser: search as you type and the live nav stream. No framework, no build step.
// Data from the server is only ever inserted as text (textContent), never as markup.
"use strict";

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function setupSuggest() {
  const input = document.getElementById("q");
  const list = document.getElementById("suggest");
  if (!input || !list) return;
  let timer = null;
  let asked = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = input.value.trim();
      const mine = ++asked;
      if (!q) { list.hidden = true; list.replaceChildren(); return; }
      const url = input.dataset.suggest + "?q=" + encodeURIComponent(q);
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok || mine !== asked) return;  // a newer keystroke won
      const data = await response.json();
      list.replaceChildren(...data.hits.map((h) => {
        const li = el("li");
        const a = el("a", { href: h.url, class: "hit" }, h.title);
        li.append(a, el("span", { class: "muted" }, h.path));
        return li;
      }));
      list.hidden = data.hits.length === 0;
    }, 120);
  });
  document.addEventListener("click", (e) => { if (!list.contains(e.target)) list.hidden = true; });
}

async function runNav(form) {
  const q = document.getElementById("nav-q").value;
  const budget = document.getElementById("nav-budget").value;
  const results = document.getElementById("nav-results");
  const status = document.getElementById("nav-status");
  results.replaceChildren();
  status.textContent = "…";
  const url = form.dataset.stream + "?q=" + encodeURIComponent(q) + "&budget_ms=" + encodeURIComponent(budget);
  const response = await fetch(url, { credentials: "same-origin" });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffered += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, cut);
      buffered = buffered.slice(cut + 1);
      if (!line.trim()) continue;
      const item = JSON.parse(line);
      if (item.done) {
        status.textContent = status.dataset.done + " · " + item.elapsed_ms + " ms";
        continue;
      }
      const li = el("li", { class: "nav-result", "data-level": item.level,
                            "data-granularity": String(item.granularity),
                            "data-elapsed": String(item.elapsed_ms) });
      li.append(el("span", { class: "level" }, item.level),
                el("a", { href: item.url }, item.title || item.path),
                el("span", { class: "muted" }, " " + item.elapsed_ms.toFixed(2) + " ms"));
      const preview = el("div", { class: "muted" }, item.text.slice(0, 200));
      li.append(preview);
      results.append(li);
    }
    if (done) break;
  }
}

function setupNav() {
  const form = document.getElementById("nav-form");
  if (!form) return;
  form.addEventListener("submit", (e) => { e.preventDefault(); runNav(form); });
  if (document.getElementById("nav-q").value) runNav(form);
}

document.addEventListener("DOMContentLoaded", () => { setupSuggest(); setupNav(); });
