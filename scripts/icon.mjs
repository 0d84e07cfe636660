// The Marketplace icon, `dist/icon.png`: media/rung.svg drawn white on a rounded square, 128 px, rendered at
// every build (esbuild.mjs) so the listing's icon cannot drift from the one the editor shows.
//
// media/rung.svg is a 16-unit line drawing in `currentColor`, made for the editor's toolbar, where the theme
// colours it. A listing icon sits on the Marketplace's white page and on dark editors alike, so it gets a
// background of its own; the ladder is the same file, nested, never redrawn. Rendered with resvg's
// WebAssembly build: one package, no native binary for each platform and nothing fetched at install or run
// time; the drawing has no text, so the WebAssembly build's lack of system fonts costs nothing.
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The icon's side, px: the Marketplace asks for at least 128. */
export const ICON_SIZE = 128;
/** The square behind the ladder; `galleryBanner.color` in package.json is the same colour. */
export const ICON_BACKGROUND = '#1f3b57';
const ICON_FOREGROUND = '#ffffff';

/**
 * The icon as SVG: `source` (the text of media/rung.svg) nested in a 16-unit square with rounded corners,
 * inset by 2 units, its `currentColor` set to white.
 */
export function iconSvg(source) {
  const root = /<svg\b[^>]*>/.exec(source);
  if (!root || !/viewBox="0 0 16 16"/.test(root[0]) || !source.trimEnd().endsWith('</svg>')) {
    throw new Error('media/rung.svg must be one <svg> element with viewBox="0 0 16 16": the icon is drawn on that grid');
  }
  const nested = root[0].replace('<svg', `<svg x="2" y="2" width="12" height="12" color="${ICON_FOREGROUND}"`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${ICON_SIZE}" height="${ICON_SIZE}" viewBox="0 0 16 16">`,
    `<rect width="16" height="16" rx="3" fill="${ICON_BACKGROUND}"/>`,
    nested + source.slice(root.index + root[0].length),
    '</svg>',
  ].join('\n');
}

let ready;

/** The PNG of {@link iconSvg}, `ICON_SIZE` px square. */
export async function renderIcon(source) {
  const resvg = require('@resvg/resvg-wasm');
  // The WebAssembly module may be started once per process.
  ready ??= resvg.initWasm(readFileSync(require.resolve('@resvg/resvg-wasm/index_bg.wasm')));
  await ready;
  const rendered = new resvg.Resvg(iconSvg(source), { fitTo: { mode: 'width', value: ICON_SIZE } }).render();
  const png = Buffer.from(rendered.asPng());
  rendered.free();
  return png;
}
