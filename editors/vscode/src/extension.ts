// The kebab VS Code extension: starts kebab-lsp over stdio and adds a search QuickPick, index
// commands and a status bar item on top of it. Workspace symbols (Ctrl+T) need no code here:
// the language client wires the server's workspace/symbol into VS Code's own picker.
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
const RESTART_SETTINGS = ['serverPath', 'serverArgs'];
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
  private readonly flash = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    isWholeLine: false,
  });

  constructor() {
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
    const command = expandPath(config.get<string>('serverPath') || 'kebab-lsp');
    const args = (config.get<string[]>('serverArgs') ?? []).map(expandPath);
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
      this.startError = errorText(err);
      this.client = undefined;
      this.setStatus('$(error) Kebab', `kebab-lsp failed to start: ${this.startError}`, true);
      // The client registers the server's kebab.reindex command only once it is running.
      this.fallbackReindex = vscode.commands.registerCommand('kebab.reindex', () => this.notRunning());
      const choice = await vscode.window.showErrorMessage(
        `Kebab: could not start '${command}': ${this.startError}. Set "kebab.serverPath" to the kebab-lsp executable.`,
        'Open Settings',
        'Show Output',
      );
      if (choice === 'Open Settings') {
        vscode.commands.executeCommand('workbench.action.openSettings', 'kebab.serverPath');
      } else if (choice === 'Show Output') {
        this.output.show();
      }
      return;
    }
    this.startError = undefined;
    this.schedulePoll(0);
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
  extension = new KebabExtension();
  context.subscriptions.push(extension);
  // Not awaited: VS Code should finish activating while the server starts.
  void extension.start();
}

export async function deactivate(): Promise<void> {
  if (extension) {
    await extension.stop();
  }
}
