// The kebab VS Code extension: starts kebab-lsp over stdio and adds a search QuickPick, index
// commands and a status bar item on top of it. Workspace symbols (Ctrl+T) need no code here:
// the language client wires the server's workspace/symbol into VS Code's own picker.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';

const SECTION = 'kebab';
const SEARCH_PROMPT = 'Search the workspace (kebab)';
// The settings the server understands (kebab_lsp/config.py, camelCase) and nothing else: the
// server warns about unknown keys, and serverPath/serverArgs are only the client's business.
const SERVER_SETTINGS = [
  'indexDir',
  'exclude',
  'maxFileBytes',
  'workers',
  'defaultMode',
  'defaultK',
  'symbolLimit',
  'debounceMs',
  'embed',
  'embedThreads',
  'modelDir',
  'rrfK',
] as const;
const RESTART_SETTINGS = ['serverPath', 'serverArgs', 'interpreter'];
// The oldest server this extension works with (its serverInfo.version, from `initialize`).
export const MIN_SERVER_VERSION = '0.1.0';
const PROBE_TIMEOUT_MS = 15000;
const POLL_BUILDING_MS = 1000;
const POLL_IDLE_MS = 5000;
const HIT_FLASH_MS = 1500;

// ---- the wire shapes (kebab_lsp/schema/search.v1.json, kebab_lsp/features/status.py) ----

interface WirePosition {
  line: number;
  character: number;
}
interface WireRange {
  start: WirePosition;
  end: WirePosition;
}
interface SearchHit {
  path: string;
  location: { uri: string; range: WireRange };
  /** The best match inside the cited definition or chunk: where the cursor goes. */
  selection?: WireRange;
  title: string;
  kind: string;
  symbol: string | null;
  container: string | null;
  lang: string;
  snippet: { text: string; line: number; highlights: { start: number; end: number }[] };
  score: number;
}
interface SearchResponse {
  hits: SearchHit[];
  meta: {
    warnings: string[];
    total_matches: number;
    count_accuracy: 'exact' | 'lower_bound';
    mode: string;
    index: { building: boolean; files: number };
  };
}
interface FolderStatus {
  uri: string;
  root: string;
  index_dir: string;
  files: number;
  symbols: number;
  chunks: number;
  last_update: number | string | null;
  building: boolean;
  progress: { done: number; total: number; percentage: number } | null;
}
interface StatusResponse {
  folders: FolderStatus[];
  building: boolean;
}

interface HitItem extends vscode.QuickPickItem {
  hit: SearchHit;
}

// ---- settings ----

function expandPath(value: string): string {
  let out = value.trim();
  if (out === '~' || out.startsWith('~/')) {
    out = path.join(os.homedir(), out.slice(1));
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (folder) {
    out = out.replace(/\$\{workspaceFolder\}/g, folder);
  }
  return out;
}

export function serverSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const out: Record<string, unknown> = {};
  for (const key of SERVER_SETTINGS) {
    let value = config.get<unknown>(key);
    if (value === undefined) {
      continue;
    }
    if (key === 'indexDir' || key === 'modelDir') {
      value = typeof value === 'string' && value.trim() ? expandPath(value) : null;
    }
    out[key] = value;
  }
  return out;
}

function errorText(err: unknown): string {
  if (err instanceof ResponseError) {
    return `${err.message} (code ${err.code})`;
  }
  if (err instanceof Error) {
    return err.message;
  }
  return String(err);
}

// ---- the bundled server and the Python that runs it ----

/** What `launch.py --probe` says about an interpreter (editors/vscode/launcher/launch.py). */
interface Probe {
  executable: string;
  version: string;
  implementation: string;
  usable: boolean;
  bundled: string[];
}

interface Candidate {
  source: string; // where it came from, for messages: "kebab.interpreter", "PATH", ...
  command: string;
  args: string[];
}

interface Interpreter extends Candidate {
  probe: Probe;
}

/** "3.11, 3.12 or 3.13" from ["cp311", "cp312", "cp313"]. */
function pythonList(tags: string[]): string {
  const versions = tags.map((t) => `${t[2]}.${t.slice(3)}`);
  return versions.length > 1 ? `${versions.slice(0, -1).join(', ')} or ${versions[versions.length - 1]}` : versions.join('');
}

function probe(candidate: Candidate, launcher: string): Promise<Probe | string> {
  return new Promise((resolve) => {
    execFile(candidate.command, [...candidate.args, '-I', '-S', launcher, '--probe'],
      { timeout: PROBE_TIMEOUT_MS, windowsHide: true }, (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          resolve(code === 'ENOENT' ? 'not found' : (stderr.trim().split('\n').pop() || err.message));
          return;
        }
        try {
          resolve(JSON.parse(stdout) as Probe);
        } catch {
          resolve(`not a Python that runs the server (${stdout.trim().slice(0, 80)})`);
        }
      });
  });
}

/** The interpreter the Python extension has selected for the first folder, if it is installed. */
async function pythonExtensionInterpreter(output: vscode.OutputChannel): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (!ext) {
    return undefined;
  }
  try {
    // Typed loosely on purpose: two generations of the Python extension's API are in use.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const api: any = ext.isActive ? ext.exports : await ext.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const environments = api?.environments;
    if (environments?.getActiveEnvironmentPath) {
      const active = environments.getActiveEnvironmentPath(resource);
      const resolved = await environments.resolveEnvironment?.(active);
      const exe: string | undefined = resolved?.executable?.uri?.fsPath ?? active?.path;
      if (exe) {
        return exe;
      }
    }
    const details = api?.settings?.getExecutionDetails?.(resource);
    const command: string[] | undefined = details?.execCommand;
    return command && command.length === 1 ? command[0] : undefined;
  } catch (err) {
    output.appendLine(`the Python extension gave no interpreter: ${errorText(err)}`);
    return undefined;
  }
}

/**
 * A Python that can run the bundled server: `kebab.interpreter` if set (and then only it),
 * else the Python extension's selected interpreter, else `python3.X` / `python3` / `python`
 * on PATH. Returns the interpreter, or a message that says what was tried and the fix.
 */
async function findInterpreter(launcher: string, bundled: string[], output: vscode.OutputChannel
): Promise<Interpreter | { error: string }> {
  const wanted = `CPython ${pythonList(bundled)}`;
  const config = vscode.workspace.getConfiguration(SECTION);
  const configured = (config.get<string>('interpreter') ?? '').trim();
  const candidates: Candidate[] = [];
  if (configured) {
    candidates.push({ source: '"kebab.interpreter"', command: expandPath(configured), args: [] });
  } else {
    const selected = await pythonExtensionInterpreter(output);
    if (selected) {
      candidates.push({ source: 'the Python extension\'s interpreter', command: selected, args: [] });
    }
    for (const tag of bundled) {
      const version = `${tag[2]}.${tag.slice(3)}`;
      candidates.push(process.platform === 'win32'
        ? { source: 'the py launcher', command: 'py', args: [`-${version}`] }
        : { source: 'PATH', command: `python${version}`, args: [] });
    }
    candidates.push({ source: 'PATH', command: 'python3', args: [] }, { source: 'PATH', command: 'python', args: [] });
  }
  const tried: string[] = [];
  for (const candidate of candidates) {
    const found = await probe(candidate, launcher);
    const name = [candidate.command, ...candidate.args].join(' ');
    if (typeof found !== 'string' && found.usable) {
      output.appendLine(`using ${found.executable} (Python ${found.version}, from ${candidate.source})`);
      return { ...candidate, probe: found };
    }
    const why = typeof found === 'string' ? found : `${found.implementation} ${found.version}`;
    output.appendLine(`not usable: ${name} (${candidate.source}): ${why}`);
    if (why !== 'not found' || configured) {
      tried.push(`${name}: ${why}`);
    }
  }
  const seen = tried.length ? ` Tried ${tried.join('; ')}.` : ' None was found on PATH.';
  const fix = configured
    ? `Set "kebab.interpreter" to a ${wanted} executable, or clear it to search for one.`
    : `Install Python ${pythonList(bundled)}, or set "kebab.interpreter" to one.`;
  return { error: `Kebab: the bundled kebab-lsp server needs ${wanted}.${seen} ${fix}` };
}

/** -1, 0 or 1 as version a is older than, the same as, or newer than b (x.y.z, numerically). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => v.split(/[.+-]/).slice(0, 3).map((n) => parseInt(n, 10) || 0);
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) {
      return (x[i] ?? 0) < (y[i] ?? 0) ? -1 : 1;
    }
  }
  return 0;
}

// ---- the extension ----

class KebabExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private startError: string | undefined;
  private readonly output: vscode.OutputChannel;
  private readonly statusItem: vscode.StatusBarItem;
  private pollTimer: NodeJS.Timeout | undefined;
  private fallbackReindex: vscode.Disposable | undefined;
  private stateListener: vscode.Disposable | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private lastQuery = '';
  // Servers (command and version) already warned about being too old: once each per window.
  private readonly warnedVersions = new Set<string>();
  private readonly flash = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    isWholeLine: false,
  });

  constructor(private readonly extensionPath: string) {
    this.output = vscode.window.createOutputChannel('Kebab');
    this.statusItem = vscode.window.createStatusBarItem('kebab.status', vscode.StatusBarAlignment.Left, 0);
    this.statusItem.name = 'Kebab index';
    this.statusItem.command = 'kebab.status';
    this.disposables.push(
      this.output,
      this.statusItem,
      this.flash,
      vscode.commands.registerCommand('kebab.search', (query?: string) => this.search(query)),
      vscode.commands.registerCommand('kebab.status', () => this.showStatus()),
      vscode.commands.registerCommand('kebab.restartServer', () => this.restart()),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
    );
    this.setStatus('$(loading~spin) Kebab', 'kebab-lsp is starting');
    this.statusItem.show();
  }

  dispose(): void {
    this.stopPolling();
    this.fallbackReindex?.dispose();
    this.stateListener?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  // -- server lifecycle --

  start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.doStart();
    }
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const config = vscode.workspace.getConfiguration(SECTION);
    const serverArgs = (config.get<string[]>('serverArgs') ?? []).map(expandPath);
    const userServer = (config.get<string>('serverPath') ?? '').trim();
    const launcher = path.join(this.extensionPath, 'server', 'launch.py');
    let command: string;
    let args: string[];
    let bundled = false;
    if (userServer) {
      // A server the user named always wins over the bundled one.
      command = expandPath(userServer);
      args = serverArgs;
    } else if (fs.existsSync(launcher)) {
      const manifest = JSON.parse(fs.readFileSync(path.join(this.extensionPath, 'server', 'manifest.json'), 'utf8')) as { pythons: string[] };
      const found = await findInterpreter(launcher, manifest.pythons, this.output);
      if ('error' in found) {
        void this.failStart(found.error, 'kebab.interpreter');
        return;
      }
      command = found.command;
      args = [...found.args, '-I', '-S', launcher, ...serverArgs];
      bundled = true;
    } else {
      command = 'kebab-lsp'; // a VSIX without a bundled server: the one on PATH
      args = serverArgs;
    }
    const serverOptions: ServerOptions = {
      run: { command, args, transport: TransportKind.stdio },
      debug: { command, args, transport: TransportKind.stdio },
    };
    const clientOptions: LanguageClientOptions = {
      // Every file: the server indexes any language, and didSave keeps its index current.
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: serverSettings(),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        executeCommand: async (cmd, cmdArgs, next) => {
          const result = await next(cmd, cmdArgs);
          if (cmd === 'kebab.reindex') {
            const queued = (result as { queued?: string[] } | undefined)?.queued ?? [];
            vscode.window.showInformationMessage(
              `Kebab: rebuilding the index of ${queued.length} folder(s) from scratch.`,
            );
            this.schedulePoll(0);
          }
          return result;
        },
      },
    };
    this.output.appendLine(`starting ${command} ${args.join(' ')}`.trim());
    const client = new LanguageClient('kebab', 'Kebab', serverOptions, clientOptions);
    this.client = client;
    this.stateListener?.dispose();
    this.stateListener = client.onDidChangeState((e) => {
      if (e.newState === State.Stopped && this.client === client) {
        this.stopPolling();
        this.setStatus('$(error) Kebab', 'kebab-lsp is not running', true);
      }
    });
    try {
      await client.start();
    } catch (err) {
      this.client = undefined;
      const fix = bundled
        ? 'Set "kebab.interpreter" to another Python, or "kebab.serverPath" to a kebab-lsp executable.'
        : 'Set "kebab.serverPath" to the kebab-lsp executable.';
      void this.failStart(`Kebab: could not start '${command}': ${errorText(err)}. ${fix}`,
        bundled ? 'kebab.interpreter' : 'kebab.serverPath', errorText(err));
      return;
    }
    this.startError = undefined;
    this.checkServerVersion(client, bundled ? 'the bundled server' : command, bundled);
    this.schedulePoll(0);
  }

  /** One error message with the fix; the status bar turns red; commands explain. */
  private async failStart(message: string, setting: string, reason?: string): Promise<void> {
    this.startError = reason ?? message.replace(/^Kebab: /, '');
    this.setStatus('$(error) Kebab', `kebab-lsp failed to start: ${this.startError}`, true);
    // The client registers the server's kebab.reindex command only once it is running.
    this.fallbackReindex?.dispose();
    this.fallbackReindex = vscode.commands.registerCommand('kebab.reindex', () => this.notRunning());
    this.output.appendLine(message);
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output');
    if (choice === 'Open Settings') {
      vscode.commands.executeCommand('workbench.action.openSettings', setting);
    } else if (choice === 'Show Output') {
      this.output.show();
    }
  }

  /** Warns (once per server and version) when the server is older than this extension needs. */
  private checkServerVersion(client: LanguageClient, server: string, bundled: boolean): void {
    const version = client.initializeResult?.serverInfo?.version;
    this.output.appendLine(`server: ${client.initializeResult?.serverInfo?.name ?? '?'} ${version ?? '(no version)'}`);
    if (version && compareVersions(version, MIN_SERVER_VERSION) >= 0) {
      return;
    }
    const key = `${server}@${version}`;
    if (this.warnedVersions.has(key)) {
      return;
    }
    this.warnedVersions.add(key);
    const upgrade = bundled
      ? 'install the latest Kebab extension'
      : 'update your kebab-lsp clone and reinstall it (`pipx install --force <clone>`, or `uv tool install --reinstall <clone>`), or clear "kebab.serverPath" to use the server bundled with this extension';
    vscode.window.showWarningMessage(
      `Kebab: kebab-lsp ${version ?? '(no version reported)'} (${server}) is older than this extension needs (${MIN_SERVER_VERSION} or newer). To upgrade, ${upgrade}.`,
    );
  }

  async stop(): Promise<void> {
    this.stopPolling();
    const client = this.client;
    this.client = undefined;
    this.starting = undefined;
    if (client) {
      try {
        await client.dispose(5000); // shutdown + exit, then kills the process if it lingers
      } catch (err) {
        this.output.appendLine(`stopping the server: ${errorText(err)}`);
      }
    }
  }

  private async restart(): Promise<void> {
    await this.stop();
    this.fallbackReindex?.dispose();
    this.fallbackReindex = undefined;
    this.setStatus('$(loading~spin) Kebab', 'kebab-lsp is starting');
    await this.start();
  }

  private async configurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    if (!e.affectsConfiguration(SECTION)) {
      return;
    }
    if (RESTART_SETTINGS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`))) {
      await this.restart();
      return;
    }
    const client = await this.runningClient(false);
    if (client && SERVER_SETTINGS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`))) {
      await client.sendNotification('workspace/didChangeConfiguration', {
        settings: { [SECTION]: serverSettings() },
      });
      this.schedulePoll(500);
    }
  }

  /** The running client, after waiting for start-up; undefined (and a message, if asked) if none. */
  private async runningClient(report = true): Promise<LanguageClient | undefined> {
    await this.start();
    const client = this.client;
    if (client && client.state === State.Running) {
      return client;
    }
    if (report) {
      this.notRunning();
    }
    return undefined;
  }

  private notRunning(): void {
    const why = this.startError ? `: ${this.startError}` : '';
    vscode.window.showErrorMessage(`Kebab: the kebab-lsp server is not running${why}.`, 'Restart Server', 'Show Output')
      .then((choice) => {
        if (choice === 'Restart Server') {
          this.restart();
        } else if (choice === 'Show Output') {
          this.output.show();
        }
      });
  }

  // -- Kebab: Search --

  async search(initial?: string): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const selected = editor && !editor.selection.isEmpty && editor.selection.isSingleLine
      ? editor.document.getText(editor.selection)
      : '';
    const query = typeof initial === 'string' && initial.trim()
      ? initial
      : await vscode.window.showInputBox({
        title: 'Kebab: Search',
        prompt: SEARCH_PROMPT,
        placeHolder: 'a symbol name, some words, or a question about the code',
        value: selected || this.lastQuery,
        ignoreFocusOut: false,
      });
    if (query === undefined || !query.trim()) {
      return;
    }
    this.lastQuery = query;
    const client = await this.runningClient();
    if (!client) {
      return;
    }
    let response: SearchResponse;
    try {
      response = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Kebab: searching for "${query}"` },
        () => client.sendRequest<SearchResponse>('kebab/search', { query }),
      );
    } catch (err) {
      vscode.window.showErrorMessage(`Kebab: search failed: ${errorText(err)}`);
      return;
    }
    const warnings = [...(response.meta?.warnings ?? [])];
    if (response.meta?.index?.building && !warnings.some((w) => /build|index/i.test(w))) {
      warnings.push('the index is still being built; results may be incomplete');
    }
    if (response.hits.length === 0) {
      const extra = warnings.length ? ` (${warnings.join('; ')})` : '';
      vscode.window.showInformationMessage(`Kebab: no results for "${query}"${extra}.`);
      return;
    }
    await this.pickHit(query, response, warnings);
  }

  private pickHit(query: string, response: SearchResponse, warnings: string[]): Promise<void> {
    const pick = vscode.window.createQuickPick<HitItem>();
    const total = response.meta?.total_matches ?? response.hits.length;
    const count = response.meta?.count_accuracy === 'lower_bound' ? `${total}+` : `${total}`;
    pick.title = `Kebab: ${response.hits.length} of ${count} results for "${query}"`
      + (warnings.length ? ` — ⚠ ${warnings.join('; ')}` : '');
    pick.placeholder = 'Type to filter the results; Enter opens one';
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.items = response.hits.map((hit) => hitItem(hit));
    return new Promise<void>((resolve) => {
      pick.onDidAccept(async () => {
        const item = pick.selectedItems[0] ?? pick.activeItems[0];
        pick.hide();
        if (item) {
          await this.openHit(item.hit);
        }
      });
      pick.onDidHide(() => {
        pick.dispose();
        resolve();
      });
      pick.show();
    });
  }

  private async openHit(hit: SearchHit): Promise<void> {
    try {
      const uri = vscode.Uri.parse(hit.location.uri);
      const r = hit.selection ?? hit.location.range;
      const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
      const doc = await vscode.workspace.openTextDocument(uri);
      const editor = await vscode.window.showTextDocument(doc, {
        selection: new vscode.Range(range.start, range.start),
        preview: true,
      });
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      editor.revealRange(new vscode.Range(range.start, range.start), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      // Mark the whole hit for a moment, as Go to Symbol does, with the cursor at its start.
      editor.setDecorations(this.flash, [range]);
      setTimeout(() => editor.setDecorations(this.flash, []), HIT_FLASH_MS);
    } catch (err) {
      vscode.window.showErrorMessage(`Kebab: cannot open ${hit.path}: ${errorText(err)}`);
    }
  }

  // -- status --

  private setStatus(text: string, tooltip: string, error = false): void {
    this.statusItem.text = text;
    this.statusItem.tooltip = tooltip;
    this.statusItem.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  private stopPolling(): void {
    if (this.pollTimer) {
      clearTimeout(this.pollTimer);
      this.pollTimer = undefined;
    }
  }

  private schedulePoll(delay: number): void {
    this.stopPolling();
    this.pollTimer = setTimeout(() => this.poll(), delay);
  }

  private async fetchStatus(): Promise<StatusResponse> {
    const client = this.client;
    if (!client || client.state !== State.Running) {
      throw new Error('kebab-lsp is not running');
    }
    return client.sendRequest<StatusResponse>('kebab/status', {});
  }

  private async poll(): Promise<void> {
    this.pollTimer = undefined;
    const client = this.client;
    if (!client || client.state !== State.Running) {
      return;
    }
    let building = false;
    try {
      const status = await this.fetchStatus();
      building = status.building;
      this.renderStatus(status);
    } catch (err) {
      this.setStatus('$(warning) Kebab', `kebab/status failed: ${errorText(err)}`, true);
    }
    if (this.client === client && client.state === State.Running) {
      this.schedulePoll(building ? POLL_BUILDING_MS : POLL_IDLE_MS);
    }
  }

  private renderStatus(status: StatusResponse): void {
    const files = status.folders.reduce((n, f) => n + f.files, 0);
    const lines = status.folders.map((f) => {
      const state = f.building
        ? `indexing${f.progress ? ` ${f.progress.done}/${f.progress.total} files` : ''}`
        : 'up to date';
      return `${path.basename(f.root)}: ${f.files} files, ${f.symbols} symbols, ${state}`;
    });
    const tooltip = (lines.length ? lines.join('\n') : 'no workspace folder is indexed') + '\nClick for details';
    if (status.building) {
      let done = 0;
      let total = 0;
      for (const f of status.folders) {
        if (f.progress) {
          done += f.progress.done;
          total += f.progress.total;
        }
      }
      const pct = total > 0 ? ` ${Math.floor((done * 100) / total)}%` : '';
      this.setStatus(`$(sync~spin) Kebab${pct}`, `Indexing…\n${tooltip}`);
    } else {
      this.setStatus(`$(search) Kebab: ${files} files`, tooltip);
    }
  }

  private async showStatus(): Promise<void> {
    const client = await this.runningClient();
    if (!client) {
      return;
    }
    let status: StatusResponse;
    try {
      status = await this.fetchStatus();
    } catch (err) {
      vscode.window.showErrorMessage(`Kebab: status failed: ${errorText(err)}`);
      return;
    }
    this.renderStatus(status);
    this.output.appendLine(`kebab/status: ${JSON.stringify(status, null, 2)}`);
    const parts = status.folders.map((f) => {
      const state = f.building
        ? `indexing${f.progress ? ` (${f.progress.done}/${f.progress.total})` : ''}`
        : 'up to date';
      return `${path.basename(f.root)}: ${f.files} files, ${f.symbols} symbols, ${f.chunks} chunks, ${state}; index in ${f.index_dir}`;
    });
    const message = parts.length ? `Kebab: ${parts.join(' | ')}` : 'Kebab: no workspace folder is open, nothing is indexed.';
    const choice = await vscode.window.showInformationMessage(message, 'Rebuild Index', 'Show Output');
    if (choice === 'Rebuild Index') {
      await vscode.commands.executeCommand('kebab.reindex');
    } else if (choice === 'Show Output') {
      this.output.show();
    }
  }
}

function firstLine(hit: SearchHit): string {
  const lines = hit.snippet?.text?.split(/\r?\n/) ?? [];
  // The first line that carries a highlight, else the first non-blank one.
  let offset = 0;
  for (const line of lines) {
    const end = offset + line.length;
    if (hit.snippet.highlights.some((h) => h.start < end && h.end > offset)) {
      return line.trim();
    }
    offset = end + 1;
  }
  return (lines.find((l) => l.trim()) ?? '').trim();
}

const KIND_ICONS: Record<string, string> = {
  class: 'symbol-class',
  function: 'symbol-function',
  method: 'symbol-method',
  constructor: 'symbol-constructor',
  interface: 'symbol-interface',
  struct: 'symbol-struct',
  enum: 'symbol-enum',
  enum_member: 'symbol-enum-member',
  variable: 'symbol-variable',
  constant: 'symbol-constant',
  field: 'symbol-field',
  property: 'symbol-property',
  module: 'symbol-module',
  namespace: 'symbol-namespace',
  type_parameter: 'symbol-type-parameter',
};

function hitItem(hit: SearchHit): HitItem {
  const icon = KIND_ICONS[hit.kind] ?? 'file-text';
  const line = (hit.selection ?? hit.location.range).start.line + 1;
  return {
    label: `$(${icon}) ${hit.title}`,
    description: `${hit.path}:${line}`,
    detail: firstLine(hit),
    hit,
  };
}

// ---- entry points ----

let extension: KebabExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new KebabExtension(context.extensionPath);
  context.subscriptions.push(extension);
  // Not awaited: VS Code should finish activating while the server starts.
  void extension.start();
}

export async function deactivate(): Promise<void> {
  if (extension) {
    await extension.stop();
  }
}
