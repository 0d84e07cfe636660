// `node scripts/busy.mjs [--hogs N] [--max-minutes M] [--] COMMAND [ARGS…]`: runs COMMAND while every core
// is kept busy, to show that a test layer passes on a machine that is not idle (a user's laptop, a shared
// CI runner). `npm run test:host:busy` runs the test host this way; `npm run test:busy` all of `npm test`.
//
// The load is N processes (default: one per core) that spin until stopped. The script starts them, remembers
// their pids, runs COMMAND, and stops exactly those pids when COMMAND ends or the script is interrupted; each
// spinner also ends by itself after --max-minutes (default 60), so one orphaned by a killed script cannot
// outlive the run by much. It prints COMMAND's wall time and the load averages seen while it ran, and exits
// with COMMAND's status.
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';

const USAGE = 'usage: node scripts/busy.mjs [--hogs N] [--max-minutes M] [--] COMMAND [ARGS…]';
/** How often the load average is read while COMMAND runs, ms. */
const LOAD_SAMPLE_MS = 10_000;
/** How long a spinner may take to exit once told to, ms, before it is killed outright. */
const STOP_GRACE_MS = 5_000;

function fail(message) {
  process.stderr.write(`busy: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function readArgs(args) {
  let hogs = availableParallelism();
  let maxMinutes = 60;
  let index = 0;
  const whole = (flag, text) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      fail(`${flag} takes a whole number, 1 or more (got ${text === undefined ? 'nothing' : JSON.stringify(text)})`);
    return value;
  };
  for (; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--') {
      index++;
      break;
    }
    if (arg === '--hogs') hogs = whole(arg, args[++index]);
    else if (arg === '--max-minutes') maxMinutes = whole(arg, args[++index]);
    else if (arg.startsWith('--')) fail(`no option ${arg}`);
    else break;
  }
  const command = args.slice(index);
  if (command.length === 0) fail('name the command to run while the cores are busy');
  return { hogs, maxMinutes, command };
}

/** One process that spins on a core until it is stopped or `maxMs` has passed. */
function startHog(maxMs) {
  const spin = `const end = Date.now() + ${maxMs}; while (Date.now() < end) {}`;
  const child = spawn(process.execPath, ['-e', spin], { stdio: 'ignore' });
  const exited = new Promise((done) => child.once('exit', done));
  return { pid: child.pid, child, exited };
}

async function stopHogs(hogs) {
  for (const hog of hogs) hog.child.kill('SIGTERM');
  for (const hog of hogs) {
    let timer;
    const late = new Promise((done) => (timer = setTimeout(() => done('late'), STOP_GRACE_MS)));
    if ((await Promise.race([hog.exited, late])) === 'late') hog.child.kill('SIGKILL');
    clearTimeout(timer);
  }
}

const { hogs: count, maxMinutes, command } = readArgs(process.argv.slice(2));
const hogs = Array.from({ length: count }, () => startHog(maxMinutes * 60_000));
const loads = [loadavg()[0]];
const sampler = setInterval(() => loads.push(loadavg()[0]), LOAD_SAMPLE_MS);
process.stdout.write(
  `busy: ${count} spinning processes (pids ${hogs.map((hog) => hog.pid).join(', ')}) on ${availableParallelism()} cores, each ending by itself after ${maxMinutes} min; running ${command.join(' ')}\n`,
);

let stopping = false;
async function finish(status) {
  if (stopping) return;
  stopping = true;
  clearInterval(sampler);
  await stopHogs(hogs);
  process.exit(status);
}

const started = performance.now();
const run = spawn(command[0], command.slice(1), { stdio: 'inherit' });
// Interrupted, the script passes the signal on to COMMAND, and stops the spinners once COMMAND has ended.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => run.kill(signal));
run.on('error', (error) => {
  process.stderr.write(`busy: could not run ${command[0]}: ${error.message}\n`);
  void finish(127);
});
run.on('exit', (code, signal) => {
  loads.push(loadavg()[0]);
  const seconds = Math.round((performance.now() - started) / 1000);
  const low = Math.min(...loads).toFixed(1);
  const high = Math.max(...loads).toFixed(1);
  process.stdout.write(
    `busy: ${command.join(' ')} ${code === 0 ? 'passed' : `ended with ${code ?? signal}`} in ${Math.floor(seconds / 60)} min ${seconds % 60} s with ${count} spinning processes; 1-minute load average ${low}–${high}\n`,
  );
  void finish(code ?? 1);
});
