/**
 * The environment a check command runs in: the variables test runners and builds read, the ones the
 * user names, and nothing else; and the secrets to scrub from what the command prints.
 *
 * @remarks
 * The command's output becomes the verdict's reason, which the decision log, `rung chat --json` and,
 * with the team's opt-in, every teammate's `rung ledger decisions --team` print. It used to get the
 * caller's whole environment less Rung's own keys, and `--verify-command env` put `PGPASSWORD` — and
 * any `AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`, `NPM_TOKEN` the shell held — into that row. A deny-list
 * cannot know every secret's name; an allow-list only has to know what a test run needs, and the user
 * can name more (`rung.verifyCommandEnv`, `rung chat --verify-env NAME`).
 *
 * What a command could still reach another way (a `.env` file, `~/.pgpass`, its parent's environment
 * under `/proc`) is scrubbed from the reason: every provider key, the team ledger's password, and the
 * value of every variable of the caller's whose name looks like a secret's.
 */

/**
 * The variables every command gets, when the caller has them, by name (compared without regard to case,
 * as Windows compares them).
 *
 * @remarks
 * What `npm test`, `cargo test`, `go test`, `pytest`, `mvn test` and `dotnet test` read to find their
 * tools, caches and settings, and nothing that carries a credential or changes what code runs:
 *
 * - The system: `PATH` (where the tools are), `HOME` and `USER`/`LOGNAME`/`USERNAME` (`~/.npmrc`,
 *   `~/.cargo`, `~/.m2`, `~/.nuget`, a default `GOPATH`), `SHELL`, `LANG`/`LANGUAGE` and every `LC_*`
 *   (the encoding output is written in), `TERM`, `TZ`, the temporary folders (`TMPDIR`, `TMP`, `TEMP`),
 *   the XDG folders for config and caches, and what Windows itself needs to start a process
 *   (`SystemRoot`, `ComSpec`, `PATHEXT`, `USERPROFILE`, `APPDATA`, …). Certificate files (`SSL_CERT_FILE`,
 *   `SSL_CERT_DIR`, `NODE_EXTRA_CA_CERTS`) are paths, and a test behind a TLS-inspecting proxy needs them.
 * - Each toolchain's locations: Node's (`NVM_DIR`, `NVM_BIN`, `NODE_PATH`, `VOLTA_HOME`, `PNPM_HOME`,
 *   `COREPACK_HOME`), Java's (`JAVA_HOME`, `MAVEN_HOME`, `M2_HOME`, `GRADLE_HOME`, `GRADLE_USER_HOME`,
 *   `ANDROID_HOME`, `ANDROID_SDK_ROOT`), Go's (`GOPATH`, `GOROOT`, `GOCACHE`, `GOMODCACHE`, `GOBIN`),
 *   Rust's (`CARGO_HOME`, `RUSTUP_HOME`, `CARGO_TARGET_DIR`), Python's (`VIRTUAL_ENV`, `CONDA_PREFIX`,
 *   `CONDA_DEFAULT_ENV`, `PYTHONPATH`, `PYTHONHOME`, `PYENV_ROOT`), .NET's (`DOTNET_ROOT`,
 *   `DOTNET_CLI_HOME`, `NUGET_PACKAGES`) and Ruby's (`GEM_HOME`, `GEM_PATH`, `RBENV_ROOT`).
 *
 * Left out on purpose: `NODE_OPTIONS`, `JAVA_TOOL_OPTIONS`, `MAVEN_OPTS`, `GOFLAGS` (options that can load
 * code into every process of the run), the proxy variables and `GOPROXY` (they can hold a user and a
 * password in their URL) and every `npm_config_*` (the registry's auth token is one). A user whose tests
 * need one names it.
 */
export const ALLOWED_VARIABLES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'USERNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_RUNTIME_DIR',
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'COMMONPROGRAMFILES',
  'HOMEDRIVE',
  'HOMEPATH',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  'OS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'NVM_DIR',
  'NVM_BIN',
  'NODE_PATH',
  'VOLTA_HOME',
  'PNPM_HOME',
  'COREPACK_HOME',
  'JAVA_HOME',
  'MAVEN_HOME',
  'M2_HOME',
  'GRADLE_HOME',
  'GRADLE_USER_HOME',
  'ANDROID_HOME',
  'ANDROID_SDK_ROOT',
  'GOPATH',
  'GOROOT',
  'GOCACHE',
  'GOMODCACHE',
  'GOBIN',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'CARGO_TARGET_DIR',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'CONDA_DEFAULT_ENV',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYENV_ROOT',
  'DOTNET_ROOT',
  'DOTNET_CLI_HOME',
  'NUGET_PACKAGES',
  'GEM_HOME',
  'GEM_PATH',
  'RBENV_ROOT',
];

/** Prefixes of allowed names: the locale's categories (`LC_ALL`, `LC_CTYPE`, …). */
const ALLOWED_PREFIXES: readonly string[] = ['LC_'];

/** The variables `rung` reads keys from (`RUNG_OPENROUTER_API_KEY`; see `apiKeyVariable` in panel.ts): never given to a command, even when named. */
const API_KEY_VARIABLE = /^RUNG_.+_API_KEY$/i;

/**
 * A name that looks like a secret's: a password, secret, token, key, credential, cookie or signature.
 * Its value is scrubbed from a command's output whether or not the command got it.
 *
 * @remarks
 * A cloud's secrets say so in their names (`AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
 * `AZURE_CLIENT_SECRET`, `GOOGLE_APPLICATION_CREDENTIALS`); every `AWS_*` was scrubbed at first, and
 * `AWS_CA_BUNDLE` blanked the path of the certificate bundle wherever a test printed it, `AWS_REGION`
 * every `us-east-1`.
 */
const SECRET_NAME = /PASS|SECRET|TOKEN|KEY|CREDENTIAL|AUTH|COOKIE|PRIVATE|SIGNATURE/i;
/** A name that says outright it holds a password, a secret or a token: its value is scrubbed however short. */
const PLAINLY_SECRET_NAME = /PASSW(OR)?D|PASSPHRASE|SECRET|TOKEN/i;
/**
 * The shortest value of a variable that only looks secret (`USE_KEYRING`, `SKIP_AUTH`) that is scrubbed,
 * characters: such a variable often holds `true` or `auto`, and scrubbing those would blank the words
 * wherever the test output has them, while a real key is far longer.
 */
const MIN_LOOKALIKE_CHARS = 8;

/** A name a user may list: what a shell can set (letters, digits and `_`, not starting with a digit). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const ALLOWED = new Set(ALLOWED_VARIABLES.map((name) => name.toUpperCase()));

/** Whether a variable's name looks like a secret's. */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface CommandEnvironmentOptions {
  /** Further variables the user lets the command see, by name. */
  allow?: readonly string[];
  /** Secrets held elsewhere (provider keys from SecretStorage, the team ledger's password). */
  secrets?: readonly string[];
}

/**
 * The environment a command gets from `env`: the allowed variables and the ones `allow` names, less
 * every `RUNG_*_API_KEY` and any variable whose value is a secret; and the secrets to scrub from what
 * it prints.
 */
export function commandEnvironment(
  env: Record<string, string | undefined>,
  options: CommandEnvironmentOptions = {},
): { env: Record<string, string>; secrets: string[] } {
  const named = new Set((options.allow ?? []).map((name) => name.toUpperCase()));
  const keys = [
    ...(options.secrets ?? []),
    ...Object.entries(env).flatMap(([name, value]) => (API_KEY_VARIABLE.test(name) && value ? [value] : [])),
  ].filter((key) => key !== '');
  const child: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || API_KEY_VARIABLE.test(name) || keys.includes(value)) continue;
    const upper = name.toUpperCase();
    if (ALLOWED.has(upper) || named.has(upper) || ALLOWED_PREFIXES.some((prefix) => upper.startsWith(prefix))) child[name] = value;
  }
  const lookSecret = Object.entries(env).flatMap(([name, value]) =>
    value && looksSecret(name) && (PLAINLY_SECRET_NAME.test(name) || value.length >= MIN_LOOKALIKE_CHARS) ? [value] : [],
  );
  return { env: child, secrets: [...new Set([...keys, ...lookSecret])] };
}
