// The kebab VS Code extension: starts kebab-lsp over stdio and adds QuickPicks for search, usages
// and similar code, index commands and a status bar item on top of it. Workspace symbols (Ctrl+T) need no code here:
// the language client wires the server's workspace/symbol into VS Code's own picker.
import { ChildProcess, execFile, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorCodes,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  LSPErrorCodes,
  RevealOutputChannelOn,
  State,
} from 'vscode-languageclient/node';

const SECTION = 'kebab';
const SEARCH_PROMPT = 'Search the workspace (kebab)';
// The settings the server understands (kebab_lsp/config.py, camelCase) and nothing else: the
// server warns about unknown keys, and serverPath/serverArgs are only the client's business.
const SERVER_SETTINGS = [
  'indexDir',
  'exclude',
  'languages',
  'maxFileBytes',
  'includeSecrets',
  'workers',
  'defaultMode',
  'defaultK',
  'symbolLimit',
  'debounceMs',
  'embed',
  'embedThreads',
  'modelDir',
  'rrfK',
  'store',
  'repo',
  'teamVectors',
  'provideReferences',
] as const;
// Server settings that name a local path, expanded here as `kebab.serverPath` is.
const PATH_SETTINGS: readonly string[] = ['indexDir', 'modelDir', 'teamVectors'];
const RESTART_SETTINGS = ['serverPath', 'serverArgs', 'interpreter'];
// The oldest server this extension works with (its serverInfo.version, from `initialize`).
export const MIN_SERVER_VERSION = '0.1.0';
const PROBE_TIMEOUT_MS = 15000;
const POLL_BUILDING_MS = 1000;
const POLL_IDLE_MS = 5000;
const HIT_FLASH_MS = 1500;
// Usages asked for at once (as :KebabUsages); the title says when there are more.
const USAGES_K = 100;
// The server's command that rebuilds every folder's index (its executeCommandProvider).
const REINDEX_COMMAND = 'kebab.reindex';
// A server that crashes while running is restarted this many times in CRASH_WINDOW_MS, no more.
const MAX_RESTARTS = 4;
const CRASH_WINDOW_MS = 3 * 60 * 1000;
// How long a server told to exit may take to do so before it is killed.
const EXIT_GRACE_MS = 3000;

// ---- the wire shapes (kebab_lsp/schema/search.v1.json, kebab_lsp/features/status.py) ----

interface WirePosition {
  line: number;
  character: number;
}
interface WireRange {
  start: WirePosition;
  end: WirePosition;
}
/** How a usage hit (kebab/references, or a search answered as usages) uses the name. */
interface UsageRef {
  kind: 'import' | 'call' | 'identifier' | 'string';
  name: string;
  /** The text a call is made on (`self.store` in `self.store.write()`), else null. */
  receiver: string | null;
}
interface SearchHit {
  path: string;
  /** The cited definition or chunk. */
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
  ref?: UsageRef;
}
/** One file of a grouped answer (`group: true`). */
interface FileGroup {
  path: string;
  uri: string;
  lang: string;
  doc: string;
  defines: { name: string; kind: string; selection: WireRange }[];
  hits: number;
  score: number;
}
interface SearchMeta {
  warnings: string[];
  total_matches: number;
  count_accuracy: 'exact' | 'lower_bound';
  mode: string;
  /** The route the server chose and the rule that chose it (absent from old servers). */
  intent?: { name: string; rule: string } | null;
  index: { building: boolean; files: number };
}
/** kebab/search without `group`, kebab/references and kebab/similar. */
interface SearchResponse {
  hits: SearchHit[];
  meta: SearchMeta;
}
/** kebab/search with `group: true`. */
interface GroupedResponse {
  definitions: SearchHit[];
  files: FileGroup[];
  blocks: SearchHit[];
  meta: SearchMeta;
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
  /** Who keeps the index current and how changes on disk reach it (absent from old servers). */
  writer?: { this_process: boolean; pid: number | null; changes: string };
  warnings?: string[];
}
/** A workspace folder the server could not open, so nothing in it is searched. */
interface UnopenedFolder {
  uri: string;
  name: string;
  root: string | null;
  reason: string;
}
interface StatusResponse {
  folders: FolderStatus[];
  building: boolean;
  /** Absent from servers older than it: read as none. */
  unopened?: UnopenedFolder[];
}

/** Where picking a row goes: the cursor at the start of `range`, which flashes. */
interface Jump {
  uri: string;
  path: string;
  range: WireRange;
}
/** A QuickPick row: a jump, or a separator (no jump). */
interface PickItem extends vscode.QuickPickItem {
  jump?: Jump;
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
    if (PATH_SETTINGS.includes(key)) {
      value = typeof value === 'string' && value.trim() ? expandPath(value) : null;
    }
    out[key] = value;
  }
  return out;
}

/**
 * A client setting (`kebab.serverPath`, `kebab.serverArgs`, `kebab.interpreter`) of the wrong
 * type: settings.json holds whatever was typed, and `config.get<T>` only casts.
 */
class SettingError extends Error {
  constructor(readonly setting: string, message: string) {
    super(message);
  }
}

/** The client setting `key`, a string ("" when unset), trimmed; SettingError if it is not one. */
function stringSetting(key: string): string {
  const value = vscode.workspace.getConfiguration(SECTION).get<unknown>(key) ?? '';
  if (typeof value !== 'string') {
    throw new SettingError(`${SECTION}.${key}`,
      `"${SECTION}.${key}" must be a string (a path, or a name looked up on PATH), got ${JSON.stringify(value)}`);
  }
  return value.trim();
}

/** The client setting `key`, a list of strings ([] when unset); SettingError if it is not one. */
function stringListSetting(key: string, example: string): string[] {
  const value = vscode.workspace.getConfiguration(SECTION).get<unknown>(key) ?? [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new SettingError(`${SECTION}.${key}`,
      `"${SECTION}.${key}" must be a list of strings, like ${example}, got ${JSON.stringify(value)}`);
  }
  return value;
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
  const configured = stringSetting('interpreter');
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

// ---- the server process ----

/** What to run: the server's command and arguments, and whether it is the bundled one. */
interface Launch {
  command: string;
  args: string[];
  bundled: boolean;
}

/** "not found" for a spawn's ENOENT and the like: what the user can act on. */
function spawnErrorText(err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') {
    return 'no such file, and no such command on PATH';
  }
  if (err.code === 'EACCES') {
    return 'not an executable file (permission denied)';
  }
  return err.message;
}

/**
 * A write into a server's pipe that is already closed (the server died, or is dying). The
 * client reports it without a count, and its default answer, shutting down, would stop the
 * client before the close that follows could restart the server: the close decides instead.
 */
function pipeGone(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ECONNRESET';
}

/**
 * Spawns the server for one language client (again on each of the client's restarts after a
 * crash), so that a server that stops can be told apart from a broken pipe: how the last
 * process ended and its last line on stderr ("exited with code 3: ImportError: ..."). It also
 * decides which ends the client restarts, and ends a process that outlives its client.
 */
class ServerLauncher {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stderr = '';
  private exit: string | undefined;
  private readonly crashes: number[] = [];
  /** The server ran (initialized) at least once: a later stop is a crash, not a failed start. */
  ran = false;
  /** The client restarts the server that just ended (decided by `closed`). */
  restarting = false;

  constructor(readonly launch: Launch) {}

  /** The language client's ServerOptions: a new process; rejects when it cannot be run at all. */
  spawn(): Promise<ChildProcess> {
    // `--stdio` as the language client passes it to a server it runs itself (kebab-lsp accepts it).
    const child = spawn(this.launch.command, [...this.launch.args, '--stdio'], { windowsHide: true });
    this.child = child;
    this.stderr = '';
    this.exit = undefined;
    child.stderr?.on('data', (data: Buffer) => {
      this.stderr = (this.stderr + data.toString()).slice(-4000);
    });
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      this.exit = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      resolve();
    }));
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve(child));
      child.on('error', (err: NodeJS.ErrnoException) => reject(new Error(spawnErrorText(err))));
    });
  }

  /**
   * How the last process ended, with its last line on stderr when it exited by itself (a
   * Python traceback ends with the error); undefined while it runs. Waits a moment for the
   * exit, which can come after the closed pipe that stopped the client.
   */
  async why(): Promise<string | undefined> {
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 1000))]);
    if (!this.exit) {
      return undefined;
    }
    const last = this.stderr.split(/\r?\n/).filter((l) => l.trim()).pop()?.trim();
    return last && this.exit.startsWith('exited') ? `${this.exit}: ${last}` : this.exit;
  }

  /**
   * The client's close handler. A server that exits while starting is not restarted (the
   * start reports why, once); one that crashes while running is, up to MAX_RESTARTS times in
   * CRASH_WINDOW_MS, as the client's default handler does.
   */
  closed(wasRunning: boolean): CloseHandlerResult {
    const now = Date.now();
    if (wasRunning) {
      this.crashes.push(now);
    }
    while (this.crashes.length && now - this.crashes[0] > CRASH_WINDOW_MS) {
      this.crashes.shift();
    }
    this.restarting = wasRunning && this.crashes.length <= MAX_RESTARTS;
    return { action: this.restarting ? CloseAction.Restart : CloseAction.DoNotRestart, handled: true };
  }

  /** Why the client gave up on the server, if it was for crashing too often. */
  gaveUp(): string {
    return this.crashes.length > MAX_RESTARTS
      ? `; it stopped ${this.crashes.length} times in ${CRASH_WINDOW_MS / 60000} minutes, so it is not restarted` : '';
  }

  /** Kills the process at once (a server still starting has nothing to save). */
  kill(): void {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill();
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
        }
      }, EXIT_GRACE_MS).unref();
    }
  }

  /** Once the client has told the server to exit: gives it EXIT_GRACE_MS to do so, then kills it. */
  async end(): Promise<void> {
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, EXIT_GRACE_MS))]);
    this.kill();
  }
}

/**
 * The language client, but its own notifications about the server's lifecycle ("couldn't
 * create connection to server", "Restarting server failed", "crashed 5 times") only go to the
 * output channel: the extension reports a failed start or a stopped server itself, once, with
 * the reason and the fix, where the client showed two or three toasts beside it.
 */
class KebabClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, showNotification === 'force' ? false : showNotification);
  }
}

// ---- the extension ----

class KebabExtension implements vscode.Disposable {
  private client: KebabClient | undefined;
  private launcher: ServerLauncher | undefined;
  private starting: Promise<void> | undefined;
  // Bumped by every stop: a start under way that sees another number was superseded.
  private generation = 0;
  // Starts and stops run one after another, so a restart never overlaps a start.
  private lifecycle: Promise<unknown> = Promise.resolve();
  // Set by deactivate: a command still waiting for a start must not start a server then.
  private deactivated = false;
  private startError: string | undefined;
  private readonly output: vscode.OutputChannel;
  private readonly statusItem: vscode.StatusBarItem;
  private pollTimer: NodeJS.Timeout | undefined;
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
      vscode.commands.registerCommand('kebab.findUsages', () => this.findUsages()),
      vscode.commands.registerCommand('kebab.findSimilar', () => this.findSimilar()),
      // Not the server's kebab.reindex, which the language client registers only while the
      // server runs: this one waits for a start, or says why the server is not running.
      vscode.commands.registerCommand('kebab.rebuildIndex', () => this.rebuildIndex()),
      vscode.commands.registerCommand('kebab.status', () => this.showStatus()),
      vscode.commands.registerCommand('kebab.restartServer', () => this.restart()),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
    );
    this.setStatus('$(loading~spin) Kebab', 'kebab-lsp is starting');
    this.statusItem.show();
  }

  dispose(): void {
    this.stopPolling();
    this.stateListener?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  // -- server lifecycle --

  start(): Promise<void> {
    if (this.deactivated) {
      return Promise.resolve();
    }
    if (!this.starting) {
      const generation = this.generation;
      this.starting = this.serialized(() => this.doStart(generation).catch((err) => this.startFailed(err)));
    }
    return this.starting;
  }

  /** Runs a start or stop after the ones before it have settled. */
  private serialized<T>(step: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(step, step);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }

  /** Starts the server unless a stop came since `generation`; reports a failure itself. */
  private async doStart(generation: number): Promise<void> {
    if (generation !== this.generation) {
      return;
    }
    const launch = await this.launchCommand();
    if (generation !== this.generation) {
      return; // stopped while looking for a Python: the next start has the new settings
    }
    if ('error' in launch) {
      void this.failStart(launch.error, 'kebab.interpreter');
      return;
    }
    this.output.appendLine(`starting ${launch.command} ${launch.args.join(' ')}`.trim());
    const launcher = new ServerLauncher(launch);
    const client: KebabClient = new KebabClient('kebab', 'Kebab', () => launcher.spawn(), this.clientOptions(
      () => launcher.closed(client.state === State.Running)));
    this.client = client;
    this.launcher = launcher;
    this.stateListener?.dispose();
    this.stateListener = client.onDidChangeState((e) => this.stateChanged(client, launcher, e.newState));
    let failure: unknown;
    try {
      await client.start();
    } catch (err) {
      failure = err;
    }
    if (generation !== this.generation) {
      return; // stopped meanwhile: that stop disposes this client
    }
    // The client's start can resolve though the server is gone: when the connection closes
    // before `initialize` fails, it hands back no promise to reject.
    if (failure !== undefined || client.state !== State.Running) {
      await this.clientFailed(launch, launcher, failure);
      return;
    }
    this.checkServerVersion(client, launch.bundled ? 'the bundled server' : launch.command, launch.bundled);
  }

  /** A server that did not get to run: why (how its process ended, else the client's error), with the fix. */
  private async clientFailed(launch: Launch, launcher: ServerLauncher, failure: unknown): Promise<void> {
    // Asked before a process still up is killed by the dispose.
    const why = (await launcher.why()) ?? (failure === undefined ? 'it stopped during start-up' : errorText(failure));
    await this.disposeClient();
    const fix = launch.bundled
      ? 'Set "kebab.interpreter" to another Python, or "kebab.serverPath" to a kebab-lsp executable.'
      : 'Set "kebab.serverPath" to the kebab-lsp executable.';
    void this.failStart(`Kebab: could not start '${launch.command}': ${why}. ${fix}`,
      launch.bundled ? 'kebab.interpreter' : 'kebab.serverPath', why);
  }

  /** The server's command: `kebab.serverPath`, else the bundled server run by a Python found, else PATH's. */
  private async launchCommand(): Promise<Launch | { error: string }> {
    const serverArgs = stringListSetting('serverArgs', '["--log-level", "debug"]').map(expandPath);
    const userServer = stringSetting('serverPath');
    const launcher = path.join(this.extensionPath, 'server', 'launch.py');
    if (userServer) {
      // A server the user named always wins over the bundled one.
      return { command: expandPath(userServer), args: serverArgs, bundled: false };
    }
    if (!fs.existsSync(launcher)) {
      return { command: 'kebab-lsp', args: serverArgs, bundled: false }; // a VSIX without a bundled server
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(this.extensionPath, 'server', 'manifest.json'), 'utf8')) as { pythons: string[] };
    const found = await findInterpreter(launcher, manifest.pythons, this.output);
    if ('error' in found) {
      return found;
    }
    return { command: found.command, args: [...found.args, '-I', '-S', launcher, ...serverArgs], bundled: true };
  }

  private clientOptions(closed: () => CloseHandlerResult): LanguageClientOptions {
    return {
      // Every file: the server indexes any language, and didSave keeps its index current.
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: serverSettings(),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // A failed `initialize` is reported by doStart, and not tried again.
      initializationFailedHandler: () => false,
      errorHandler: {
        error: (err, _message, count) => ({
          action: (count && count <= 3) || pipeGone(err) ? ErrorAction.Continue : ErrorAction.Shutdown,
        }),
        closed,
      },
    };
  }

  /**
   * Follows the client through the server's life after the start: polling resumes once it
   * runs again (after the client restarted a crashed server, too), and a server that stopped
   * for good is reported. A start that failed is doStart's to report; a stop of ours clears
   * `this.client` first and is not reported.
   */
  private async stateChanged(client: KebabClient, launcher: ServerLauncher, state: State): Promise<void> {
    if (this.client !== client) {
      return;
    }
    if (state === State.Running) {
      launcher.ran = true;
      this.startError = undefined;
      this.schedulePoll(0);
      return;
    }
    if (state === State.Starting) {
      // The restart is under way: if it fails, the client says Stopped before it asks `closed`.
      launcher.restarting = false;
      return;
    }
    if (!launcher.ran) {
      return;
    }
    this.stopPolling();
    if (launcher.restarting) {
      this.setStatus('$(loading~spin) Kebab', 'kebab-lsp stopped; restarting it');
      return;
    }
    const why = (await launcher.why()) ?? 'closed its connection';
    if (this.client !== client) {
      return;
    }
    this.startError = `it ${why}${launcher.gaveUp()}`;
    this.output.appendLine(`kebab-lsp stopped: ${this.startError}`);
    this.setStatus('$(error) Kebab', `kebab-lsp is not running: ${this.startError}`, 'error');
    this.notRunning();
  }

  /** A start that threw (an ill-typed client setting, an unreadable manifest): said, never swallowed. */
  private startFailed(err: unknown): void {
    const setting = err instanceof SettingError ? err.setting : 'kebab.serverPath';
    void this.failStart(`Kebab: cannot start kebab-lsp: ${errorText(err)}.`, setting, errorText(err));
  }

  /** One error message with the fix; the status bar turns red; commands explain. */
  private async failStart(message: string, setting: string, reason?: string): Promise<void> {
    this.startError = reason ?? message.replace(/^Kebab: /, '');
    this.setStatus('$(error) Kebab', `kebab-lsp failed to start: ${this.startError}`, 'error');
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

  /**
   * Stops the server, and a start under way: it gives up at its next step, or, if its server
   * is already starting (which the client cannot stop), that process is killed, which ends
   * the start at once. No server outlives its client.
   */
  async stop(): Promise<void> {
    this.generation += 1;
    this.starting = undefined;
    this.stopPolling();
    if (this.client?.state === State.Starting) {
      this.launcher?.kill();
    }
    await this.serialized(() => this.disposeClient());
  }

  async deactivate(): Promise<void> {
    this.deactivated = true;
    await this.stop();
  }

  /** Shutdown and exit for a running server; then its process is ended if it lingers. */
  private async disposeClient(): Promise<void> {
    const client = this.client;
    const launcher = this.launcher;
    this.client = undefined;
    this.launcher = undefined;
    this.stateListener?.dispose();
    this.stateListener = undefined;
    if (client?.state === State.Running) {
      try {
        await client.dispose(5000);
      } catch (err) {
        this.output.appendLine(`stopping the server: ${errorText(err)}`);
      }
    }
    await launcher?.end();
  }

  private async restart(): Promise<void> {
    await this.stop();
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
  private async runningClient(report = true): Promise<KebabClient | undefined> {
    // A restart may supersede the start awaited: then wait for the one that replaced it.
    let starting;
    do {
      starting = this.start();
      await starting;
    } while (starting !== this.starting && !this.deactivated);
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

  // -- Kebab: Rebuild Index --

  /** The server's kebab.reindex, once it runs: every folder's index rebuilt from scratch. */
  private async rebuildIndex(): Promise<void> {
    const result = await this.request('Rebuild Index', REINDEX_COMMAND, 'Kebab: rebuilding the index',
      (client) => client.sendRequest(ExecuteCommandRequest.type, { command: REINDEX_COMMAND, arguments: [] }));
    if (result === undefined) {
      return;
    }
    const queued = (result as { queued?: string[] } | null)?.queued ?? [];
    vscode.window.showInformationMessage(`Kebab: rebuilding the index of ${plural(queued.length, 'folder')} from scratch.`);
    this.schedulePoll(0);
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
    const response = await this.request('search', 'kebab/search', `Kebab: searching for "${query}"`,
      async (client) => {
        try {
          return await client.sendRequest<SearchResponse | GroupedResponse>('kebab/search', { query, group: true });
        } catch (err) {
          // A server older than grouped answers rejects the unknown param: ask it for one list.
          if (err instanceof ResponseError && err.code === ErrorCodes.InvalidParams && /'group'/.test(err.message)) {
            return client.sendRequest<SearchResponse>('kebab/search', { query });
          }
          throw err;
        }
      });
    if (!response) {
      return;
    }
    const warnings = answerWarnings(response.meta);
    // Definitions, files, blocks, each under its separator; a server that does not group
    // (older than `group`) answers with one ranked list, shown as it is.
    const groups: [string, PickItem[]][] = 'hits' in response
      ? [['', response.hits.map(hitItem)]]
      : [
        ['Definitions', (response.definitions ?? []).map(hitItem)],
        ['Files', (response.files ?? []).map(fileItem)],
        ['Blocks', (response.blocks ?? []).map(hitItem)],
      ];
    const hits = 'hits' in response ? response.hits.length
      : (response.definitions?.length ?? 0) + (response.blocks?.length ?? 0);
    if (groups.every(([, items]) => items.length === 0)) {
      vscode.window.showInformationMessage(`Kebab: no results for "${query}"${inParens(warnings)}.`);
      return;
    }
    const items: PickItem[] = [];
    for (const [label, rows] of groups) {
      if (rows.length) {
        items.push(...(label ? [separator(label)] : []), ...rows);
      }
    }
    const intent = response.meta?.intent;
    const how = intent ? ` (${intent.name}: ${intent.rule})` : '';
    await this.pick(`Kebab: ${hits} of ${countOf(response.meta, hits)} results for "${query}"${how}`, warnings, items);
  }

  // -- Kebab: Find Usages --

  /** The usages of the name under the cursor (kebab/references), grouped by file. */
  async findUsages(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      vscode.window.showInformationMessage('Kebab: Find Usages needs a file: open one and put the cursor on a name.');
      return;
    }
    const doc = editor.document;
    if (doc.uri.scheme !== 'file') {
      vscode.window.showInformationMessage('Kebab: Find Usages works in files of a workspace folder; this editor shows no file on disk.');
      return;
    }
    const at = editor.selection.active;
    const word = doc.getWordRangeAtPosition(at);
    if (!word) {
      vscode.window.showInformationMessage(
        `Kebab: no name under the cursor (line ${at.line + 1}, column ${at.character + 1}); put it on a name to find its usages.`);
      return;
    }
    const name = doc.getText(word);
    const response = await this.request(`Find Usages of "${name}"`, 'kebab/references',
      `Kebab: finding usages of "${name}"`,
      (client) => client.sendRequest<SearchResponse>('kebab/references', {
        textDocument: { uri: doc.uri.toString() },
        position: { line: at.line, character: at.character },
        k: USAGES_K,
      }));
    if (!response) {
      return;
    }
    const warnings = answerWarnings(response.meta);
    if (doc.isDirty) {
      warnings.push(`${path.basename(doc.fileName)} has unsaved changes; the index knows it as last saved`);
    }
    const used = response.hits.find((h) => h.ref)?.ref?.name ?? name;
    if (response.hits.length === 0) {
      vscode.window.showInformationMessage(`Kebab: no usages of "${used}" found${inParens(warnings)}.`);
      return;
    }
    // One separator per file, files in the order of their best usage, each file's usages in
    // the server's order (calls and imports before bare mentions).
    const byFile = new Map<string, SearchHit[]>();
    for (const hit of response.hits) {
      const list = byFile.get(hit.location.uri) ?? [];
      list.push(hit);
      byFile.set(hit.location.uri, list);
    }
    const items: PickItem[] = [];
    for (const hits of byFile.values()) {
      items.push(separator(hits[0].path), ...hits.map(hitItem));
    }
    const n = response.hits.length;
    await this.pick(`Kebab: ${n} of ${countOf(response.meta, n)} usages of "${used}" in ${plural(byFile.size, 'file')}`,
      warnings, items);
  }

  // -- Kebab: Find Similar Code --

  /**
   * Code like the selection (kebab/similar), the selection itself left out. With an empty
   * selection, the cursor's line (as :KebabSimilar without a range in Neovim).
   */
  async findSimilar(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      vscode.window.showInformationMessage('Kebab: Find Similar Code needs a file: open one and select some code.');
      return;
    }
    const doc = editor.document;
    const range = similarRange(doc, editor.selection);
    if (!range) {
      vscode.window.showInformationMessage(
        'Kebab: Find Similar Code needs some code: select it, or put the cursor on a line that has some.');
      return;
    }
    const lines = range.start.line === range.end.line
      ? `${range.start.line + 1}` : `${range.start.line + 1}-${range.end.line + 1}`;
    const where = `${vscode.workspace.asRelativePath(doc.uri)}:${lines}`;
    // A saved file is sent as a range, which the server reads from its index and leaves out of
    // the answer; an unsaved or untitled one as the text on screen.
    const onDisk = doc.uri.scheme === 'file' && !doc.isDirty;
    const params = onDisk
      ? { textDocument: { uri: doc.uri.toString() }, range: wireRange(range) }
      : { text: doc.getText(range) };
    const response = await this.request(`Find Similar Code for ${where}`, 'kebab/similar',
      `Kebab: finding code similar to ${where}`,
      (client) => client.sendRequest<SearchResponse>('kebab/similar', params));
    if (!response) {
      return;
    }
    const warnings = answerWarnings(response.meta);
    if (!onDisk && doc.uri.scheme === 'file') {
      warnings.push('unsaved changes: searched for the text on screen, so its saved copy may be listed too');
    }
    if (response.hits.length === 0) {
      vscode.window.showInformationMessage(`Kebab: no code similar to ${where} found${inParens(warnings)}.`);
      return;
    }
    const n = response.hits.length;
    await this.pick(`Kebab: ${n} of ${countOf(response.meta, n)} blocks similar to ${where}`, warnings,
      response.hits.map(hitItem));
  }

  // -- the shared picker and jump --

  /**
   * One request to the running server, with a progress note in the status bar; undefined when
   * there is no server or the request failed (`requestFailed` has said why).
   */
  private async request<T>(what: string, method: string, title: string,
    send: (client: LanguageClient) => Promise<T>): Promise<T | undefined> {
    const client = await this.runningClient();
    if (!client) {
      return undefined;
    }
    try {
      return await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title },
        () => send(client));
    } catch (err) {
      this.requestFailed(what, method, err);
      return undefined;
    }
  }

  /**
   * A request that failed: cancelled is quiet, a stopped server says so, a server without the
   * method says it needs a newer one, and the rest (InvalidParams, a stale handle, ...) shows the
   * server's message and code.
   */
  private requestFailed(what: string, method: string, err: unknown): void {
    if (err instanceof ResponseError && err.code === LSPErrorCodes.RequestCancelled) {
      return;
    }
    const client = this.client;
    if (!client || client.state !== State.Running) {
      this.notRunning();
      return;
    }
    if (err instanceof ResponseError && err.code === ErrorCodes.MethodNotFound) {
      vscode.window.showErrorMessage(`Kebab: ${what} needs a newer kebab-lsp: the running server does not answer ${method}. `
        + 'Clear "kebab.serverPath" to use the server bundled with this extension, or update yours.');
      return;
    }
    vscode.window.showErrorMessage(`Kebab: ${what} failed: ${errorText(err)}`);
  }

  private pick(title: string, warnings: string[], items: PickItem[]): Promise<void> {
    const pick = vscode.window.createQuickPick<PickItem>();
    pick.title = title + (warnings.length ? ` — ⚠ ${warnings.join('; ')}` : '');
    pick.placeholder = 'Type to filter the results; Enter opens one';
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    keepOrderWhileFiltering(pick);
    pick.items = items;
    return new Promise<void>((resolve) => {
      pick.onDidAccept(async () => {
        const item = pick.selectedItems[0] ?? pick.activeItems[0];
        pick.hide();
        if (item?.jump) {
          await this.open(item.jump);
        }
      });
      pick.onDidHide(() => {
        pick.dispose();
        resolve();
      });
      pick.show();
    });
  }

  private async open(jump: Jump): Promise<void> {
    try {
      const uri = vscode.Uri.parse(jump.uri);
      const r = jump.range;
      const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
      const doc = await vscode.workspace.openTextDocument(uri);
      const editor = await vscode.window.showTextDocument(doc, {
        selection: new vscode.Range(range.start, range.start),
        preview: true,
      });
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      editor.revealRange(new vscode.Range(range.start, range.start), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      // Mark the whole match for a moment, as Go to Symbol does, with the cursor at its start.
      if (!range.isEmpty) {
        editor.setDecorations(this.flash, [range]);
        setTimeout(() => editor.setDecorations(this.flash, []), HIT_FLASH_MS);
      }
    } catch (err) {
      vscode.window.showErrorMessage(`Kebab: cannot open ${jump.path}: ${errorText(err)}`);
    }
  }

  // -- status --

  private setStatus(text: string, tooltip: string, severity?: 'error' | 'warning'): void {
    this.statusItem.text = text;
    this.statusItem.tooltip = tooltip;
    this.statusItem.backgroundColor = severity ? new vscode.ThemeColor(`statusBarItem.${severity}Background`) : undefined;
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
      this.setStatus('$(warning) Kebab', `kebab/status failed: ${errorText(err)}`, 'error');
    }
    if (this.client === client && client.state === State.Running) {
      this.schedulePoll(building ? POLL_BUILDING_MS : POLL_IDLE_MS);
    }
  }

  private renderStatus(status: StatusResponse): void {
    const files = status.folders.reduce((n, f) => n + f.files, 0);
    const unopened = status.unopened ?? [];
    const lines = [
      ...status.folders.map((f) => {
        const state = f.building
          ? `indexing${f.progress ? ` ${f.progress.done}/${f.progress.total} files` : ''}`
          : 'up to date';
        return `${path.basename(f.root)}: ${f.files} files, ${f.symbols} symbols, ${state}`;
      }),
      ...unopened.map(unopenedText),
    ];
    const tooltip = (lines.length ? lines.join('\n') : nothingIndexed()) + '\nClick for details';
    // A folder that is not searched at all must not look like a healthy, smaller index.
    const severity = unopened.length ? 'warning' : undefined;
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
      this.setStatus(`$(sync~spin) Kebab${pct}`, `Indexing…\n${tooltip}`, severity);
    } else if (unopened.length) {
      this.setStatus(`$(warning) Kebab: ${plural(unopened.length, 'folder')} not indexed`, tooltip, severity);
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
      const changes = f.writer ? `; changes on disk: ${f.writer.changes}` : '';
      const warned = f.warnings?.length ? `; ⚠ ${f.warnings.join('; ')}` : '';
      return `${path.basename(f.root)}: ${f.files} files, ${f.symbols} symbols, ${f.chunks} chunks, ${state}; index in ${f.index_dir}${changes}${warned}`;
    });
    const unopened = status.unopened ?? [];
    parts.push(...unopened.map((f) => `⚠ ${unopenedText(f)}`));
    const message = parts.length ? `Kebab: ${parts.join(' | ')}` : `Kebab: ${nothingIndexed()}.`;
    const actions = ['Rebuild Index', ...(unopened.length ? ['Open Settings'] : []), 'Show Output'];
    const show = unopened.length ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const choice = await show(message, ...actions);
    if (choice === 'Rebuild Index') {
      await this.rebuildIndex();
    } else if (choice === 'Open Settings') {
      vscode.commands.executeCommand('workbench.action.openSettings', 'kebab.indexDir');
    } else if (choice === 'Show Output') {
      this.output.show();
    }
  }
}

/**
 * What a status listing no folder means: none is open, or none of those open is indexed (a
 * server older than `unopened` leaves out the folders it could not open, and logs why).
 */
function nothingIndexed(): string {
  const open = vscode.workspace.workspaceFolders?.length ?? 0;
  if (!open) {
    return 'no workspace folder is open, nothing is indexed';
  }
  const which = open === 1 ? 'the workspace folder is' : `none of the ${open} workspace folders is`;
  return `${which} indexed; the Kebab output says why`;
}

/** "ws1 is not indexed: <reason>", and where indexes go when its index is what failed. */
function unopenedText(folder: UnopenedFolder): string {
  return `${folder.name || folder.root || folder.uri} is not indexed: ${folder.reason}${indexDirHint(folder.reason)}`;
}

function indexDirHint(reason: string): string {
  if (/not a local directory/i.test(reason)) {
    return '';
  }
  const dir = vscode.workspace.getConfiguration(SECTION).get<unknown>('indexDir');
  return typeof dir === 'string' && dir.trim()
    ? ` (indexes go under "kebab.indexDir", ${dir}: make it a writable directory, or clear it for the user cache)`
    : ' (indexes go under the user cache directory: make it writable, or set "kebab.indexDir")';
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

/** "call on calculator", "import", ...: how a usage hit uses the name. */
function refText(ref: UsageRef): string {
  return ref.kind === 'call' && ref.receiver ? `call on ${ref.receiver}` : ref.kind;
}

/**
 * Text from the index as a QuickPick shows it: there `$(name)` is an icon, so a line such as
 * `stamp="$(hostname)"` lost the very word searched for. `\$(name)` is shown as `$(name)`;
 * a `$(` that is no icon's syntax (`$(date +%s)`) is shown as it is, and left so.
 */
function literal(text: string): string {
  return text.replace(/\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/g, (icon) => `\\${icon}`);
}

/** A hit's row: its definition (or chunk) title, `path:line` of the match and its kind of use, the line. */
function hitItem(hit: SearchHit): PickItem {
  const icon = KIND_ICONS[hit.kind] ?? 'file-text';
  const range = hit.selection ?? hit.location.range;
  return {
    label: `$(${icon}) ${literal(hit.title)}`,
    description: literal(`${hit.path}:${range.start.line + 1}` + (hit.ref ? ` · ${refText(hit.ref)}` : '')),
    detail: literal(firstLine(hit)),
    jump: { uri: hit.location.uri, path: hit.path, range },
  };
}

/** A file's row (grouped search): its path, how many hits it holds, its top doc or outline. */
function fileItem(file: FileGroup): PickItem {
  const outline = (file.defines ?? []).map((d) => d.name);
  const shown = outline.slice(0, 8).join(', ') + (outline.length > 8 ? ', …' : '');
  const top = { line: 0, character: 0 };
  return {
    label: `$(file) ${literal(file.path)}`,
    // A file its file vector found, with no hit of its own: what it is about matched.
    description: `${file.hits ? plural(file.hits, 'hit') : 'about this'} · ${file.lang}`,
    detail: literal(file.doc || (shown ? `defines ${shown}` : '')),
    jump: { uri: file.uri, path: file.path, range: { start: top, end: top } },
  };
}

/**
 * Typing in the QuickPick filters its rows but keeps the server's order and the separators:
 * VS Code re-sorts by label match and drops every separator unless `sortByLabel` is false.
 * That property is not in the published API types yet (microsoft/vscode#73904); VS Code's
 * extension host takes it all the same (the e2e test checks it in VS Code 1.139), and a host
 * that refused it would keep its default.
 */
function keepOrderWhileFiltering(pick: vscode.QuickPick<PickItem>): void {
  try {
    (pick as vscode.QuickPick<PickItem> & { sortByLabel: boolean }).sortByLabel = false;
  } catch {
    // the default: sorted by label while filtering
  }
}

function separator(label: string): PickItem {
  return { label, kind: vscode.QuickPickItemKind.Separator };
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** " (a; b)" or "". */
function inParens(warnings: string[]): string {
  return warnings.length ? ` (${warnings.join('; ')})` : '';
}

/** "12" or "12+" (a lower bound): how many matches the server counted. */
function countOf(meta: SearchMeta | undefined, shown: number): string {
  const total = meta?.total_matches ?? shown;
  return meta?.count_accuracy === 'lower_bound' ? `${total}+` : `${total}`;
}

/** The answer's warnings, plus one when the index is still being built and none says so. */
function answerWarnings(meta: SearchMeta | undefined): string[] {
  const warnings = [...(meta?.warnings ?? [])];
  if (meta?.index?.building && !warnings.some((w) => /build|index/i.test(w))) {
    warnings.push('the index is still being built; results may be incomplete');
  }
  return warnings;
}

function wireRange(range: vscode.Range): WireRange {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

/**
 * What Find Similar Code looks for: the selection, without a last line it only touches (lines
 * selected whole end at column 0 of the next), or, with nothing selected, the cursor's line
 * without its indentation. Undefined when that holds no code.
 */
export function similarRange(doc: vscode.TextDocument, selection: vscode.Selection): vscode.Range | undefined {
  let range: vscode.Range;
  if (selection.isEmpty) {
    const line = doc.lineAt(selection.active.line);
    range = new vscode.Range(line.lineNumber, line.firstNonWhitespaceCharacterIndex, line.lineNumber, line.text.length);
  } else if (selection.end.character === 0 && selection.end.line > selection.start.line) {
    range = new vscode.Range(selection.start, doc.lineAt(selection.end.line - 1).range.end);
  } else {
    range = new vscode.Range(selection.start, selection.end);
  }
  return doc.getText(range).trim() ? range : undefined;
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
    await extension.deactivate();
  }
}
