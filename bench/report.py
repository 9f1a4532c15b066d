"""bench/results/report.md from the results dict: one function per section, each returning its
lines (none when its step did not run), so a section can be read, tested and changed alone.

Every latency cell is "median (min–max)" over the passes (bench/stats.py), and every section
that times something says the load average at the start of each pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench import compare_ctags, measure_languages
from bench import quality as q
from bench.fmt import f1, f2, loads, ratio, ratio_spread, spread, verdict
from bench.goals import bottlenecks, goals
from bench.stats import per_pass_ratio, per_pass_value_ratio

Lines = list[str]

LATENCY_HEAD = ["| request | n per pass | p50 ms | p95 ms | max ms |", "|---|---:|---:|---:|---:|"]


def latency_row(label: str, fig: dict[str, Any]) -> str:
    return (f"| {label} | {fig['n']} | {spread(fig['p50_ms'])} | {spread(fig['p95_ms'])} | "
            f"{spread(fig['max_ms'])} |")


def load_line(values: list[float] | None) -> str:
    return f"Load average (1 min) at the start of each pass: {loads(values)}."


def header(r: dict[str, Any]) -> Lines:
    m = r["machine"]
    return [
        "# kebab-lsp benchmark", "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, Python "
        f"{m['python']}, {m['os']}. Date: {m['date']}. Run took {r['wall_s'] / 60:.1f} min"
        f"{' (KEBAB_BENCH_QUICK smoke run)' if r['quick'] else ''}.", "",
        f"Every latency figure is measured in {r['passes']} passes, each with its own p50 and "
        "p95 (nearest rank: the value at rank ⌈p/100 · n⌉ of the n sorted timings). Cells show "
        "the median of the passes and their range, \"median (min–max)\"; a goal is met only "
        "when every pass meets it. Steps that start from cold (index, embed, a folder indexed "
        f"inside the server) run {r['cold_passes']} time(s). The load average counts other jobs "
        "on this machine and the bench's own processes.", "",
    ]


def corpora_section(r: dict[str, Any]) -> Lines:
    out = ["## Corpora (pinned, from the package registries)", "",
           "| corpus | language | files in tree | MB in tree |", "|---|---|---:|---:|"]
    out += [f"| {c['corpus']} | {c['lang']} | {c['tree_files']:,} | {c['tree_mb']:.1f} |"
            for c in r.get("index") or []]
    return [*out, ""]


def index_section(r: dict[str, Any]) -> Lines:
    if not r.get("index"):
        return []
    out = ["## Index (in-process `Indexer`, child process per corpus, default workers)", "",
           "| corpus | indexed files | skipped | symbols | chunks | cold lexical s | files/s "
           "| MB/s | no-change re-index s | peak RSS MB (main / pool max) "
           "| index MB vs indexed MB |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for c in r["index"]:
        out.append(
            f"| {c['corpus']} | {c['files']:,} | {c['skipped']:,} | {c['symbols']:,} | "
            f"{c['chunks']:,} | {spread(c['cold_s'], digits=2)} | "
            f"{spread(c['files_per_s'])} | {spread(c['mb_per_s'], digits=2)} | "
            f"{spread(c['reindex_s'], digits=2)} ({len(c['reindex_s']['passes'])} runs) | "
            f"{spread(c['peak_rss_self_mb'])} / {spread(c['peak_rss_children_mb'])} | "
            f"{c['index_mb']:.1f} vs {c['indexed_mb']:.1f} "
            f"({ratio(c['index_mb'], c['indexed_mb'])}) |")
    out += ["", "files/s counts scanned files (skips included); MB/s counts the bytes of indexed "
            "files. " + load_line(r["index"][0].get("load")), ""]
    return out


def embedding_section(r: dict[str, Any]) -> Lines:
    e = r.get("embedding")
    if not e:
        return []
    return [
        "## Embedding (separate from the lexical index)", "",
        f"A fixed sample of {e['sample']:,} chunks of the main tree (seed {r['seed']}), "
        f"{e['threads']} onnxruntime thread(s) on both sides, passes alternating kebab and "
        f"bare; model load {e['load_s']:.1f} s. {load_line(e.get('pass_load'))}", "",
        "| | seconds | chunks/s |", "|---|---:|---:|",
        f"| kebab `Embedder.embed` | {spread(e['ours_s'])} | {spread(e['ours_chunks_per_s'])} |",
        "| bare onnxruntime + tokenizers loop (length-sorted batches of 32) | "
        f"{spread(e['bare_s'])} | {spread(e['bare_chunks_per_s'])} |", "",
        f"Ratio kebab / bare, pass by pass: **{spread(e['ratio'], '×', 2)}** (min cosine "
        f"between the two vector sets {e['min_cosine_vs_bare']:.4f}). **Extrapolated, not "
        f"measured:** embedding all {e['total_chunks']:,} chunks of the main tree at this rate "
        f"takes about {e['extrapolated_full_s']['median'] / 60:.0f} min.", "",
    ]


def cli_section(r: dict[str, Any]) -> Lines:
    c = r.get("cli")
    if not c:
        return []
    out = [f"## The command line: questions in words, no-change index ({c['corpus']})", "",
           "Each command is a fresh process; each pass starts with one untimed run (byte code "
           "compiled, page cache warm). `kebab search` runs in `auto` mode; query plans seen: "
           f"{', '.join(c['search']['plans'])}. {load_line(c['search'].get('pass_load'))}", "",
           "| command | n per pass | p50 ms | p95 ms | max ms |", "|---|---:|---:|---:|---:|",
           latency_row("`kebab search` a question in words (-k 10)", c["search"])]
    if c.get("rg"):
        out.append(latency_row("`rg -i -l -F` its longest word", c["rg"]))
    out += [latency_row(f"`kebab index`, nothing changed ({c['noop_index']['files']:,} files)",
                        c["noop_index"]),
            latency_row("`kebab index --no-embed`, nothing changed", c["noop_index_no_embed"]),
            ""]
    if c.get("rg"):
        by_pass = ratio_spread(per_pass_ratio(c["search"], c["rg"]))
        out += [f"kebab / rg (p50, pass by pass): {by_pass}; rg finds files containing a word, "
                "kebab ranks definitions by meaning.", ""]
    if c["search"]["warnings"]:
        out += [f"Warnings seen: {'; '.join(c['search']['warnings'])}", ""]
    e = c.get("cold_embed")
    if e:
        out += [
            "### A cold embed of the same tree", "",
            f"`kebab index` in a fresh index (lexical {spread(e['lexical_s'], ' s')}), then the "
            f"vector sync, {e['threads']} onnxruntime thread(s): {e['chunks']:,} chunks "
            f"({e['embedded']:,} embedded, {e['from_cache']:,} duplicates from the cache) at "
            f"{spread(e['chunks_per_s'])} chunks/s. Times from the start of the sync (model load "
            f"included), {len(e['t100_s']['passes'])} cold run(s). "
            f"{load_line(e.get('pass_load'))}", "",
            "| 50% of chunks | 100% of chunks | all documented definitions "
            f"({e['documented_definitions']:,}, embedded first) |", "|---:|---:|---:|",
            f"| {spread(e['t50_s'], ' s')} | {spread(e['t100_s'], ' s')} | "
            f"{spread(e['t_documented_s'], ' s')} |", ""]
    return out


def server_section(r: dict[str, Any]) -> Lines:
    s = r.get("server")
    if not s:
        return []
    out = [
        "## Latency through the real server (`kebab-lsp` over stdio, main tree)", "",
        f"Server settings: `workers: {s['workers']}`, `debounce_ms: 0`, embeddings off. Warm "
        f"start on the built index (incremental scan until `building` is false): "
        f"{s['warm_start_s']:.2f} s. {s['status']['files']:,} files, "
        f"{s['status']['symbols']:,} symbols, {s['status']['chunks']:,} chunks. Times are client "
        f"round trips. {s['passes']} interleaved passes on one server, each query set once per "
        f"pass after 3 untimed requests; didSave passes each start with one untimed edit. "
        f"{load_line(s.get('pass_load'))}", "",
        *LATENCY_HEAD,
        latency_row("workspace/symbol, exact names", s["symbol_exact"]),
        latency_row("workspace/symbol, lower-case fragments", s["symbol_fuzzy"]),
        latency_row("kebab/search lexical", s["search_lexical"]),
        latency_row("kebab/search auto", s["search_auto"]),
        latency_row('kebab/search `"exact text"` (k=500)', s["exact"]["ours"]),
        *([latency_row("kebab/references by name (k=50)", s["references"])]
          if s.get("references") else []),
        latency_row("didSave → new symbol visible", s["did_save"]),
        *([latency_row(f"kebab/search lexical, {s['search_after_saves']['pause_s']:.0f} s after "
                       "the didSave passes", s["search_after_saves"])]
          if s.get("search_after_saves") else []), ""]
    for mode in ("lexical", "auto"):
        v = s[f"search_{mode}"]
        out.append(f"- `{mode}` slowest queries (worst pass): {', '.join(v['slowest'])}")
        if v["warnings"]:
            out.append(f"- `{mode}` warnings seen: {'; '.join(v['warnings'])[:300]}")
    if s["did_save"]["notes"]:
        out.append(f"- didSave notes: {'; '.join(s['did_save']['notes'])}")
    return [*out, ""]


def background_section(r: dict[str, Any]) -> Lines:
    s = r.get("server") or {}
    b = s.get("background")
    if not b:
        return []
    out = [
        "### The same while a cold index runs in the background", "",
        "Each pass gives the same server a second workspace folder (a fresh copy of the main "
        "tree, so its index is cold) via `workspace/didChangeWorkspaceFolders`; queries on the "
        "first folder run in a loop until `kebab/status` says nothing is building, then the "
        "folder is removed. workspace/symbol answers for both folders, as an editor would see "
        "it. One didSave in the first folder is sent as the cold index starts. "
        f"{load_line(b.get('pass_load'))}", "",
        f"Cold index of the copy inside the server: {spread(b['cold_index_in_server_s'], ' s')} "
        f"over {b['passes']} pass(es); query rounds per pass: "
        f"{', '.join(str(n) for n in b['rounds'])} (while building: "
        f"{', '.join(str(n) for n in b['rounds_while_building'])}). The save became visible "
        f"after {spread(b['save_visible_s'], ' s', 2)}.", "",
        "| request | n per pass | p50 ms | p95 ms | max ms | p95 vs idle (pass by pass) |",
        "|---|---:|---:|---:|---:|---:|"]
    for label, v, idle in (("workspace/symbol", b["symbol"], s["symbol_exact"]),
                           ("kebab/search lexical", b["search_lexical"], s["search_lexical"]),
                           ("kebab/search auto", b["search_auto"], s["search_auto"])):
        out.append(f"{latency_row(label, v)[:-1]}| "
                   f"{ratio_spread(per_pass_ratio(v, idle, 'p95_ms'))} |")
    return [*out, ""]


def pool_probe_section(r: dict[str, Any]) -> Lines:
    p = r.get("pool_probe")
    if p is None:
        return []
    status = (f"OK: {p['files']} files in {p['seconds']:.1f} s" if p["ok"]
              else f"**Hung**: {p['detail']}")
    return ["### Server cold index with default `workers` (process pool)", "", status, ""]


def peers_exact_section(r: dict[str, Any]) -> Lines:
    s = r.get("server")
    if not s:
        return []
    ex = s["exact"]
    out = ["## Peers on the same tree, same run", "",
           "### Exact text: kebab `\"quoted\"` search vs ripgrep `rg -F -l`", "",
           f"{ex['queries']} distinctive source lines (seed {r['seed']}), kebab and rg query by "
           f"query. Recall of kebab against rg, over files kebab indexes: **{f1(ex['recall'])}**"
           f"{' — missed: ' + '; '.join(ex['missed']) if ex['missed'] else ''}. rg matched "
           f"{ex['rg_files_not_indexed']} file(s) that the index skips by design. "
           f"{load_line(ex.get('pass_load'))}", ""]
    if ex["rg"]:
        out += ["| | p50 ms | p95 ms |", "|---|---:|---:|",
                f"| kebab (server round trip) | {spread(ex['ours']['p50_ms'])} | "
                f"{spread(ex['ours']['p95_ms'])} |",
                f"| rg (process, whole tree) | {spread(ex['rg']['p50_ms'])} | "
                f"{spread(ex['rg']['p95_ms'])} |",
                f"| ratio kebab / rg (p50, pass by pass) | "
                f"{ratio_spread(per_pass_ratio(ex['ours'], ex['rg']))} | |", ""]
    return out


def peers_symbols_section(r: dict[str, Any]) -> Lines:
    s, ct, py = r.get("server"), r.get("ctags"), r.get("pyright")
    if not (s or ct or py):
        return []
    out = ["### Exact-name symbol lookup", "",
           f"Names defined exactly once in non-test Python code (seed {r['seed']}); top-1 "
           "correct = first result has that name and is in the defining file.", "",
           "| tool | n per pass | p50 ms | p95 ms | top-1 | found in results | cold cost |",
           "|---|---:|---:|---:|---:|---:|---|"]
    if s:
        v = s["symbol_exact"]
        out.append(f"| kebab workspace/symbol | {v['n']} | {spread(v['p50_ms'])} | "
                   f"{spread(v['p95_ms'])} | {v['top1']:.2f} | {v['found']:.2f} | "
                   "index built above |")
    if ct:
        v = ct["lookup"]
        out.append(f"| universal-ctags + readtags | {v['n']} | {spread(v['p50_ms'])} | "
                   f"{spread(v['p95_ms'])} | {ct['top1']:.2f} | {ct['found']:.2f} | `ctags -R` "
                   f"{spread(ct['build_s'], ' s')}, {ct['tags_mb']:.1f} MB |")
    if py and "error" not in py:
        v = py["lookup"]
        out.append(f"| pyright {py['version']} workspace/symbol | {v['n']} | "
                   f"{spread(v['p50_ms'])} | {spread(v['p95_ms'])} | {py['top1']:.2f} | "
                   f"{py['found']:.2f} | first non-empty answer after "
                   f"{f1(py['first_answer_s'], ' s')} |")
    elif py:
        out.append(f"| pyright | – | – | – | – | – | {py['error']} |")
    out.append("")
    if s and (ct or (py and "error" not in py)):
        ratios = []
        if ct:
            ratios.append("kebab / readtags "
                          f"{ratio_spread(per_pass_ratio(s['symbol_exact'], ct['lookup']))}")
        if py and "error" not in py:
            ratios.append("kebab / pyright "
                          f"{ratio_spread(per_pass_ratio(s['symbol_exact'], py['lookup']))}")
        out += [f"Ratios (p50, pass by pass): {'; '.join(ratios)}.", ""]
    loads_by_tool = [f"{name} {loads(v.get('pass_load'))}" for name, v in
                     (("readtags", ct), ("pyright", py)) if v and v.get("pass_load")]
    if loads_by_tool:
        out += [f"Load average (1 min) at the start of each pass: {'; '.join(loads_by_tool)}.",
                ""]
    if py and py.get("notes"):
        out += [f"pyright notes: {'; '.join(py['notes'])}", ""]
    return out


def team_store_section(r: dict[str, Any]) -> Lines:
    """The embedded index and a team index side by side (bench/team_store.py)."""
    t = r.get("team_store")
    if not t:
        return []
    index, lat = t["index"], t["latency"]
    sq, pg = lat["sqlite"], lat["postgresql"]
    index_ratio = per_pass_value_ratio(index["postgresql"]["seconds"], index["sqlite"]["seconds"])
    where = ("a throwaway server on this machine, sharing its cores with the bench and the "
             "clients" if t.get("throwaway_server") else "the database given")
    out = [f"## Team index: SQLite against PostgreSQL ({t['corpus']})", "",
           f"The same tree indexed into the embedded SQLite index and into one repository of a "
           f"team index on {t['server']} ({where}; no network between client and server). "
           f"Cold indexes: {t['cold_passes']} per backend, alternating, each into a fresh "
           f"index (wall time of the same `Indexer.index`, default workers). Queries: "
           f"{t['queries']['words']} words of definition names and {t['queries']['exact']} "
           f"`\"exact text\"` source lines, `kebab/search` lexical in-process, {t['passes']} "
           f"interleaved passes, each run after {t['warmup']} untimed searches. "
           f"{load_line(lat.get('pass_load'))} The backends rank differently (`meta.score` "
           "names each one's kind), so this compares speed, not the order of the hits.", "",
           "| | SQLite (embedded) | PostgreSQL (team index) | PostgreSQL / SQLite (pass by "
           "pass) |", "|---|---:|---:|---:|",
           f"| cold index, s ({index['sqlite']['files']:,} / "
           f"{index['postgresql']['files']:,} files) | "
           f"{spread(index['sqlite']['seconds'], digits=2)} | "
           f"{spread(index['postgresql']['seconds'], digits=2)} | "
           f"{ratio_spread(index_ratio)} |",
           f"| files/s | {spread(index['sqlite']['files_per_s'])} | "
           f"{spread(index['postgresql']['files_per_s'])} | |"]
    for kind, label in (("words", "words"), ("exact", "exact text")):
        for stat in ("p50_ms", "p95_ms"):
            out.append(f"| {label} {stat[:3]} ms | {spread(sq[kind][stat])} | "
                       f"{spread(pg[kind][stat])} | "
                       f"{ratio_spread(per_pass_ratio(pg[kind], sq[kind], stat))} |")
    out += [""]
    agree = lat.get("exact_agreement")
    if agree:
        out += [f"Exact text is grep's on both backends: the same lines (up to {agree['k']} "
                f"hits) for **{agree['same']} of {agree['queries']}** queries"
                + (f"; differing: {'; '.join(agree['differ'])}" if agree["differ"] else "")
                + "."]
    out += [f"Load average (1 min) at the start of each cold index pass: "
            f"{loads(index.get('pass_load'))}.", ""]
    c = t.get("concurrent")
    if c:
        load_pairs = ", ".join(f"{f2(a)} → {f2(b)}" for a, b in
                               zip(c["load_before"], c["load_after"], strict=False))
        out += [f"### {c['clients']} clients at once against one PostgreSQL", "",
                f"{c['clients']} client processes, each with its own connection, started once; "
                f"each pass starts them together and lasts {f1(c['seconds'])} s, each client "
                "asking the word and exact queries in turn. Searches per second: each client's "
                "own rate over its run, summed. Latency is per search, over every client's "
                "searches of the pass, and includes the client's own Python work (snippets, "
                "citations) on the same cores as the server.", "",
                "| clients | searches per pass | searches/s | p50 ms | p95 ms | max ms |",
                "|---:|---|---:|---:|---:|---:|",
                f"| {c['clients']} | {', '.join(f'{n:,}' for n in c['searches'])} | "
                f"{spread(c['per_second'])} | {spread(c['latency']['p50_ms'])} | "
                f"{spread(c['latency']['p95_ms'])} | {spread(c['latency']['max_ms'])} |", "",
                f"Load average (1 min) before → after each pass: {load_pairs}.", ""]
    return out


def goals_section(r: dict[str, Any]) -> Lines:
    rows = goals(r)
    if not rows:
        return []
    out = ["## Goals", "", "A goal is met only when every pass meets it.", "",
           "| goal | figure: median (min–max) | verdict |", "|---|---|---|"]
    out += [f"| {g.label} | {g.figure} | {verdict(g.met)} |" for g in rows]
    return [*out, ""]


def quality_section(r: dict[str, Any]) -> Lines:
    runs = r.get("quality")
    if not runs:
        return []
    out = [
        "## Quality (`kebab eval`, next to a plain baseline, same trees, questions and model)", "",
        "Sets: **name** (exact definition names), **fuzzy** (initials and fragments), **nl** "
        "(the first sentence of a docstring, answered by its definition; seed 7), "
        "**nl_blanked** (the same queries on a copy of the tree whose doc text is blanked: the "
        "honest test of search by meaning), **hand** (hand-written developer questions, "
        "`bench/questions/`), **exact** (string literals, answered by every file containing "
        "them). The baseline: one chunk per definition with its doc comment, class header "
        "chunks, 50-line gap chunks, code files only; dense = path and name words + chunk text "
        "at 256 tokens; bm25 = OR of the query's words without stopwords; hybrid = RRF k=60 "
        "over the top 100 of each (search/baseline.py). Cells are MRR@10 (exact: recall@50). "
        "Ranking does not vary between runs, so this runs once; its latency is in-process, one "
        "pass, from `kebab eval`. Each goal shows Δ, the mean per-question difference, with "
        "its 95% paired bootstrap interval over the set's questions (10,000 resamples, seed "
        "7): \"within noise\" when the interval holds zero, so the draw of questions alone "
        "could explain the gap. The verdict is the plain comparison either way.", ""]
    losses: list[str] = []
    for run in runs:
        out += quality_corpus(run, losses)
    goals = [g for run in runs for g in q.quality_goals(run["report"]["sets"])]
    missed = [g for g in goals if not g.met]
    beyond = sum(1 for g in missed if g.noise is not None and g.noise.beyond_noise)
    if goals:
        out += [f"Goals met: {len(goals) - len(missed)} of {len(goals)}; of the "
                f"{len(missed)} missed, {beyond} by more than the noise of their set.", ""]
    out += ["Where kebab loses: " + ("; ".join(losses) if losses else "nowhere in this run")
            + ".", ""]
    return out


def quality_corpus(run: dict[str, Any], losses: list[str]) -> Lines:
    """One corpus's tables and goals; appends the goals it misses to `losses`."""
    sets = run["report"]["sets"]
    out = [f"### {run['corpus']} ({run['seconds']:.0f} s)", "",
           "| set | n | " + " | ".join(q.COLUMNS) + " | workspace/symbol |",
           "|---|---:|" + "---:|" * (len(q.COLUMNS) + 1)]
    for set_name, modes in sets.items():
        metric = "recall@50" if set_name == "exact" else "mrr@10"
        cells = [f"{modes[c][metric]:.3f}" if c in modes else ""
                 for c in (*q.COLUMNS, "workspace_symbol")]
        n = next(iter(modes.values()))["n"]
        out.append(f"| {set_name} | {n} | " + " | ".join(cells) + " |")
    files = sets.get("file", {})
    grouped = [f"{m} {files['files_' + m]['mrr@10']:.3f}" for m in q.MODES
               if "files_" + m in files]
    if grouped:
        out += ["", "file set, ranked as the `files` group of a grouped answer (the files of "
                "the hits fused with the file vector channel), MRR@10: " + ", ".join(grouped)
                + "."]
    out += ["", "| set | mode | p50 ms | p95 ms |", "|---|---|---:|---:|"]
    for set_name in ("nl", "hand"):
        for mode in q.MODES:
            v = sets.get(set_name, {}).get(mode)
            if v:
                out.append(f"| {set_name} | {mode} | {v['p50_ms']:.1f} | {v['p95_ms']:.1f} |")
    out.append("")
    for g in q.quality_goals(sets):
        out.append(f"- {g.set}: {g.what}: {g.judged()} → {verdict(g.met)}")
        if not g.met:
            losses.append(f"{run['key']} {g.set}: {g.what}: {g.judged()}")
    name = sets.get("name") or {}
    if "auto" in name and "workspace_symbol" in name:
        auto, ws = name["auto"]["hit@1"], name["workspace_symbol"]["hit@1"]
        out.append(f"- name Hit@1 ≥ 0.95 (auto {auto:.2f}, workspace/symbol {ws:.2f}) → "
                   f"{verdict(max(auto, ws) >= 0.95)}")
    if sets.get("exact", {}).get("lexical", {}).get("n"):
        rec = sets["exact"]["lexical"]["recall@50"]
        out.append(f"- exact recall = 1.0: {rec:.2f} → {verdict(rec == 1.0)}")
    return [*out, ""]


def synthetic_section(r: dict[str, Any]) -> Lines:
    syn = r.get("synthetic_symbols")
    if not syn or "all" not in syn:
        return []
    out = ["## Synthetic matcher (bench/bench_symbols.py, in-process, no LSP)", "",
           f"{syn['symbols']:,} synthesized symbols, matcher built in {syn['build_ms']:,.0f} ms; "
           f"each query {syn['repeats']}× per pass.", "",
           "| query | matches, first result | p50 ms | p95 ms |", "|---|---|---:|---:|",
           f"| all queries | | {spread(syn['all']['p50_ms'])} | {spread(syn['all']['p95_ms'])} |"]
    for query, fig in syn["queries"].items():
        out.append(f"| `{query}` | {syn['found'][query]} | {spread(fig['p50_ms'])} | "
                   f"{spread(fig['p95_ms'])} |")
    return [*out, ""]


def languages_section(r: dict[str, Any]) -> Lines:
    out: Lines = []
    if r.get("languages"):
        out += ["## Grammars: tree-sitter-language-pack against the per-language wheels "
                "(bench/measure_languages.py)", "",
                "CPU seconds of `extract` in a child process per side, the same files, passes "
                "alternating; the goal is at most 10% slower in every language.", "",
                measure_languages.report(r["languages"]), ""]
    if r.get("ctags_languages"):
        out += ["## Other languages against universal-ctags (bench/compare_ctags.py)", "",
                "A cold index of each tree against `ctags -R` on the same files; \"missed\" "
                "counts ctags definitions kebab has neither by name nor by line.", "",
                compare_ctags.report(r["ctags_languages"], 5), ""]
    return out


def bottlenecks_section(r: dict[str, Any]) -> Lines:
    items = bottlenecks(r, (r.get("server") or {}).get("workers", 1))
    if not items:
        return []
    return ["## Bottlenecks and problems seen", "", *(f"- {b}" for b in items), ""]


def steps_section(r: dict[str, Any]) -> Lines:
    steps = r.get("steps") or {}
    if not steps:
        return []
    out = ["## Steps", "", "| step | seconds | load average (1 min) before → after |",
           "|---|---:|---|"]
    out += [f"| {name} | {f1(v['seconds'])} | {f2(v['load_before'])} → {f2(v['load_after'])}"
            f"{' (skipped)' if v.get('skipped') else ''} |" for name, v in steps.items()]
    return [*out, ""]


SECTIONS: tuple[Callable[[dict[str, Any]], Lines], ...] = (
    header, corpora_section, index_section, embedding_section, cli_section, server_section,
    background_section, pool_probe_section, peers_exact_section, peers_symbols_section,
    team_store_section, goals_section, quality_section, synthetic_section, languages_section,
    bottlenecks_section,
    steps_section,
)


def render(r: dict[str, Any]) -> str:
    return "\n".join(line for section in SECTIONS for line in section(r))
