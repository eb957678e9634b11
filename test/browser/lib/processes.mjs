// The programs under test as child processes: quell-sim and `quell run`, each with its output
// in a file of the test's directory; every child is stopped when the test ends, by its own pid.
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const children = new Set();

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls fn (sync or async) until it returns a truthy value; throws `what` after timeoutMs.
export async function waitFor(what, fn, timeoutMs = 30000, everyMs = 200) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}` +
        (last instanceof Error ? `: ${last.message}` : ''));
    }
    await sleep(everyMs);
  }
}

function start(name, argv, env, dir) {
  const out = path.join(dir, `${name}.out`);
  const err = path.join(dir, `${name}.log`);
  const child = spawn(argv[0], argv.slice(1), {
    env: {...process.env, ...env},
    stdio: ['ignore', fs.openSync(out, 'w'), fs.openSync(err, 'w')],
  });
  const proc = {name, child, out, err, exited: null};
  child.on('exit', (code, signal) => { proc.exited = {code, signal}; children.delete(proc); });
  children.add(proc);
  return proc;
}

export async function stop(proc) {
  if (proc.exited) return proc.exited;
  proc.child.kill('SIGTERM');
  try {
    await waitFor(`${proc.name} to exit`, () => proc.exited, 15000, 100);
  } catch {
    proc.child.kill('SIGKILL');
    await waitFor(`${proc.name} to die`, () => proc.exited, 5000, 100);
  }
  return proc.exited;
}

export async function stopAll() {
  await Promise.all([...children].map(stop));
}

// quell-sim with a scenario on a free port; resolves to {proc, url}.
export async function startSim(binary, scenario, dir) {
  const proc = start('quell-sim', [binary, '--listen', '127.0.0.1:0', '--scenario', scenario],
    {}, dir);
  const line = await waitFor('quell-sim to print its port', () => {
    if (proc.exited) throw new Error(`quell-sim exited: ${fs.readFileSync(proc.err, 'utf8')}`);
    const m = /^listening (\S+:\d+)/m.exec(fs.readFileSync(proc.out, 'utf8'));
    return m && m[1];
  }, 15000);
  return {proc, url: `http://${line}`};
}

// The JSON log lines of a `quell run` with event `event`.
export function events(proc, event) {
  const out = [];
  for (const line of fs.readFileSync(proc.err, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const j = JSON.parse(line);
      if (j.event === event) out.push(j);
    } catch { /* a line cut by the read: the next poll reads it whole */ }
  }
  return out;
}

// The last lines of a `quell run` log, without the per-cycle lines that would fill it.
export function logTail(proc, lines = 30) {
  try {
    return fs.readFileSync(proc.err, 'utf8').split('\n')
      .filter((l) => !/"event":"poll\.(cycle_start|cycle_end|condition)"/.test(l))
      .slice(-lines).join('\n');
  } catch {
    return '';
  }
}

// `quell run -c config`; resolves to {proc, base} once its HTTP listener logged its port.
export async function startQuell(binary, config, env, dir, name) {
  const proc = start(name, [binary, 'run', '-c', config], env, dir);
  const listening = await waitFor(`${name} to listen`, () => {
    if (proc.exited) throw new Error(`${name} exited ${JSON.stringify(proc.exited)}:\n${logTail(proc)}`);
    return events(proc, 'http.listening')[0];
  }, 30000);
  return {proc, base: `http://127.0.0.1:${listening.port}`};
}
