// End-to-end test of the kebab VS Code extension in a real VS Code (code-server 4.139.1 =
// VS Code 1.139.1) driven by headless Chromium through playwright-core, typing as a person
// does: F1 -> "Kebab: Search" -> query -> pick a row, Ctrl+T -> symbol -> pick, and a cursor or
// selection -> "Kebab: Find Usages" / "Kebab: Find Similar Code" -> pick a row, asserting the
// QuickPick's title, rows and separators, the opened tab and the status bar's "Ln X, Col Y".
//
// Run through test/run.sh (which runs test/setup.sh first). Prints "N passed, M failed" last
// and exits non-zero on any failure. Screenshots go to editors/vscode/.cache/screenshots/.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXT = path.dirname(HERE);
const REPO = path.resolve(EXT, '..', '..');
const CACHE = path.join(EXT, '.cache');
const SHOTS = path.join(CACHE, 'screenshots');
// The platform-specific VSIX that setup.sh built for this machine (server bundled).
const VSIX_DIR = path.join(CACHE, 'vsix');
const VSIX = process.env.KEBAB_VSIX
  || path.join(VSIX_DIR, fs.readdirSync(VSIX_DIR).find((f) => /^kebab-lsp-.*-(linux|darwin|win32)-\w+\.vsix$/.test(f)) ?? 'none.vsix');
const CODE_SERVER = path.join(CACHE, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
// Only for the version handshake check: a real server that reports an old version.
const REPO_PYTHON = path.join(REPO, '.venv', 'bin', 'python');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TOTAL_TIMEOUT_MS = Number(process.env.KEBAB_E2E_TIMEOUT_MS || 600_000);
// Only the checks whose name matches this regular expression (case-insensitive) run; the
// others are skipped and not counted. For iterating on a few checks; empty: all of them.
const ONLY = process.env.KEBAB_E2E_ONLY ? new RegExp(process.env.KEBAB_E2E_ONLY, 'i') : null;
const STEP_TIMEOUT_MS = 20_000;
const INDEX_TIMEOUT_MS = 90_000;

const { chromium } = createRequire(path.join(CACHE, 'playwright', 'package.json'))('playwright-core');

const started = Date.now();
const log = (msg) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${msg}`);

// ---------------------------------------------------------------- results and cleanup

const results = [];
const cleanups = [];
let finished = false;

async function cleanup() {
  while (cleanups.length) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch (err) {
      console.error(`cleanup: ${err?.message ?? err}`);
    }
  }
}

async function finish(code) {
  if (finished) return;
  finished = true;
  await cleanup();
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed + (code && results.every((r) => r.ok) ? 1 : 0);
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)}s; screenshots and logs in ${SHOTS}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

process.on('uncaughtException', (err) => {
  console.error(`e2e: uncaught ${err?.stack ?? err}`);
  finish(1);
});
process.stdout.on('error', () => {}); // a closed pipe must not skip the cleanup
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGPIPE']) {
  process.on(sig, () => {
    console.error(`e2e: got ${sig}`);
    finish(1);
  });
}
const deadline = setTimeout(() => {
  console.error(`e2e: the whole run exceeded ${TOTAL_TIMEOUT_MS / 1000}s`);
  finish(1);
}, TOTAL_TIMEOUT_MS);
deadline.unref();

// ---------------------------------------------------------------- helpers

function fail(message) {
  throw new Error(message);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitForHealthz(port, child, timeoutMs) {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    if (child.exitCode !== null) fail(`code-server exited early with code ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return await res.json();
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err.message;
    }
    await sleep(250);
  }
  fail(`code-server /healthz not ready after ${timeoutMs / 1000}s (${last})`);
}

let shotNo = 0;
async function shot(page, name) {
  shotNo += 1;
  const file = path.join(SHOTS, `${String(shotNo).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file }).catch((err) => log(`screenshot ${name} failed: ${err.message}`));
  return file;
}

/** Line and column (1-based, as VS Code's status bar shows them) of `needle` in `text`. */
function lineCol(text, needle) {
  const at = text.indexOf(needle);
  if (at < 0) fail(`fixture does not contain ${JSON.stringify(needle)}`);
  const before = text.slice(0, at).split('\n');
  return { line: before.length, col: before[before.length - 1].length + 1 };
}

// ---------------------------------------------------------------- the workspace under test

const FILES = {
  'src/billing/invoice.py': `"""Invoices and the totals printed on them."""

from dataclasses import dataclass


@dataclass
class LineItem:
    name: str
    price: float
    quantity: int


class InvoiceCalculator:
    """Adds up line items and applies the sales tax rate."""

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def compute_total_with_tax(self, items: list[LineItem]) -> float:
        subtotal = sum(item.price * item.quantity for item in items)
        return round(subtotal * (1 + self.rate), 2)
`,
  'src/net/retry.ts': `// Retrying flaky network calls.

export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
}

export async function retryWithExponentialBackoff<T>(
  call: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    try {
      return await call();
    } catch (err) {
      lastError = err;
      await new Promise((resolve) => setTimeout(resolve, options.baseDelayMs * 2 ** attempt));
    }
  }
  throw lastError;
}
`,
  'src/shipping/rates.go': `package shipping

// ShippingRate is what one parcel costs to send.
type ShippingRate struct {
	Zone  string
	Cents int
}

// CheapestShippingRate returns the lowest rate of those offered.
func CheapestShippingRate(rates []ShippingRate) ShippingRate {
	best := rates[0]
	for _, r := range rates[1:] {
		if r.Cents < best.Cents {
			best = r
		}
	}
	return best
}
`,
  // Two callers of compute_total_with_tax in two files (Find Usages), and two functions of the
  // same shape in two files (Find Similar Code).
  'src/billing/checkout.py': `"""Checkout: turns a cart into a charged invoice."""

from billing.invoice import InvoiceCalculator, LineItem


def checkout_total(items: list[LineItem]) -> float:
    calculator = InvoiceCalculator(0.2)
    return calculator.compute_total_with_tax(items)


def largest_refund(refunds):
    best = refunds[0]
    for refund in refunds[1:]:
        if refund.amount > best.amount:
            best = refund
    return best
`,
  'src/reports/monthly.py': `"""The monthly sales report."""

from billing.invoice import InvoiceCalculator


def monthly_revenue(invoices):
    calc = InvoiceCalculator(0.2)
    return sum(calc.compute_total_with_tax(items) for items in invoices)


def largest_invoice(invoices):
    best = invoices[0]
    for invoice in invoices[1:]:
        if invoice.amount > best.amount:
            best = invoice
    return best
`,
  // A line with shell command substitutions, which a QuickPick would draw as icons.
  'scripts/deploy.sh': `#!/bin/sh
# Prints a stamp for this build.
stamp="release-$(date +%s)-$(hostname)"
echo "$stamp"
`,
  'README.md': `# Shop

A tiny shop: invoices with sales tax, shipping rates, and network calls retried with backoff.
`,
};

// ---------------------------------------------------------------- VS Code UI driving

const SEL = {
  quickInput: '.quick-input-widget',
  quickInputBox: '.quick-input-widget .quick-input-box input',
  quickInputMessage: '.quick-input-widget .quick-input-message',
  quickInputTitle: '.quick-input-widget .quick-input-title',
  rows: '.quick-input-widget .quick-input-list .monaco-list-row',
  activeTab: '.tabs-container .tab.active',
  lnCol: '[id="status.editor.selection"]',
  toast: '.notifications-toasts .notification-toast',
};

async function quickInputVisible(page) {
  return page.locator(SEL.quickInput).isVisible();
}

async function closeQuickInput(page) {
  for (let i = 0; i < 3 && (await quickInputVisible(page)); i++) {
    await page.keyboard.press('Escape');
    await sleep(150);
  }
}

async function clearToasts(page) {
  // Closes every notification toast, so a later wait sees only new ones.
  const toasts = page.locator(`${SEL.toast} .codicon-notifications-clear`);
  for (let i = (await toasts.count()) - 1; i >= 0; i--) {
    await toasts.nth(i).click({ timeout: 2000 }).catch(() => {});
  }
}

/** Every notification gone, toasts and the notification center alike. */
async function clearAllNotifications(page) {
  await runCommand(page, 'Notifications: Clear All Notifications');
  await page.locator(SEL.toast).first().waitFor({ state: 'detached', timeout: STEP_TIMEOUT_MS }).catch(() => {});
  const left = await page.locator(SEL.toast).count();
  if (left) fail(`${left} notification(s) still shown after clearing them all`);
}

/** F1, type the command's title, wait for its row, Enter. Retried: the palette lists only the
 * commands known when it opened, and extensions register theirs a moment after start-up. */
async function runCommand(page, title) {
  const until = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    await closeQuickInput(page);
    await page.keyboard.press('F1');
    const box = page.locator(SEL.quickInputBox);
    await box.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await box.fill(`>${title}`);
    const row = page.locator(SEL.rows).filter({ hasText: title }).first();
    try {
      await row.waitFor({ state: 'visible', timeout: 3000 });
    } catch (err) {
      if (Date.now() > until) fail(`no command palette entry ${JSON.stringify(title)}`);
      continue;
    }
    const first = (await page.locator(SEL.rows).first().innerText()).split('\n')[0];
    if (first.includes(title)) {
      await page.keyboard.press('Enter');
    } else {
      await row.click();
    }
    return;
  }
}

/** Kebab: Search for `query`; resolves to 'rows' with the QuickPick open, or 'none'. */
async function kebabSearch(page, query) {
  await runCommand(page, 'Kebab: Search');
  const message = page.locator(SEL.quickInputMessage).filter({ hasText: 'Search the workspace (kebab)' });
  await message.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
  const box = page.locator(SEL.quickInputBox);
  await box.fill('');
  await box.pressSequentially(query, { delay: 10 });
  await page.keyboard.press('Enter');
  // Either the result QuickPick (its title starts with "Kebab: N of") or a "no results" toast.
  const results = page.locator(SEL.quickInputTitle).filter({ hasText: /^Kebab: \d+ of / });
  const none = page.locator(SEL.toast).filter({ hasText: 'Kebab: no results' });
  const errors = page.locator(SEL.toast).filter({ hasText: 'Kebab: search failed' });
  const until = Date.now() + STEP_TIMEOUT_MS;
  while (Date.now() < until) {
    if (await results.isVisible()) {
      await page.locator(SEL.rows).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      return 'rows';
    }
    if (await errors.count()) fail(`search error shown: ${await errors.first().innerText()}`);
    if (await none.count()) return 'none';
    await sleep(100);
  }
  fail(`neither results nor a "no results" message for ${JSON.stringify(query)}`);
}

/** Retries the search until the server has indexed enough to return a row with `rowText`. */
async function searchUntil(page, query, rowText) {
  const until = Date.now() + INDEX_TIMEOUT_MS;
  let tries = 0;
  while (Date.now() < until) {
    tries += 1;
    await clearToasts(page);
    const outcome = await kebabSearch(page, query);
    if (outcome === 'rows') {
      const row = page.locator(SEL.rows).filter({ hasText: rowText });
      if (await row.count()) return { row: row.first(), tries };
      log(`  try ${tries}: results, but no row with ${JSON.stringify(rowText)} yet`);
    } else {
      log(`  try ${tries}: no results yet (index building?)`);
    }
    await closeQuickInput(page);
    await sleep(1000);
  }
  fail(`no row ${JSON.stringify(rowText)} for ${JSON.stringify(query)} within ${INDEX_TIMEOUT_MS / 1000}s`);
}

/** The open QuickPick as shown: its title, and its rows in order, a separator as
 * {separator: label} before the first row of its group, a row as {text, focused}. */
async function readPick(page) {
  const title = (await page.locator(SEL.quickInputTitle).innerText()).trim();
  const entries = await page.evaluate(() => {
    const rows = [...document.querySelectorAll('.quick-input-widget .quick-input-list .monaco-list-row')]
      .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
    const out = [];
    for (const row of rows) {
      const entry = row.querySelector('.quick-input-list-entry');
      // A separator is drawn either as a row of its own or as a label on its group's first row.
      if (entry && entry.classList.contains('quick-input-list-separator-as-item')) {
        out.push({ separator: row.innerText.trim() });
        continue;
      }
      const label = row.querySelector('.quick-input-list-separator');
      if (label && label.textContent.trim() && getComputedStyle(label).display !== 'none') {
        out.push({ separator: label.textContent.trim() });
      }
      const copy = row.cloneNode(true);
      copy.querySelectorAll('.quick-input-list-separator').forEach((e) => e.remove());
      out.push({ text: copy.innerText.replace(/\s+/g, ' ').trim(), focused: row.classList.contains('focused') });
    }
    return out;
  });
  return {
    title,
    entries,
    separators: entries.filter((e) => 'separator' in e).map((e) => e.separator),
    rows: entries.filter((e) => 'text' in e),
  };
}

/** Waits for a QuickPick whose title matches `pattern`, then reads it. */
async function waitForPick(page, pattern) {
  await page.locator(SEL.quickInputTitle).filter({ hasText: pattern }).waitFor({ state: 'visible' });
  await page.locator(SEL.rows).first().waitFor({ state: 'visible' });
  await sleep(200); // let the list settle
  return readPick(page);
}

/** Focuses row `index` of the open QuickPick with the arrow keys, as a person would, and opens it. */
async function openRow(page, index) {
  await page.locator(SEL.quickInputBox).focus();
  for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
  const { rows } = await readPick(page);
  const focused = rows.findIndex((r) => r.focused);
  if (focused !== index) fail(`row ${focused} is focused, not row ${index}: ${JSON.stringify(rows.map((r) => r.text))}`);
  await page.keyboard.press('Enter');
}

/** Opens `rel` with the cursor at 1-based `line`, `col`: F1, then the palette's file mode (no
 * prefix) and its go-to-line mode (":line:col"), as typed. */
async function openAt(page, rel, line, col) {
  const box = page.locator(SEL.quickInputBox);
  await closeQuickInput(page);
  await page.keyboard.press('F1');
  await box.waitFor({ state: 'visible' });
  await box.fill(rel);
  await page.locator(SEL.rows).filter({ hasText: path.basename(rel) }).first().waitFor({ state: 'visible' });
  await page.keyboard.press('Enter');
  await expectEditorAt(page, path.basename(rel), null, null);
  await page.keyboard.press('F1');
  await box.waitFor({ state: 'visible' });
  await box.fill(`:${line}:${col}`);
  await sleep(200);
  await page.keyboard.press('Enter');
  await expectEditorAt(page, path.basename(rel), line, col);
}

async function expectEditorAt(page, tabName, line, col) {
  const want = line === null ? /^Ln \d+, Col \d+/
    : col === null ? new RegExp(`^Ln ${line}, Col \\d+$`) : `Ln ${line}, Col ${col}`;
  const until = Date.now() + STEP_TIMEOUT_MS;
  let tab = '';
  let lnCol = '';
  while (Date.now() < until) {
    const tabLabel = ((await page.locator(SEL.activeTab).first().getAttribute('data-resource-name').catch(() => '')) ?? '');
    lnCol = (await page.locator(SEL.lnCol).first().innerText().catch(() => '')).trim();
    if (tabLabel === tabName && (typeof want === 'string' ? lnCol === want : want.test(lnCol))) return;
    tab = tabLabel;
    await sleep(100);
  }
  fail(`expected tab ${JSON.stringify(tabName)} at ${JSON.stringify(String(want))}, got tab ${JSON.stringify(tab)} at ${JSON.stringify(lnCol)}`);
}

const STATUS_ITEM = '[id="workbench.parts.statusbar"] .statusbar-item';

/** Waits for the Kebab status bar item to read `text` (a string it contains, or a pattern). */
async function waitForStatus(page, text, timeout = 30_000) {
  const item = page.locator(STATUS_ITEM).filter({ hasText: text }).first();
  await item.waitFor({ state: 'visible', timeout });
  return (await item.innerText()).trim();
}

/** The Kebab status bar item's background colour: none, or the theme's error or warning one. */
async function statusBackground(page) {
  return page.locator(STATUS_ITEM).filter({ hasText: 'Kebab' }).first().evaluate((el) => {
    for (const node of [el, ...el.querySelectorAll('*')]) {
      const color = getComputedStyle(node).backgroundColor;
      if (color && color !== 'rgba(0, 0, 0, 0)' && color !== 'transparent') return color;
    }
    return 'none';
  });
}

/** The open modal dialogs' text (VS Code's "command ... not found" is one). */
async function dialogTexts(page) {
  return (await page.locator('.monaco-dialog-box').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** The visible toasts' text, each on one line. */
async function toastTexts(page) {
  return (await page.locator(SEL.toast).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** The command lines of the running processes that contain `needle`, probes left out. */
function processesWith(needle) {
  return spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).stdout.split('\n')
    .filter((line) => line.includes(needle) && !line.includes('--probe')).map((line) => line.trim());
}

/** `read()` every 250 ms until `done` holds for what it read or `ms` pass: the last read. */
async function pollUntil(read, done, ms) {
  let value = read();
  for (const until = Date.now() + ms; !done(value) && Date.now() < until;) {
    await sleep(250);
    value = read();
  }
  return value;
}

/** Whether `lines` (of processesWith) is one process with another pid than `before`'s, if
 * any: a server that was replaced. Pids, not lines: pyenv's shim execs Python in the same
 * process, so a process's command line changes as it starts. */
const replaced = (before) => (lines) => lines.length === 1 && lines[0].split(' ')[0] !== before[0]?.split(' ')[0];

/** An executable shell script at `file`. */
function writeScript(file, body) {
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  fs.chmodSync(file, 0o755);
  return file;
}

/** After a failed check: closes what it left open (a modal dialog, such as VS Code's "command
 * not found", blocks every later key press), so the next checks start from a usable window. */
async function recover(page) {
  for (let i = 0; i < 3 && (await page.locator('.monaco-dialog-box').count()); i++) {
    await page.keyboard.press('Escape');
    await sleep(200);
  }
  await closeQuickInput(page);
}

async function check(name, fn) {
  if (ONLY && !ONLY.test(name)) {
    log(`skip ${name}`);
    return;
  }
  const t0 = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    log(`PASS ${name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  } catch (err) {
    results.push({ name, ok: false });
    log(`FAIL ${name}: ${err.message}`);
    if (currentPage) {
      const file = await shot(currentPage, `FAIL-${name.replace(/[^a-z0-9]+/gi, '-')}`);
      log(`     screenshot: ${file}`);
      await recover(currentPage).catch((e) => log(`     could not recover: ${e.message}`));
    }
  }
}

let currentPage;

// ---------------------------------------------------------------- main

async function main() {
  for (const [what, file] of [['the packaged extension', VSIX], ['code-server', CODE_SERVER],
    ['the repo venv\'s python', REPO_PYTHON], ['chromium', CHROMIUM]]) {
    if (!fs.existsSync(file)) fail(`${what} not found at ${file} (run editors/vscode/test/setup.sh)`);
  }
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kebab-vscode-e2e-'));
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const ws = path.join(tmp, 'shop');
  const userData = path.join(tmp, 'user-data');
  const extDir = path.join(tmp, 'extensions');
  const indexDir = path.join(tmp, 'index');
  const serverLog = path.join(tmp, 'kebab-lsp.log');
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  }
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  const settingsFile = path.join(userData, 'User', 'settings.json');
  // No kebab.serverPath: the extension runs the server bundled in the VSIX with the Python it
  // finds on PATH, and no kebab-lsp is on PATH (checked below).
  const baseSettings = {
    'kebab.serverArgs': ['--log-file', serverLog],
    'kebab.indexDir': indexDir,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'chat.disableAIFeatures': true,
    'window.restoreWindows': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
  };
  fs.writeFileSync(settingsFile, JSON.stringify(baseSettings, null, 2));

  const node = process.execPath;
  // PATH without any folder that holds a kebab-lsp (the repo's .venv/bin, a pipx bin, ...).
  const pathDirs = (process.env.PATH ?? '').split(':').filter((d) => d && !fs.existsSync(path.join(d, 'kebab-lsp')));
  const env = { ...process.env, PATH: [path.dirname(node), ...pathDirs].join(':') };
  delete env.VSCODE_IPC_HOOK_CLI;
  delete env.VIRTUAL_ENV;
  const onPath = spawnSync('sh', ['-c', 'command -v kebab-lsp'], { env, encoding: 'utf8' });
  if (onPath.status === 0) fail(`kebab-lsp is still on PATH: ${onPath.stdout.trim()}`);
  // A real server that reports an old version (for the version handshake check).
  const oldServer = path.join(tmp, 'old-kebab-lsp');
  fs.writeFileSync(oldServer, `#!/bin/sh\nexec ${JSON.stringify(REPO_PYTHON)} -c "import kebab_lsp; kebab_lsp.__version__ = '0.0.1'; from kebab_lsp.cli import serve_main; serve_main()" "$@"\n`);
  fs.chmodSync(oldServer, 0o755);

  // A test double of the Python extension (its interpreter API only), packaged here and
  // installed beside kebab; it reports the interpreter named in pythonExtFile, none until then.
  const pythonExtFile = path.join(tmp, 'python-extension-selection');
  env.KEBAB_E2E_PYTHON_EXT_FILE = pythonExtFile;
  const stubVsix = path.join(tmp, 'python-extension-stub.vsix');
  const stub = spawnSync(path.join(EXT, 'node_modules', '.bin', 'vsce'), ['package', '--allow-missing-repository',
    '--skip-license', '--no-dependencies', '--out', stubVsix], { cwd: path.join(HERE, 'python-extension-stub'), env,
    encoding: 'utf8', timeout: 120_000 });
  if (stub.status !== 0) fail(`packaging the Python extension double failed: ${stub.stdout}${stub.stderr}`);

  log('installing the .vsix into a temp extensions dir');
  const install = spawnSync(node, [CODE_SERVER, '--install-extension', VSIX, '--extensions-dir', extDir,
    '--user-data-dir', userData], { env, encoding: 'utf8', timeout: 120_000 });
  if (install.status !== 0) fail(`--install-extension failed (${install.status}): ${install.stdout}${install.stderr}`);
  const installStub = spawnSync(node, [CODE_SERVER, '--install-extension', stubVsix, '--extensions-dir', extDir,
    '--user-data-dir', userData], { env, encoding: 'utf8', timeout: 120_000 });
  if (installStub.status !== 0) fail(`installing the Python extension double failed: ${installStub.stdout}${installStub.stderr}`);
  const installed = fs.readdirSync(extDir).filter((d) => d.startsWith('kebab.kebab-lsp-'));
  if (!installed.length) fail(`the extension is not in ${extDir}: ${fs.readdirSync(extDir).join(', ')}`);
  const launcher = path.join(extDir, installed[0], 'server', 'launch.py');
  if (!fs.existsSync(launcher)) fail(`the installed extension has no bundled server (${launcher})`);
  log(`installed ${installed[0]} (${(fs.statSync(VSIX).size / 1e6).toFixed(1)} MB VSIX) with its bundled server`);

  const port = await freePort();
  const config = path.join(tmp, 'code-server.yaml');
  fs.writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  log(`starting code-server on 127.0.0.1:${port}`);
  const csLog = fs.openSync(path.join(tmp, 'code-server.log'), 'w');
  const cs = spawn(node, [CODE_SERVER, '--config', config, '--user-data-dir', userData, '--extensions-dir', extDir,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', ws], { env, detached: true, stdio: ['ignore', csLog, csLog] });
  cleanups.push(async () => {
    // code-server, its extension host and kebab-lsp share this process group.
    try { process.kill(-cs.pid, 'SIGTERM'); } catch { return; }
    for (let i = 0; i < 50; i++) {
      try { process.kill(-cs.pid, 0); } catch { return; }
      await sleep(100);
    }
    try { process.kill(-cs.pid, 'SIGKILL'); } catch { /* gone */ }
  });
  cleanups.push(() => {
    // Keep the logs next to the screenshots: they are what explains a failure.
    for (const name of ['code-server.log', 'kebab-lsp.log']) {
      const src = path.join(tmp, name);
      if (fs.existsSync(src)) fs.copyFileSync(src, path.join(SHOTS, name));
    }
    // The Kebab output channel and the extension host's log, which VS Code keeps as files.
    const logs = path.join(userData, 'logs');
    for (const file of fs.existsSync(logs) ? fs.readdirSync(logs, { recursive: true }) : []) {
      const name = path.basename(String(file));
      if (/Kebab\.log$/.test(name)) fs.copyFileSync(path.join(logs, String(file)), path.join(SHOTS, 'kebab-output.log'));
      if (name === 'exthost.log') fs.copyFileSync(path.join(logs, String(file)), path.join(SHOTS, 'exthost.log'));
    }
  });
  await waitForHealthz(port, cs, 60_000);
  log('code-server is healthy');

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  cleanups.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1400, height: 850 } });
  const page = await context.newPage();
  currentPage = page;
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));

  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  await page.locator('[id="workbench.parts.statusbar"]').waitFor({ state: 'visible', timeout: 60_000 });
  log('the workbench is up');
  // The extension is active once its status bar item shows (in whatever state).
  const kebabItem = page.locator('[id="workbench.parts.statusbar"] .statusbar-item').filter({ hasText: 'Kebab' });
  await kebabItem.first().waitFor({ state: 'visible', timeout: 60_000 });
  log(`the extension is active: status bar says ${JSON.stringify((await kebabItem.first().innerText()).trim())}`);
  await shot(page, 'workbench');

  const invoice = FILES['src/billing/invoice.py'];
  const retry = FILES['src/net/retry.ts'];

  await check('Kebab: Search opens the picked hit at its line and column', async () => {
    const { row, tries } = await searchUntil(page, 'compute_total_with_tax', 'InvoiceCalculator.compute_total_with_tax');
    log(`  results after ${tries} search(es)`);
    const title = (await page.locator(SEL.quickInputTitle).innerText()).trim();
    if (!/^Kebab: \d+ of \d+\+? results for "compute_total_with_tax"/.test(title)) fail(`QuickPick title: ${title}`);
    const text = await row.innerText();
    if (!text.includes('src/billing/invoice.py:19')) fail(`row description lacks path:line: ${JSON.stringify(text)}`);
    if (!text.includes('def compute_total_with_tax(self, items: list[LineItem]) -> float:')) {
      fail(`row detail lacks the snippet line: ${JSON.stringify(text)}`);
    }
    await shot(page, 'search-quickpick');
    await row.click();
    const { line, col } = lineCol(invoice, 'compute_total_with_tax(');
    await expectEditorAt(page, 'invoice.py', line, col);
    await shot(page, 'search-opened');
  });

  await check('Kebab: Search shows a $(name) in a line as written, not as an icon', async () => {
    // The block's row: its detail is the line that matched.
    const { row } = await searchUntil(page, 'hostname', 'stamp="release-');
    const text = (await row.innerText()).replace(/\s+/g, ' ');
    log(`  row: ${text}`);
    if (!text.includes('stamp="release-$(date +%s)-$(hostname)"')) fail(`the row does not show the line as written: ${JSON.stringify(text)}`);
    await shot(page, 'search-literal-dollar');
    await closeQuickInput(page);
  });

  await check('Kebab: Search: arrow keys to a lower row, Enter opens that hit', async () => {
    await searchUntil(page, 'RetryOptions attempts', 'retryWithExponentialBackoff');
    const rows = await page.locator(SEL.rows).allInnerTexts();
    log(`  rows: ${rows.map((r) => r.replace(/\s+/g, ' ').trim()).join(' | ')}`);
    // Walk down with the arrow keys, as a person would, to the function's row (not the first:
    // the interface named in the query ranks above it).
    const index = rows.findIndex((r) => r.split('\n')[0].includes('retryWithExponentialBackoff'));
    if (index < 1) fail(`the retryWithExponentialBackoff row is at index ${index}, expected below the first`);
    const where = /src\/net\/retry\.ts:(\d+)/.exec(rows[index]);
    if (!where) fail(`row has no path:line description: ${JSON.stringify(rows[index])}`);
    const line = Number(where[1]);
    await page.locator(SEL.quickInputBox).focus();
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    const focused = await page.locator(`${SEL.rows}.focused`).innerText();
    if (!focused.includes('retryWithExponentialBackoff')) fail(`focused row is ${JSON.stringify(focused)}`);
    await page.keyboard.press('Enter');
    // The hit is inside the function (lines 8-22); the column is where the server's match is.
    const fnStart = lineCol(retry, 'export async function').line;
    if (line < fnStart || line > fnStart + 14) fail(`the row points at line ${line}, outside the function`);
    const hitCol = await (async () => {
      await expectEditorAt(page, 'retry.ts', line, null);
      return (await page.locator(SEL.lnCol).first().innerText()).trim();
    })();
    log(`  opened retry.ts at ${hitCol}`);
  });

  await check('Ctrl+T (Go to Symbol in Workspace) jumps to the symbol', async () => {
    await closeQuickInput(page);
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+t');
    const box = page.locator(SEL.quickInputBox);
    await box.waitFor({ state: 'visible' });
    const value = await box.inputValue();
    if (!value.startsWith('#')) fail(`Ctrl+T opened ${JSON.stringify(value)}, not the # symbol picker`);
    await box.pressSequentially('CheapestShippingRate', { delay: 10 });
    const row = page.locator(SEL.rows).filter({ hasText: 'CheapestShippingRate' }).first();
    await row.waitFor({ state: 'visible' });
    await shot(page, 'workspace-symbols');
    const first = (await page.locator(SEL.rows).first().innerText()).split('\n')[0];
    if (!first.includes('CheapestShippingRate')) fail(`first symbol row is ${JSON.stringify(first)}`);
    await page.keyboard.press('Enter');
    const rates = FILES['src/shipping/rates.go'];
    const { line, col } = lineCol(rates, 'func CheapestShippingRate');
    await expectEditorAt(page, 'rates.go', line, col);
    await shot(page, 'workspace-symbol-opened');
  });

  const checkout = FILES['src/billing/checkout.py'];
  const monthly = FILES['src/reports/monthly.py'];
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  await check('Kebab: Search groups its results under Definitions, Files and Blocks; a file row opens the file', async () => {
    await searchUntil(page, 'monthly sales report', 'src/reports/monthly.py');
    // Narrow the list to what fits on screen by typing in it, as a person would: the groups
    // and their separators stay, in the server's order.
    await page.locator(SEL.quickInputBox).pressSequentially('monthly', { delay: 10 });
    await sleep(300);
    const pick = await readPick(page);
    log(`  ${pick.title}`);
    log(`  ${pick.entries.map((e) => e.separator ? `[${e.separator}]` : e.text).join(' | ')}`);
    if (!same(pick.separators, ['Definitions', 'Files', 'Blocks'])) fail(`separators: ${JSON.stringify(pick.separators)}`);
    // Each separator heads its own kind of row: definitions, then file rows, then blocks.
    const files = pick.entries.findIndex((e) => e.separator === 'Files');
    const blocks = pick.entries.findIndex((e) => e.separator === 'Blocks');
    const fileRows = pick.entries.slice(files + 1, blocks);
    if (!fileRows.length || !fileRows.every((r) => /^\S+\.\w+ ?\d+ hits? · \w+/.test(r.text))) {
      fail(`the Files group: ${JSON.stringify(fileRows)}`);
    }
    const index = pick.rows.findIndex((r) => r.text.startsWith('src/reports/monthly.py'));
    if (index < 0) fail('no file row for src/reports/monthly.py');
    if (!pick.rows[index].text.includes('The monthly sales report.')) fail(`file row: ${pick.rows[index].text}`);
    await shot(page, 'search-grouped');
    await openRow(page, index);
    await expectEditorAt(page, 'monthly.py', 1, 1);
  });

  await check('Kebab: Search answers "who calls X" with usages, says so, and jumps to the call', async () => {
    await searchUntil(page, 'who calls compute_total_with_tax', 'call on calculator');
    const pick = await readPick(page);
    log(`  ${pick.title}`);
    if (!pick.title.includes('(usage: who calls X)')) fail(`title lacks the route taken: ${pick.title}`);
    if (!same(pick.separators, ['Files', 'Blocks'])) fail(`separators: ${JSON.stringify(pick.separators)}`);
    const index = pick.rows.findIndex((r) => r.text.includes('src/billing/checkout.py:8 · call on calculator'));
    if (index < 0) fail(`no usage row for checkout.py:8: ${JSON.stringify(pick.rows.map((r) => r.text))}`);
    await openRow(page, index);
    const { line, col } = lineCol(checkout, 'compute_total_with_tax(items)');
    await expectEditorAt(page, 'checkout.py', line, col);
  });

  await check('Kebab: Find Usages lists the name\'s usages under one separator per file and jumps to one', async () => {
    const def = lineCol(invoice, 'compute_total_with_tax(self');
    await openAt(page, 'src/billing/invoice.py', def.line, def.col + 3); // inside the name
    await runCommand(page, 'Kebab: Find Usages');
    const pick = await waitForPick(page, /usages of/);
    log(`  ${pick.title}`);
    log(`  ${pick.entries.map((e) => e.separator ? `[${e.separator}]` : e.text).join(' | ')}`);
    if (pick.title !== 'Kebab: 2 of 2 usages of "compute_total_with_tax" in 2 files') fail(`title: ${pick.title}`);
    if (!same(pick.separators, ['src/billing/checkout.py', 'src/reports/monthly.py'])) {
      fail(`separators: ${JSON.stringify(pick.separators)}`);
    }
    const want = [
      ['checkout_total', 'src/billing/checkout.py:8 · call on calculator', 'return calculator.compute_total_with_tax(items)'],
      ['monthly_revenue', 'src/reports/monthly.py:8 · call on calc', 'return sum(calc.compute_total_with_tax(items) for items in invoices)'],
    ];
    if (pick.rows.length !== 2) fail(`${pick.rows.length} rows`);
    pick.rows.forEach((row, i) => {
      if (!want[i].every((part) => row.text.includes(part))) fail(`row ${i}: ${JSON.stringify(row.text)}, want ${JSON.stringify(want[i])}`);
    });
    // Each separator comes right before its file's row.
    const order = pick.entries.map((e) => e.separator ?? (e.text.startsWith('checkout_total') ? 'checkout_total'
      : e.text.startsWith('monthly_revenue') ? 'monthly_revenue' : e.text));
    if (!same(order, ['src/billing/checkout.py', 'checkout_total', 'src/reports/monthly.py', 'monthly_revenue'])) {
      fail(`order: ${JSON.stringify(pick.entries)}`);
    }
    await shot(page, 'usages');
    await openRow(page, 1);
    const { line, col } = lineCol(monthly, 'compute_total_with_tax(items) for');
    await expectEditorAt(page, 'monthly.py', line, col);
  });

  await check('Kebab: Find Usages of a name nothing uses says so, with no empty picker', async () => {
    await clearToasts(page);
    const def = lineCol(checkout, 'largest_refund');
    await openAt(page, 'src/billing/checkout.py', def.line, def.col);
    await runCommand(page, 'Kebab: Find Usages');
    const toast = page.locator(SEL.toast).filter({ hasText: 'Kebab: no usages of "largest_refund" found' });
    await toast.first().waitFor({ state: 'visible' });
    if (await page.locator(SEL.quickInputTitle).filter({ hasText: /usages of/ }).isVisible()) fail('a picker is open');
    await clearToasts(page);
  });

  await check('Kebab: Find Usages on a word the index has no name for shows the server\'s error', async () => {
    await clearToasts(page);
    const word = lineCol(invoice, 'totals printed');
    await openAt(page, 'src/billing/invoice.py', word.line, word.col + 2); // in the docstring
    await runCommand(page, 'Kebab: Find Usages');
    const toast = page.locator(SEL.toast).filter({ hasText: 'Kebab: Find Usages of "totals" failed' });
    await toast.first().waitFor({ state: 'visible' });
    const text = await toast.first().innerText();
    if (!text.includes('no name at') || !text.includes('-32602')) fail(`error message: ${JSON.stringify(text)}`);
    await sleep(700);
    await shot(page, 'usages-error');
    await clearToasts(page);
  });

  await check('Kebab: Find Similar Code on a selection lists the code like it, itself left out, and jumps', async () => {
    const first = lineCol(checkout, 'def largest_refund').line;
    const last = lineCol(checkout, '    return best').line;
    await openAt(page, 'src/billing/checkout.py', first, 1);
    for (let i = first; i < last; i++) await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+End');
    await runCommand(page, 'Kebab: Find Similar Code');
    const pick = await waitForPick(page, /similar to/);
    log(`  ${pick.title}`);
    log(`  ${pick.rows.map((r) => r.text).join(' | ')}`);
    if (!new RegExp(`^Kebab: \\d+ of \\d+\\+? blocks similar to src/billing/checkout\\.py:${first}-${last}( |$)`).test(pick.title)) {
      fail(`title: ${pick.title}`);
    }
    if (!pick.rows[0].text.startsWith('largest_invoice') || !pick.rows[0].text.includes('src/reports/monthly.py:14')) {
      fail(`first row: ${JSON.stringify(pick.rows[0].text)}`);
    }
    if (pick.rows.some((r) => r.text.startsWith('largest_refund'))) fail('the selection itself is listed');
    await shot(page, 'similar');
    await openRow(page, 0);
    const { line, col } = lineCol(monthly, 'if invoice.amount');
    await expectEditorAt(page, 'monthly.py', line, col);
  });

  await check('Kebab: Find Similar Code with nothing selected looks for the cursor\'s line', async () => {
    const at = lineCol(checkout, 'if refund.amount');
    await openAt(page, 'src/billing/checkout.py', at.line, at.col + 4);
    await runCommand(page, 'Kebab: Find Similar Code');
    const pick = await waitForPick(page, /similar to/);
    log(`  ${pick.title}`);
    if (!pick.title.includes(`similar to src/billing/checkout.py:${at.line}`) || pick.title.includes(`:${at.line}-`)) {
      fail(`title: ${pick.title}`);
    }
    if (!pick.rows[0].text.startsWith('largest_invoice')) fail(`first row: ${JSON.stringify(pick.rows[0].text)}`);
    await openRow(page, 0);
    const { line, col } = lineCol(monthly, 'if invoice.amount');
    await expectEditorAt(page, 'monthly.py', line, col);
  });

  await check('the server that answers is the bundled one, run by a Python from PATH', async () => {
    const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout.split('\n');
    const running = ps.filter((line) => line.includes(launcher));
    if (!running.length) fail(`no process runs ${launcher}`);
    log(`  ${running[0].trim().slice(0, 160)}`);
  });

  await check('the status bar item shows the indexed file count', async () => {
    const item = page.locator('[id="workbench.parts.statusbar"] .statusbar-item').filter({ hasText: /Kebab: \d+ files/ });
    await item.first().waitFor({ state: 'visible', timeout: 15_000 });
    const text = (await item.first().innerText()).trim();
    if (text !== `Kebab: ${Object.keys(FILES).length} files`) fail(`status bar item says ${JSON.stringify(text)}`);
  });

  await check('Kebab: Show Index Status reports the folder', async () => {
    await clearToasts(page);
    await runCommand(page, 'Kebab: Show Index Status');
    const toast = page.locator(SEL.toast).filter({ hasText: 'Kebab: shop:' });
    await toast.first().waitFor({ state: 'visible' });
    const text = await toast.first().innerText();
    if (!text.includes(`${Object.keys(FILES).length} files`) || !text.includes('up to date') || !text.includes(indexDir)
        || !text.includes('changes on disk: the editor reports them')) {
      fail(`status message: ${JSON.stringify(text)}`);
    }
    await sleep(700); // let the toast finish sliding in
    await shot(page, 'status');
  });

  await check('Kebab: Rebuild Index queues a rebuild and search works after it', async () => {
    await clearToasts(page);
    await runCommand(page, 'Kebab: Rebuild Index');
    const toast = page.locator(SEL.toast).filter({ hasText: 'rebuilding the index of 1 folder from scratch' });
    await toast.first().waitFor({ state: 'visible' });
    await closeQuickInput(page);
    const { row } = await searchUntil(page, 'CheapestShippingRate', 'CheapestShippingRate');
    await row.click();
    const { line, col } = lineCol(FILES['src/shipping/rates.go'], 'CheapestShippingRate(');
    await expectEditorAt(page, 'rates.go', line, col);
  });

  await check('a search error (InvalidParams) is shown to the user, not swallowed', async () => {
    await clearToasts(page);
    // Single quotes send a raw FTS5 expression; an unbalanced one is rejected with -32602.
    await runCommand(page, 'Kebab: Search');
    await page.locator(SEL.quickInputMessage).filter({ hasText: 'Search the workspace (kebab)' }).waitFor();
    const box = page.locator(SEL.quickInputBox);
    await box.fill('');
    await box.pressSequentially("'total AND ('", { delay: 10 });
    await page.keyboard.press('Enter');
    const toast = page.locator(SEL.toast).filter({ hasText: 'Kebab: search failed' });
    await toast.first().waitFor({ state: 'visible' });
    const text = await toast.first().innerText();
    if (!text.includes('-32602')) fail(`error message: ${JSON.stringify(text)}`);
    await sleep(700);
    await shot(page, 'search-error');
    await clearToasts(page);
  });

  const editSettings = async (settings) => {
    await runCommand(page, 'Preferences: Open User Settings (JSON)');
    const editor = page.locator('.monaco-editor[data-uri$="settings.json"]').first();
    await editor.waitFor({ state: 'visible' });
    await sleep(300);
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+a');
    // insertText types no keys, so the editor's bracket and quote auto-closing stays out.
    await page.keyboard.insertText(JSON.stringify(settings, null, 2));
    await page.keyboard.press('Control+s');
    await sleep(300);
    await page.keyboard.press('Control+w');
  };

  await check('a kebab.* setting edited in VS Code reaches the server (didChangeConfiguration)', async () => {
    // Edit the user settings.json in VS Code's own editor and save, as a person would; the
    // extension forwards the change and the server re-opens the index without the .go file.
    const item = page.locator('[id="workbench.parts.statusbar"] .statusbar-item');
    const total = Object.keys(FILES).length;
    await editSettings({ ...baseSettings, 'kebab.exclude': ['*.go'] });
    await item.filter({ hasText: `Kebab: ${total - 1} files` }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await shot(page, 'setting-changed');
    await editSettings(baseSettings);
    await item.filter({ hasText: `Kebab: ${total} files` }).first().waitFor({ state: 'visible', timeout: 30_000 });
  });

  await check('Kebab: Find Similar Code shows the server\'s warning when it answers without vectors', async () => {
    await editSettings({ ...baseSettings, 'kebab.embed': false });
    const at = lineCol(checkout, 'if refund.amount');
    await openAt(page, 'src/billing/checkout.py', at.line, at.col);
    // The server reopens the index with the new setting a moment after the change.
    const until = Date.now() + 30_000;
    let pick;
    for (;;) {
      await runCommand(page, 'Kebab: Find Similar Code');
      pick = await waitForPick(page, /similar to/);
      if (pick.title.includes('embeddings are off') || Date.now() > until) break;
      await closeQuickInput(page);
      await sleep(500);
    }
    log(`  ${pick.title}`);
    if (!pick.title.includes('— ⚠ embeddings are off; answered with lexical search')) fail(`title: ${pick.title}`);
    if (!pick.rows[0].text.startsWith('largest_invoice')) fail(`first row: ${JSON.stringify(pick.rows[0].text)}`);
    await shot(page, 'similar-lexical');
    await closeQuickInput(page);
    await editSettings(baseSettings);
  });

  await check('the Python extension\'s selected interpreter is used before PATH', async () => {
    // A path no PATH lookup yields: a symlink to this machine's python3.
    const real = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { env, encoding: 'utf8' }).stdout.trim();
    const selected = path.join(tmp, 'selected-python', 'python3');
    fs.mkdirSync(path.dirname(selected), { recursive: true });
    fs.symlinkSync(real, selected);
    fs.writeFileSync(pythonExtFile, selected);
    await runCommand(page, 'Kebab: Restart Server');
    const until = Date.now() + 30_000;
    let running = [];
    while (Date.now() < until) {
      running = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.includes(launcher));
      if (running.length === 1 && running[0].startsWith(`${selected} -I -S`)) break;
      await sleep(250);
    }
    if (!(running.length === 1 && running[0].startsWith(`${selected} -I -S`))) fail(`server processes: ${JSON.stringify(running)}`);
    await page.locator('[id="workbench.parts.statusbar"] .statusbar-item').filter({ hasText: /Kebab: \d+ files/ })
      .first().waitFor({ state: 'visible', timeout: 30_000 });
    fs.rmSync(pythonExtFile);
  });

  await check('without a usable Python: one error message that names the fix', async () => {
    await clearToasts(page);
    await editSettings({ ...baseSettings, 'kebab.interpreter': path.join(tmp, 'no-such-python3') });
    const toast = page.locator(SEL.toast).filter({ hasText: 'needs CPython' });
    await toast.first().waitFor({ state: 'visible', timeout: 30_000 });
    const text = await toast.first().innerText();
    if (!text.includes('no-such-python3: not found') || !text.includes('Set "kebab.interpreter" to a CPython')) {
      fail(`message: ${JSON.stringify(text)}`);
    }
    await sleep(700);
    await shot(page, 'no-interpreter');
    const ours = await page.locator(SEL.toast).filter({ hasText: /Kebab: (the bundled|could not start)/ }).count();
    if (ours !== 1) fail(`${ours} start-up error messages, not one`);
    await clearAllNotifications(page);
  });

  await check('a server older than the extension needs: one warning with the upgrade command', async () => {
    await clearToasts(page);
    await editSettings({ ...baseSettings, 'kebab.serverPath': oldServer });
    const toast = page.locator(SEL.toast).filter({ hasText: 'older than this extension needs' });
    await toast.first().waitFor({ state: 'visible', timeout: 30_000 });
    const text = await toast.first().innerText();
    if (!text.includes('kebab-lsp 0.0.1') || !text.includes('pipx install --force')) fail(`warning: ${JSON.stringify(text)}`);
    await sleep(700);
    await shot(page, 'old-server');
    await clearAllNotifications(page);
    // The same server again (a restart): no second warning.
    await runCommand(page, 'Kebab: Restart Server');
    await page.locator('[id="workbench.parts.statusbar"] .statusbar-item').filter({ hasText: /Kebab: \d+ files/ })
      .first().waitFor({ state: 'visible', timeout: 30_000 });
    await sleep(1000);
    const again = await page.locator(SEL.toast).filter({ hasText: 'older than this extension needs' }).count();
    if (again !== 0) fail('warned twice about the same server');
    await editSettings(baseSettings);
  });

  const total = Object.keys(FILES).length;
  // The base settings and a server that has indexed the workspace, restarted if need be, so
  // each check below starts from there even after one before it failed.
  const running = async () => {
    await recover(page);
    await editSettings(baseSettings);
    try {
      await waitForStatus(page, `Kebab: ${total} files`, 20_000);
    } catch {
      await runCommand(page, 'Kebab: Restart Server');
      await waitForStatus(page, `Kebab: ${total} files`, 60_000);
    }
  };

  await check('kebab.store and kebab.repo reach the server: a search answers from (here: fails to reach) the team index', async () => {
    await running();
    await clearAllNotifications(page);
    await editSettings({ ...baseSettings, 'kebab.store': 'postgresql://alice@127.0.0.1:9/code', 'kebab.repo': 'acme/app' });
    const toast = page.locator(SEL.toast).filter({ hasText: 'Kebab: search failed' });
    const until = Date.now() + 30_000;
    let text = '';
    while (!text && Date.now() < until) {
      // The settings reach the server a moment after the save: search until it answers by them.
      // The toast is read before the search box is closed: an Escape while the box fades out
      // dismisses the toast instead.
      await kebabSearch(page, 'compute_total_with_tax').catch(() => {});
      if (await toast.count()) {
        text = await toast.first().innerText();
        break;
      }
      await closeQuickInput(page);
      await sleep(500);
    }
    if (!text) fail('searches answered from the local index: the store and repo settings did not reach the server');
    if (!text.includes('team index at postgresql://alice@127.0.0.1:9/code')) fail(`error message: ${JSON.stringify(text)}`);
    await shot(page, 'team-store');
    await clearAllNotifications(page);
    await running();
  });

  await check('a folder whose index cannot be opened: a warning in the status bar, and Show Index Status says why', async () => {
    await running();
    await clearAllNotifications(page);
    await editSettings({ ...baseSettings, 'kebab.indexDir': '/proc/kebab-index' });
    const text = await waitForStatus(page, 'not indexed');
    const background = await statusBackground(page);
    if (background === 'none') fail('the status bar item has no error or warning background');
    if (text !== 'Kebab: 1 folder not indexed') fail(`status bar item says ${JSON.stringify(text)}`);
    await clearAllNotifications(page);
    await runCommand(page, 'Kebab: Show Index Status');
    const toast = page.locator(SEL.toast).filter({ hasText: 'shop is not indexed' });
    await toast.first().waitFor({ state: 'visible' });
    const message = (await toast.first().innerText()).replace(/\s+/g, ' ');
    log(`  ${message}`);
    if (!message.includes('/proc/kebab-index') || !message.includes('"kebab.indexDir"') || message.includes('no workspace folder is open')) {
      fail(`status message: ${JSON.stringify(message)}`);
    }
    await sleep(700);
    await shot(page, 'unopened-status');
    await clearAllNotifications(page);
    await running();
  });

  await check('a server killed while running is restarted, and the status bar shows the index again', async () => {
    await running();
    const before = processesWith(launcher);
    if (before.length !== 1) fail(`server processes before: ${JSON.stringify(before)}`);
    process.kill(Number(before[0].split(' ')[0]), 'SIGKILL');
    const after = await pollUntil(() => processesWith(launcher), replaced(before), 30_000);
    if (!replaced(before)(after)) fail(`server processes after: ${JSON.stringify(after)}`);
    log(`  restarted: ${after[0].slice(0, 100)}`);
    // The item went red when the server died; it must show the index again, not stay red.
    await waitForStatus(page, `Kebab: ${total} files`, 30_000);
  });

  await check('a server whose pipe breaks before it exits (EPIPE on a write) is restarted too', async () => {
    await running();
    await clearAllNotifications(page);
    // The bundled server behind a relay that, on SIGUSR1, closes the server's stdin but keeps
    // its stdout for 8 s: the client's next status poll (every 5 s) writes into a broken pipe
    // before the connection closes. A kill during a write does the same, by chance (a CI run
    // lost its server that way). Each relay adds its pid to a file once it can take the signal:
    // a second pid is the restart.
    const relay = path.join(tmp, 'epipe-relay.py');
    const pidFile = path.join(tmp, 'epipe-relay.pids');
    fs.writeFileSync(relay, [
      'import os, select, signal, subprocess, sys, time',
      'closing = []',
      'signal.signal(signal.SIGUSR1, lambda *_: closing.append(1))',
      `server = subprocess.Popen(["python3", "-I", "-S", ${JSON.stringify(launcher)}, *sys.argv[1:]], stdin=subprocess.PIPE)`,
      `with open(${JSON.stringify(pidFile)}, "a") as pids:`,
      '    print(os.getpid(), file=pids)',
      'while not closing:',
      '    if select.select([0], [], [], 0.1)[0]:',
      '        data = os.read(0, 65536)',
      '        if not data:',
      '            break',
      '        server.stdin.write(data)',
      '        server.stdin.flush()',
      'os.close(0)',
      'time.sleep(8)',
      'server.kill()',
      '',
    ].join('\n'));
    const wrapper = writeScript(path.join(tmp, 'epipe-server'), `exec python3 ${JSON.stringify(relay)} "$@"`);
    await editSettings({ ...baseSettings, 'kebab.serverPath': wrapper });
    const relays = () => (fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').split('\n').filter(Boolean) : []);
    const before = await pollUntil(relays, (pids) => pids.length === 1, 30_000);
    if (before.length !== 1) fail(`relays started: ${JSON.stringify(before)}`);
    // The restart showed "starting": the count is the relayed server's answer, so it runs.
    await waitForStatus(page, `Kebab: ${total} files`, 60_000);
    process.kill(Number(before[0]), 'SIGUSR1');
    const after = await pollUntil(relays, (pids) => pids.length === 2, 40_000);
    if (after.length !== 2) {
      fail(`relays started: ${JSON.stringify(after)}; messages ${JSON.stringify(await toastTexts(page))}`);
    }
    await waitForStatus(page, `Kebab: ${total} files`, 30_000);
    const errors = (await toastTexts(page)).filter((t) => /not running|error/i.test(t));
    if (errors.length) fail(`messages: ${JSON.stringify(errors)}`);
    await clearAllNotifications(page);
    await running();
  });

  await check('Restart Server while the server starts leaves one server; Rebuild Index waits for it', async () => {
    await running();
    await clearAllNotifications(page);
    // A Python that takes 3 s to start (a slow shim): the start is still under way when the
    // restart comes, and Rebuild Index is run before either is done.
    const real = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { env, encoding: 'utf8' }).stdout.trim();
    const slow = writeScript(path.join(tmp, 'slow-python3'), `sleep 3\nexec ${JSON.stringify(real)} "$@"`);
    await editSettings({ ...baseSettings, 'kebab.interpreter': slow });
    // The restart comes while the start the settings caused is probing that Python.
    const probing = () => spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout.split('\n')
      .some((line) => line.includes(slow) && line.includes('--probe'));
    for (const until = Date.now() + 20_000; !probing() && Date.now() < until;) await sleep(100);
    if (!probing()) fail('the start with the slow Python never probed it');
    await runCommand(page, 'Kebab: Restart Server');
    await runCommand(page, 'Kebab: Rebuild Index');
    // Every problem is collected, so a failure names them all (an orphan server, and VS Code's
    // "command 'kebab.reindex' not found", were two bugs).
    const problems = [];
    const toast = page.locator(SEL.toast).filter({ hasText: 'rebuilding the index of 1 folder from scratch' });
    if (!(await toast.first().waitFor({ state: 'visible', timeout: 45_000 }).then(() => true, () => false))) {
      problems.push(`no rebuild message; dialogs ${JSON.stringify(await dialogTexts(page))}`);
      await recover(page);
    }
    const status = await waitForStatus(page, `Kebab: ${total} files`, 60_000).catch(async () =>
      (await page.locator(STATUS_ITEM).filter({ hasText: 'Kebab' }).first().getAttribute('aria-label')));
    if (status !== `Kebab: ${total} files`) problems.push(`status bar item: ${JSON.stringify(status)}`);
    await sleep(8000); // time for a superseded start to show up, had it gone on
    const servers = processesWith(launcher);
    if (servers.length !== 1) problems.push(`${servers.length} server processes: ${JSON.stringify(servers)}`);
    const errors = (await toastTexts(page)).filter((t) => /error|failed|already exists/i.test(t));
    if (errors.length) problems.push(`error messages: ${JSON.stringify(errors)}`);
    if (problems.length) fail(problems.join('; '));
    await running();
  });

  await check('an ill-typed kebab.serverArgs: one error naming the setting, a red status bar, and commands say why', async () => {
    await running();
    await clearAllNotifications(page);
    await editSettings({ ...baseSettings, 'kebab.serverArgs': '--log-level debug' });
    const toast = page.locator(SEL.toast).filter({ hasText: '"kebab.serverArgs" must be a list of strings' });
    await toast.first().waitFor({ state: 'visible', timeout: 30_000 });
    const background = await statusBackground(page);
    if (background === 'none') fail('the status bar item has no error or warning background');
    await clearAllNotifications(page);
    await runCommand(page, 'Kebab: Show Index Status');
    const again = page.locator(SEL.toast).filter({ hasText: 'the kebab-lsp server is not running' });
    await again.first().waitFor({ state: 'visible' });
    const text = (await again.first().innerText()).replace(/\s+/g, ' ');
    if (!text.includes('"kebab.serverArgs" must be a list of strings')) fail(`message: ${JSON.stringify(text)}`);
    const dialogs = await dialogTexts(page);
    if (dialogs.length) fail(`dialogs: ${JSON.stringify(dialogs)}`);
    await clearAllNotifications(page);
    await running();
  });

  await check('a server that exits at start-up: one error with its exit code and last words, and no relaunch', async () => {
    await running();
    await clearAllNotifications(page);
    const runs = path.join(tmp, 'exiting-server-runs');
    const exiting = writeScript(path.join(tmp, 'exiting-server'),
      `echo run >> ${JSON.stringify(runs)}\necho "boom: cannot import lancedb" >&2\nexit 3`);
    await editSettings({ ...baseSettings, 'kebab.serverPath': exiting });
    const toast = page.locator(SEL.toast).filter({ hasText: 'could not start' });
    await toast.first().waitFor({ state: 'visible', timeout: 30_000 });
    await sleep(5000); // a relaunch, had the client gone on, comes within this
    const text = (await toast.first().innerText()).replace(/\s+/g, ' ');
    log(`  ${text}`);
    if (!text.includes('exited with code 3: boom: cannot import lancedb')) fail(`message: ${JSON.stringify(text)}`);
    const toasts = await toastTexts(page);
    if (toasts.length !== 1) fail(`${toasts.length} messages: ${JSON.stringify(toasts)}`);
    const launched = fs.readFileSync(runs, 'utf8').split('\n').filter(Boolean).length;
    if (launched !== 1) fail(`the server was launched ${launched} times`);
    await shot(page, 'server-exits');
    await clearAllNotifications(page);
    await running();
  });

  await check('a server that stops for good after running: red status bar, and Rebuild Index says why', async () => {
    await running();
    await clearAllNotifications(page);
    // The bundled server the first time; every later launch (the client's restart after the
    // crash below) exits at once.
    const marker = path.join(tmp, 'once-server-ran');
    const once = writeScript(path.join(tmp, 'once-server'),
      `if [ -e ${JSON.stringify(marker)} ]; then echo "boom: the second start" >&2; exit 3; fi\n`
      + `touch ${JSON.stringify(marker)}\nexec python3 -I -S ${JSON.stringify(launcher)} "$@"`);
    const bundled = processesWith(launcher);
    await editSettings({ ...baseSettings, 'kebab.serverPath': once });
    const servers = await pollUntil(() => processesWith(launcher),
      (lines) => fs.existsSync(marker) && replaced(bundled)(lines), 30_000);
    if (!replaced(bundled)(servers)) fail(`server processes: ${JSON.stringify(servers)}`);
    await waitForStatus(page, `Kebab: ${total} files`, 60_000);
    process.kill(Number(servers[0].split(' ')[0]), 'SIGKILL');
    const stopped = page.locator(SEL.toast).filter({ hasText: 'the kebab-lsp server is not running' });
    await stopped.first().waitFor({ state: 'visible', timeout: 30_000 });
    const background = await statusBackground(page);
    if (background === 'none') fail('the status bar item has no error or warning background');
    await clearAllNotifications(page);
    await runCommand(page, 'Kebab: Rebuild Index');
    await stopped.first().waitFor({ state: 'visible' }).catch(() => {});
    const dialogs = await dialogTexts(page);
    if (dialogs.length) fail(`dialogs: ${JSON.stringify(dialogs)}`);
    const text = (await stopped.first().innerText()).replace(/\s+/g, ' ');
    log(`  ${text}`);
    if (!text.includes('exited with code 3: boom: the second start')) fail(`message: ${JSON.stringify(text)}`);
    await clearAllNotifications(page);
    await running();
  });

  if (pageErrors.length) log(`page errors (not failures): ${pageErrors.slice(0, 5).join(' | ')}`);
}

main().then(() => finish(0), async (err) => {
  log(`ERROR ${err.stack ?? err}`);
  if (currentPage) await shot(currentPage, 'ERROR');
  finish(1);
});
