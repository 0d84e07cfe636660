import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { panelJsonSchema } from '../../../src/core/panelJsonSchema';

// The build runs esbuild, whose service is a process of its own; the schema's content is checked in
// test/unit/core/panelJsonSchema.spec.ts.
const ROOT = join(__dirname, '../../..');

interface Manifest {
  contributes: { jsonValidation?: { fileMatch: string; url: string }[] };
}

describe("the panel file's JSON Schema in the build", () => {
  it('is what the build writes to the file package.json gives VS Code for .rung/panel.json, and the package ships it', async () => {
    const build = (await import(join(ROOT, 'esbuild.mjs'))) as {
      PANEL_SCHEMA: string;
      writePanelSchema: (outfile: string) => Promise<void>;
    };
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
    expect(manifest.contributes.jsonValidation).toEqual([{ fileMatch: '.rung/panel.json', url: `./${build.PANEL_SCHEMA}` }]);
    expect(readFileSync(join(ROOT, '.vscodeignore'), 'utf8').split('\n')).toContain(`!${build.PANEL_SCHEMA}`);
    const folder = mkdtempSync(join(tmpdir(), 'rung-schema-'));
    try {
      const written = join(folder, 'panel.schema.json');
      await build.writePanelSchema(written);
      expect(JSON.parse(readFileSync(written, 'utf8'))).toEqual(panelJsonSchema());
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
