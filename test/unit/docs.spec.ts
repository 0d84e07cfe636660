/**
 * The user documentation: the README's first screen and the pages under docs/ it links to.
 *
 * @remarks
 * The reference moved from one long README into docs/, one page a topic, and every cross-reference
 * became a link between files: a section renamed or moved breaks them silently, on GitHub and on the
 * Marketplace page alike. This reads every relative link of the repository's Markdown and checks that
 * its file exists and that its `#anchor` is a heading there, as GitHub makes one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');

const PAGES = [
  'README.md',
  'SECURITY.md',
  'ARCHITECTURE.md',
  'BENCHMARKS.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const read = (page: string): string => readFileSync(join(ROOT, page), 'utf8');

/** Text outside fenced code blocks, where a `](` is code rather than a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** The anchors GitHub gives a page: one per heading (lower case, punctuation dropped, spaces to hyphens, repeats numbered), and explicit ids. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = (match[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of text.matchAll(/<a id="([^"]+)"/g)) anchors.add(match[1] as string);
  return anchors;
}

/** Every relative link target of a page (images included), without web addresses. */
function linksOf(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('the documentation', () => {
  it('gives every heading an anchor as GitHub does', () => {
    const anchors = anchorsOf("# Rung\n## A team's ledger (PostgreSQL)\n## The `rung` command\n## Notes\n## Notes\n");
    expect([...anchors]).toEqual(['rung', 'a-teams-ledger-postgresql', 'the-rung-command', 'notes', 'notes-1']);
  });

  it.each(PAGES)('%s links only to files that exist and to headings they have', (page) => {
    const broken: string[] = [];
    for (const target of linksOf(read(page))) {
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), path));
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${target}: no file ${file}`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(read(file)).has(anchor)) {
        broken.push(`${target}: ${file} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names every setting the extension contributes in docs/settings.md', () => {
    const manifest = JSON.parse(read('package.json')) as {
      contributes: { configuration: { properties: Record<string, unknown> } | { properties: Record<string, unknown> }[] };
    };
    const sections = [manifest.contributes.configuration].flat();
    const settings = sections.flatMap((section) => Object.keys(section.properties));
    expect(settings.length).toBeGreaterThan(0);
    const page = read('docs/settings.md');
    expect(settings.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });

  it('keeps the README a first screen: the two commands, well under 150 lines', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    expect(readme.split('\n').length).toBeLessThan(150);
  });
});
