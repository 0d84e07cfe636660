// `node scripts/prompts.mjs SOURCE OUTCOMES [OUT]`: rebuilds the 9-model replay data's prompts file, the
// text each recorded prompt was sent as, joined to OUTCOMES (cascades-9-models.jsonl) on `id`.
//
// SOURCE is the public repository mzelling/rational-llm-cascades: a checkout, or its git directory (a
// bare clone), read at commit 0d9c861 — the commit the outcomes were converted from. It declares no
// licence, so the text stays outside this repository, beside the outcomes: OUT defaults to OUTCOMES with
// `.prompts.jsonl` for `.jsonl`. Each family's chain results (one per model chain; both
// chains sent the same prompts) hold the prompts in the order of the outcomes' ids: `FAMILY-SPLIT-INDEX`.
// The script checks that join against the outcomes' own grades before it writes anything.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Parser } from 'pickleparser';

const COMMIT = '0d9c8610de48960420ec2352855555a8c1e2c52f';
const FAMILIES = ['gsm8k', 'medmcqa', 'mmlu', 'triviaqa', 'truthfulqa'];
const [source, outcomesArg, outArg] = process.argv.slice(2);
if (!source || !outcomesArg) {
  process.stderr.write(
    'usage: node scripts/prompts.mjs SOURCE OUTCOMES [OUT]\n  SOURCE: a checkout or git directory of mzelling/rational-llm-cascades\n  OUTCOMES: cascades-9-models.jsonl\n',
  );
  process.exit(2);
}
const outcomesPath = resolve(outcomesArg);
const out = resolve(outArg ?? outcomesPath.replace(/\.jsonl$/, '') + '.prompts.jsonl');

/** A file of SOURCE at COMMIT: from git when SOURCE is a repository, else from the checkout's work tree. */
function read(path) {
  const gitDir = existsSync(join(source, 'HEAD')) ? source : existsSync(join(source, '.git')) ? join(source, '.git') : undefined;
  if (gitDir) {
    try {
      return execFileSync('git', ['--git-dir', gitDir, 'show', `${COMMIT}:${path}`], { maxBuffer: 1 << 28 });
    } catch {
      return undefined;
    }
  }
  const file = join(source, path);
  return existsSync(file) ? readFileSync(file) : undefined;
}

const outcomes = new Map(
  readFileSync(outcomesPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line.replace(/-Infinity/g, '-1e999').replace(/NaN/g, 'null')))
    .map((row) => [row.id, row]),
);
const lines = [];
let checked = 0;
for (const family of FAMILIES) {
  for (const split of ['train', 'test']) {
    const ids = [...outcomes.keys()].filter((id) => id.startsWith(`${family}-${split}-`));
    if (ids.length === 0) continue;
    const bytes =
      read(`benchmarks/data/${family}/chain_results/${family}_full_llama_chain_results_${split}.pkl`) ??
      read(`benchmarks/data/${family}/chain_results/${family}_full_qwen_oai_chain_results_${split}.pkl`);
    if (!bytes)
      throw new Error(`${source} has no chain results for ${family} ${split} at ${COMMIT}: is it mzelling/rational-llm-cascades?`);
    const results = new Parser().parse(bytes);
    for (let index = 0; index < results.user_prompts.length; index++) {
      const row = outcomes.get(`${family}-${split}-${index}`);
      if (!row) continue;
      // The join is by position: every grade recorded beside the prompt must be the outcome's.
      for (const [model, grades] of Object.entries(results.model_correctness)) {
        if (row.m[model] && (grades[index] ? 1 : 0) !== row.m[model].c)
          throw new Error(`${row.id}: ${model}'s grade differs between the chain results and ${outcomesPath}; not written`);
        checked++;
      }
      lines.push(JSON.stringify({ id: row.id, system: results.system_prompts[index], prompt: results.user_prompts[index] }));
    }
  }
}
if (lines.length !== outcomes.size) throw new Error(`found prompts for ${lines.length} of the ${outcomes.size} outcomes; not written`);
writeFileSync(out, `${lines.join('\n')}\n`);
process.stdout.write(`wrote ${lines.length} prompts to ${out} (${checked} grades agree with ${outcomesPath})\n`);
